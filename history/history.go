// Package history keeps the index's copy of the workspace's git history:
// each commit reachable from HEAD (the newest MaxCommits), its message
// analysed like code, and the files it touched. Retrieval uses it for the
// history signals of file ranking (docs/decisions/0094).
//
// The history is read with the git CLI, bounded in time, and only from the
// workspace's own .git directory. Whatever keeps it from being read (no
// repository, a shallow clone, a damaged one, a timeout) leaves the
// history empty and a one-line note saying why; it never fails an index
// run.
package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

const (
	// MaxCommits bounds the commits kept: the newest reachable from HEAD.
	MaxCommits = 20000
	// MassChange is the number of touched files above which a commit's
	// files are not recorded: a reformat, a rename of a package, a vendor
	// update says nothing about any one file.
	MassChange = 50
	// Timeout bounds one update; what was read by then is kept and the
	// next update goes on from there.
	Timeout = 20 * time.Second
	// batch is how many commits one git log reads and one transaction
	// stores.
	batch = 2000
	// maxMessage bounds the part of a message that is analysed.
	maxMessage = 16 << 10
)

// Meta keys of the stored history.
const (
	// MetaHead is the workspace HEAD (index.GitHead) the history matches.
	MetaHead = "history_head"
	// MetaAnalyzer is the analyzer version of the stored messages.
	MetaAnalyzer = "history_analyzer"
	// MetaNote says why there is no (complete) history; "" when there is.
	MetaNote = "history_note"
)

// Summary reports an update.
type Summary struct {
	Added, Removed int
	// Note says why the history is absent or incomplete.
	Note string
	// Skipped is set when HEAD had not moved: nothing was read.
	Skipped bool
}

// Update brings the stored history in line with the repository at root,
// whose HEAD is head (index.GitHead; "" when root has no .git directory).
// It reads git only when head differs from the HEAD the history was built
// for.
func Update(ctx context.Context, st *store.Store, root, head string) (Summary, error) {
	was, err := st.Meta(ctx, MetaHead)
	if err != nil {
		return Summary{}, err
	}
	version, err := st.Meta(ctx, MetaAnalyzer)
	if err != nil {
		return Summary{}, err
	}
	if version == analyzer.Version && was == head {
		return Summary{Skipped: true}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	meta := func(note string) map[string]string {
		return map[string]string{MetaHead: head, MetaAnalyzer: analyzer.Version, MetaNote: note}
	}
	absent := func(note string) (Summary, error) {
		err := st.UpdateHistory(context.WithoutCancel(ctx), store.HistoryUpdate{Clear: true, Meta: meta(note)})
		return Summary{Note: note}, err
	}
	gitDir := filepath.Join(root, ".git")
	fi, err := os.Lstat(gitDir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return absent("not a git repository")
	case err != nil:
		return absent("cannot read .git: " + err.Error())
	case !fi.IsDir():
		// A worktree's or submodule's .git file points outside the
		// workspace, which ctxls does not read (decision 0090).
		return absent(".git is not a directory (a worktree or submodule): not read")
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "shallow")); err == nil {
		return absent("shallow clone: history incomplete, not used")
	}
	g := git{dir: gitDir}
	hashes, err := g.revList(ctx)
	if err != nil {
		return absent("git history unreadable: " + err.Error())
	}
	stored, err := st.CommitHashes(ctx)
	if err != nil {
		return Summary{}, err
	}
	clear := version != analyzer.Version
	if clear {
		stored = map[string]int64{}
	}
	reachable := make(map[string]bool, len(hashes))
	var fresh []string // newest first
	for _, h := range hashes {
		reachable[h] = true
		if _, ok := stored[h]; !ok {
			fresh = append(fresh, h)
		}
	}
	var sum Summary
	var remove []int64
	for h, id := range stored {
		if !reachable[h] {
			remove = append(remove, id)
		}
	}
	sum.Removed = len(remove)
	if len(fresh) == 0 {
		return sum, st.UpdateHistory(ctx, store.HistoryUpdate{Clear: clear, Remove: remove, Meta: meta("")})
	}
	// Fresh commits are numbered in git's order, newest first, just below
	// the ids of the stored ones, which they are newer than when HEAD moved
	// on: ranking orders commits of one second by id (store.Commit.ID), and
	// a history updated checkout by checkout must order them as a history
	// read at once does.
	first := int64(1) // no stored commits: 1, 2, …
	for h, id := range stored {
		if reachable[h] {
			first = min(first, id-int64(len(fresh)))
		}
	}
	if first <= 0 && first+int64(len(fresh)) > 0 {
		first = -int64(len(fresh)) // 0 is no id (store.Commit.ID)
	}
	order := make(map[string]int64, len(fresh))
	for i, h := range fresh {
		order[h] = first + int64(i)
	}
	an := analyzer.New()
	for start := 0; start < len(fresh); start += batch {
		part := fresh[start:min(start+batch, len(fresh))]
		commits, err := g.commits(ctx, part, an)
		if err != nil {
			note := fmt.Sprintf("history incomplete: %d of %d new commits read: %v", sum.Added, len(fresh), err)
			// Keep what was read; HEAD is not recorded, so the next
			// update goes on from there.
			err := st.UpdateHistory(context.WithoutCancel(ctx), store.HistoryUpdate{Clear: clear, Remove: remove, Meta: map[string]string{MetaNote: note, MetaAnalyzer: analyzer.Version}})
			sum.Note = note
			return sum, err
		}
		for i := range commits {
			commits[i].ID = order[commits[i].Hash]
		}
		u := store.HistoryUpdate{Clear: clear, Remove: remove, Add: commits}
		if start+batch >= len(fresh) {
			u.Meta = meta("")
		} else {
			// Until the last batch, the stored messages are of this
			// version but the history is not complete.
			u.Meta = map[string]string{MetaAnalyzer: analyzer.Version}
		}
		if err := st.UpdateHistory(ctx, u); err != nil {
			return sum, err
		}
		clear, remove = false, nil
		sum.Added += len(commits)
	}
	return sum, nil
}

// git runs git on one repository.
type git struct {
	dir string
}

func (g git) command(ctx context.Context, args ...string) *exec.Cmd {
	// The repository is named explicitly: git must never look for one
	// above the workspace. Optional locks are off: reading history must
	// not write the repository.
	full := append([]string{"--git-dir=" + g.dir, "--no-replace-objects", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_CEILING_DIRECTORIES=")
	cmd.WaitDelay = time.Second
	return cmd
}

// revList returns the newest MaxCommits commits reachable from HEAD,
// newest first.
func (g git) revList(ctx context.Context) ([]string, error) {
	cmd := g.command(ctx, "rev-list", "--max-count="+strconv.Itoa(MaxCommits), "HEAD", "--")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, gitError(ctx, err, stderr.Bytes())
	}
	var hashes []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if !isHash(line) {
				return nil, fmt.Errorf("unexpected rev-list output %q", line)
			}
			hashes = append(hashes, line)
		}
	}
	return hashes, nil
}

// recordStart begins each commit of commits' log output.
const recordStart = '\x01'

// commits reads the given commits: time, message and touched files.
func (g git) commits(ctx context.Context, hashes []string, an *analyzer.Analyzer) ([]store.Commit, error) {
	cmd := g.command(ctx, "log", "--no-walk=unsorted", "--stdin", "-z", "--name-only", "--no-renames",
		"--no-notes", "--no-color", "--encoding=UTF-8", "--format=%x01%H %ct%n%B")
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	commits, perr := parseLog(bufio.NewReaderSize(out, 64<<10), an)
	if perr != nil {
		io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return nil, gitError(ctx, err, stderr.Bytes())
	}
	return commits, perr
}

// parseLog reads records "\x01HASH TIME\nMESSAGE\x00\nFILE\x00FILE\x00…".
// A \x01 not followed by a header is part of a message.
func parseLog(r *bufio.Reader, an *analyzer.Analyzer) ([]store.Commit, error) {
	var out []store.Commit
	var rec []byte
	flush := func() {
		if c, ok := parseRecord(rec, an); ok {
			out = append(out, c)
		}
		rec = rec[:0]
	}
	first := true
	for {
		frag, err := r.ReadBytes(recordStart)
		if len(frag) > 0 && frag[len(frag)-1] == recordStart {
			frag = frag[:len(frag)-1]
		}
		switch {
		case first:
			// Whatever precedes the first record's mark is no record.
			first = false
		case isHeader(frag):
			flush()
			rec = append(rec, frag...)
		default:
			rec = append(append(rec, recordStart), frag...)
		}
		if err == io.EOF {
			flush()
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// isHeader reports whether b starts with a record's "HASH TIME\n".
func isHeader(b []byte) bool {
	header, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return false
	}
	hash, at, ok := strings.Cut(string(header), " ")
	if !ok || !isHash(hash) {
		return false
	}
	_, err := strconv.ParseInt(at, 10, 64)
	return err == nil
}

func parseRecord(rec []byte, an *analyzer.Analyzer) (store.Commit, bool) {
	header, rest, ok := bytes.Cut(rec, []byte("\n"))
	if !ok {
		return store.Commit{}, false
	}
	hash, at, ok := strings.Cut(string(header), " ")
	if !ok || !isHash(hash) {
		return store.Commit{}, false
	}
	secs, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return store.Commit{}, false
	}
	msg, files, _ := bytes.Cut(rest, []byte{0})
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	c := store.Commit{Hash: hash, At: secs}
	text := string(msg)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	c.Terms = strings.Join(an.Terms(text), " ")
	for f := range bytes.SplitSeq(files, []byte{0}) {
		f = bytes.TrimLeft(f, "\n")
		if len(f) == 0 {
			continue
		}
		c.NFiles++
		if c.NFiles <= MassChange && utf8.Valid(f) {
			c.Files = append(c.Files, string(f))
		}
	}
	if c.NFiles > MassChange {
		c.Files, c.Skip = nil, "mass"
	}
	return c, true
}

// isHash reports a full SHA-1 or SHA-256 object name.
func isHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// gitError is err with the first line of git's complaint.
func gitError(ctx context.Context, err error, stderr []byte) error {
	if ctx.Err() != nil {
		return fmt.Errorf("git: %w", ctx.Err())
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(stderr)), "\n")
	if line == "" {
		return fmt.Errorf("git: %w", err)
	}
	return fmt.Errorf("git: %s", line)
}

// Status is one line on the stored history, for `ctxls stats`.
func Status(ctx context.Context, st *store.Store) (string, error) {
	version, err := st.Meta(ctx, MetaAnalyzer)
	if err != nil {
		return "", err
	}
	note, err := st.Meta(ctx, MetaNote)
	if err != nil {
		return "", err
	}
	n, mass, err := st.HistoryCounts(ctx)
	if err != nil {
		return "", err
	}
	switch {
	case version == "":
		return "not read yet (run 'ctxls index')", nil
	case n == 0 && note != "":
		return "none: " + note, nil
	case n == 0:
		return "none: no commits", nil
	}
	line := fmt.Sprintf("%d commits (%d mass changes without their files)", n, mass)
	if note != "" {
		line += "; " + note
	}
	return line, nil
}
