package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"golang.org/x/term"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/store"
)

func newIndexCmd() *cobra.Command {
	var (
		root     string
		asJSON   bool
		workers  int
		progress bool
		check    bool
		// background: started by heal, with the index lock as fd 3.
		background bool
	)
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build or update the workspace index",
		Long: `Index walks the workspace (honouring .gitignore, .git/info/exclude and
.ctxlsignore), parses changed files with tree-sitter on all cores and stores
entities, references and a full-text index in <root>/.ctxls/index.db.
Unchanged files are not re-read; deleted files disappear from the index.
When the workspace's hook daemon runs and has watched every change since the
last walk, 'ctxls index' (with at most --root and --json) is answered by it
without a walk; the summary then says "followed".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			if background {
				return backgroundIndex(cmd.Context(), abs)
			}
			cfg, err := config.Load(abs)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			opts := index.Options{Root: abs, Config: cfg, Workers: workers}
			if isTerminal(stderr) && !asJSON || progress {
				opts.Progress = newProgress(stderr, isTerminal(stderr))
			}
			started := time.Now()
			sum, repaired, err := indexWorkspace(cmd.Context(), abs, opts, store.Options{}, check, stderr)
			if err != nil {
				return err
			}
			tellDaemonWalked(cmd.Context(), abs, started)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			if check {
				if repaired.Index == "" {
					repaired.Index = sum.Recovered // a damaged header, found by Open
				}
				fmt.Fprintln(cmd.OutOrStdout(), checkVerdict(repaired))
			}
			return nil
		},
	}
	rootFlag(cmd, &root)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().IntVar(&workers, "workers", 0, "parsing goroutines (0: one per CPU)")
	cmd.Flags().BoolVar(&progress, "progress", false, "report progress even when stderr is not a terminal")
	cmd.Flags().BoolVar(&check, "check", false, "read every page of the index and state files first; set damaged ones aside and rebuild")
	cmd.Flags().BoolVar(&background, "background", false, "run as a background rebuild: log to .ctxls/ctxls.log (internal)")
	cmd.Flags().MarkHidden("background")
	return cmd
}

// indexWorkspace brings root's index up to date, setting aside the files
// found damaged (all of them first with check) and indexing again into new
// ones.
func indexWorkspace(ctx context.Context, root string, opts index.Options, sopts store.Options, check bool, stderr io.Writer) (index.Summary, store.Repaired, error) {
	var repaired store.Repaired
	if check {
		var err error
		if repaired, err = store.Repair(ctx, root); err != nil {
			return index.Summary{}, repaired, err
		}
		reportRepair(stderr, repaired)
	}
	sum, err := runIndex(ctx, root, opts, sopts, stderr)
	if store.IsCorrupt(err) {
		// Damaged pages that Open did not read: set the damaged file
		// aside and index again, into a new one.
		if r, rerr := store.Repair(ctx, root); rerr == nil && r != (store.Repaired{}) {
			reportRepair(stderr, r)
			repaired = r
			sum, err = runIndex(ctx, root, opts, sopts, stderr)
		}
	}
	if err != nil {
		return sum, repaired, err
	}
	if sum.Recovered == "" {
		sum.Recovered = repaired.Index
	}
	return sum, repaired, nil
}

// checkVerdict is the last line of 'ctxls index --check': what the check of
// every page found, and what became of it.
func checkVerdict(r store.Repaired) string {
	switch {
	case r.Index != "" && r.State != "":
		return fmt.Sprintf("check: damaged pages in the index and the session state file; both set aside (%s, %s), the index rebuilt", r.Index, r.State)
	case r.Index != "":
		return fmt.Sprintf("check: the index had damaged pages; set aside as %s and rebuilt", r.Index)
	case r.State != "":
		return fmt.Sprintf("check: the session state file had damaged pages; set aside as %s, the index is sound", r.State)
	}
	return "check: every page of the index and the session state file is sound"
}

// backgroundIndex is the run heal starts: a whole-tree index run under the
// lock heal took and handed over as fd 3 (or, started some other way, the
// lock taken as any run takes it), with no terminal: what it did goes to
// the workspace's log.
func backgroundIndex(ctx context.Context, root string) error {
	// As the daemon: a workspace whose state was removed meanwhile is not
	// brought back.
	if _, err := os.Stat(workspace.Dir(root)); err != nil {
		return fmt.Errorf("%w at %s", store.ErrNoIndex, root)
	}
	log, err := logging.File(filepath.Join(workspace.Dir(root), "ctxls.log"), "info")
	if err != nil {
		return err
	}
	defer log.Sync()
	log = log.With(zap.Bool("background", true))
	cfg, err := config.Load(root)
	if err != nil {
		log.Warn("background index run failed", zap.Error(err))
		return err
	}
	opts := index.Options{Root: root, Config: cfg, Log: log}
	if f := inheritedLock(root); f != nil {
		defer f.Close()
		opts.LockHeld = true
	}
	var notes strings.Builder
	started := time.Now()
	sum, _, err := indexWorkspace(ctx, root, opts, store.Options{Existing: true}, false, &notes)
	if notes.Len() > 0 {
		log.Warn(strings.TrimSpace(notes.String()))
	}
	if err != nil {
		log.Warn("background index run failed", zap.Error(err))
		return err
	}
	log.Info("background index run done", zap.Int("files", sum.Files), zap.Int("parsed", sum.Parsed),
		zap.Int("entities", sum.Entities), zap.Float64("seconds", sum.Seconds))
	tellDaemonWalked(ctx, root, started)
	return nil
}

// tellDaemonWalked tells the workspace's hook daemon, if one runs, that a
// whole walk that began at started has finished: from then on its file
// watches keep the index current, and it answers the next 'ctxls index'
// without a walk (decision 0110). A daemon of another build ignores it.
func tellDaemonWalked(ctx context.Context, root string, started time.Time) {
	exe, err := hookcall.Executable()
	if err != nil {
		return
	}
	home, _ := os.UserHomeDir()
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, _ = hookcall.Call(ctx, &hookcall.Request{Identity: hookcall.Identity(exe), Home: home, Root: root,
		Walked: &hookcall.Walked{Started: started}})
}

// formatIndex is the output of 'ctxls index' for a summary (the daemon's
// answer without a walk prints as a walk's does).
func formatIndex(sum index.Summary, asJSON bool) ([]byte, error) {
	var b bytes.Buffer
	if asJSON {
		err := writeJSON(&b, sum)
		return b.Bytes(), err
	}
	printSummary(&b, sum)
	return b.Bytes(), nil
}

// runIndex opens root's index and brings it up to date.
func runIndex(ctx context.Context, root string, opts index.Options, sopts store.Options, stderr io.Writer) (index.Summary, error) {
	st, err := store.Open(ctx, root, sopts)
	if err != nil {
		return index.Summary{}, err
	}
	defer st.Close()
	if st.Recovered != "" {
		fmt.Fprintf(stderr, "ctxls: the index was corrupt or not a ctxls index; moved it to %s and rebuilding\n", st.Recovered)
	}
	sum, err := index.Run(ctx, st, opts)
	sum.Recovered = st.Recovered
	return sum, err
}

// reportRepair says which damaged files store.Repair set aside.
func reportRepair(w io.Writer, r store.Repaired) {
	if r.Index != "" {
		fmt.Fprintf(w, "ctxls: the index had damaged pages; moved it to %s and rebuilding\n", r.Index)
	}
	if r.State != "" {
		fmt.Fprintf(w, "ctxls: the session state file had damaged pages; moved it to %s\n", r.State)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress reports indexing progress: a bar on a terminal, a plain line
// every few seconds otherwise.
func newProgress(w io.Writer, tty bool) func(done, total int) {
	if tty {
		var bar *progressbar.ProgressBar
		return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("indexing"),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionSetItsString("files"),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish(),
				)
			}
			bar.Set(done)
			if done == total {
				bar.Finish()
			}
		}
	}
	start := time.Now()
	last := start
	return func(done, total int) {
		if now := time.Now(); now.Sub(last) >= 2*time.Second || done == total {
			last = now
			rate := float64(done) / now.Sub(start).Seconds()
			fmt.Fprintf(w, "indexed %d/%d files (%.0f files/s)\n", done, total, rate)
		}
	}
}

func printSummary(w io.Writer, s index.Summary) {
	fmt.Fprintf(w, "indexed %s in %.2fs\n", s.Root, s.Seconds)
	if s.Followed {
		fmt.Fprintf(w, "  followed:  the workspace's daemon watched every change since the last walk; no walk needed\n")
	}
	fmt.Fprintf(w, "  files:     %d tracked, %d parsed, %d unchanged, %d deleted\n", s.Files, s.Parsed, s.Unchanged, s.Deleted)
	fmt.Fprintf(w, "  entities:  %d written, %d references (%d resolved)\n", s.Entities, s.Refs, s.Resolved)
	if len(s.Skipped) > 0 {
		reasons := make([]string, 0, len(s.Skipped))
		for r := range s.Skipped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			fmt.Fprintf(w, "  skipped:   %d %s\n", s.Skipped[r], r)
		}
	}
	if s.Unsupported > 0 {
		fmt.Fprintf(w, "  ignored:   %d files in unsupported formats%s\n", s.Unsupported, commonExts(s.UnsupportedExts, 5))
	}
	if s.Files == 0 && len(s.IgnoredBy) == 0 && s.Unsupported > 0 {
		fmt.Fprintf(w, "  nothing to index: no file is in a language ctxls parses (its README lists them)\n")
	}
	if s.Files == 0 && len(s.IgnoredBy) > 0 {
		fmt.Fprintf(w, "  nothing to index: ignore rules exclude the workspace's files\n")
		for _, r := range s.IgnoredBy {
			fmt.Fprintf(w, "    %s\n", r)
		}
	}
}

// commonExts lists the n commonest extensions of counts, " (.txt 40, .scala
// 12, …)", most first, or "" when there are none.
func commonExts(counts map[string]int, n int) string {
	exts := make([]string, 0, len(counts))
	for e := range counts {
		exts = append(exts, e)
	}
	sort.Slice(exts, func(a, b int) bool {
		if counts[exts[a]] != counts[exts[b]] {
			return counts[exts[a]] > counts[exts[b]]
		}
		return exts[a] < exts[b]
	})
	if len(exts) == 0 {
		return ""
	}
	parts := make([]string, 0, n+1)
	for _, e := range exts[:min(n, len(exts))] {
		name := e
		if name == "" {
			name = "no extension"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, counts[e]))
	}
	if len(exts) > n {
		parts = append(parts, "…")
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
