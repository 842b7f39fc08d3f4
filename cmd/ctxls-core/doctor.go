package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/install"
	"github.com/ctxls/ctxls/store"
)

func newDoctorCmd() *cobra.Command {
	var root string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the installation: binary, hooks, index, and a round trip of each hook",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := resolveRoot(root)
			if err != nil {
				return err
			}
			d := doctor{w: cmd.OutOrStdout(), root: abs}
			d.run(cmd.Context())
			if d.failed > 0 {
				return silentError{code: exitError}
			}
			return nil
		},
	}
	rootFlag(cmd, &root)
	return cmd
}

type doctor struct {
	w      io.Writer
	root   string
	failed int
}

func (d *doctor) verdict(ok bool, what, detail string) {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
		d.failed++
	}
	fmt.Fprintf(d.w, "%s  %s", mark, what)
	if detail != "" {
		fmt.Fprintf(d.w, ": %s", detail)
	}
	fmt.Fprintln(d.w)
}

// info prints a line that informs and never fails the check.
func (d *doctor) info(what, detail string) {
	fmt.Fprintf(d.w, "info  %s: %s\n", what, detail)
}

func (d *doctor) run(ctx context.Context) {
	// Hooks installed, and the command they run exists.
	path := ""
	for _, f := range []struct {
		path   string
		shared bool // committed and used by the whole team
	}{
		{filepath.Join(d.root, ".claude", "settings.json"), true},
		{filepath.Join(d.root, ".claude", "settings.local.json"), false},
		{filepath.Join(os.Getenv("HOME"), ".claude", "settings.json"), false},
	} {
		p := f.path
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var doc struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
					Timeout int      `json:"timeout"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			d.verdict(false, "settings "+p, "not valid JSON: "+err.Error())
			continue
		}
		found, command := 0, ""
		for _, h := range install.Hooks {
			for _, g := range doc.Hooks[h.Event] {
				for _, x := range g.Hooks {
					if len(x.Args) == 2 && x.Args[0] == "hook" && x.Args[1] == h.Arg {
						found++
						command = x.Command
					}
				}
			}
		}
		d.verdict(found == len(install.Hooks), "hooks in "+p, fmt.Sprintf("%d of %d installed", found, len(install.Hooks)))
		if command != "" {
			if resolved := d.command(p, command, f.shared); resolved != "" {
				path = resolved
			}
		}
	}
	if path == "" {
		// No hooks, or none whose command resolves: the canaries run
		// this program's thin client.
		if exe, err := os.Executable(); err == nil {
			path = frontCommand(exe)
		}
		d.verdict(false, "hooks installed", "none that run here; run 'ctxls init'")
	}
	if path == "" {
		return
	}
	defer d.mcp(ctx)
	// The index.
	st, err := store.Open(ctx, d.root, store.Options{ReadOnly: true})
	if err != nil {
		detail := err.Error()
		if store.IsCorrupt(err) {
			// A file that does not open (its header or schema damaged)
			// is set aside by the next writer.
			detail += "; run 'ctxls index' to set it aside and rebuild"
		}
		d.verdict(false, "index", detail)
		return
	}
	stats, err := st.Stats(ctx)
	at, _ := st.Meta(ctx, "indexed_at")
	health, herr := index.CheckHealth(ctx, st, d.root)
	// Not a verdict: how much of what the hooks inject the assistant uses
	// says how useful they are, not whether they work.
	var used string
	if list, uerr := st.Sessions(ctx, historyFilter(defaultUsageSessions)); uerr == nil {
		used = usageOf(list).String()
	}
	st.Close()
	if err != nil {
		d.verdict(false, "index", err.Error())
		if store.IsCorrupt(err) {
			d.pages(ctx)
		}
		return
	}
	d.verdict(stats.Parsed > 0, "index", fmt.Sprintf("%d files, %d entities, updated %s", stats.Files, stats.Entities, at))
	if stats.Files == 0 {
		var exclude []string
		if cfg, err := config.Load(d.root); err == nil {
			exclude = cfg.Index.Exclude
		}
		if rules, err := index.IgnoreRules(d.root, exclude); err == nil && len(rules) > 0 {
			d.info("ignore rules", strings.Join(rules, "; "))
		}
	}
	switch {
	case herr != nil:
		d.verdict(false, "index state", herr.Error())
	case health.Indexing:
		d.verdict(true, "index state", "an index run (or a background rebuild) is at work; hooks answer from what it has written")
	case health.NeedsRebuild():
		d.verdict(false, "index state", health.String()+"; the next hook or query rebuilds it in the background, or run 'ctxls index'")
	default:
		d.verdict(true, "index state", health.String())
	}
	if used != "" {
		d.info("usefulness", used+"; see ctxls sessions")
	}
	d.pages(ctx)
	// A canary round trip of each hook through the real binary.
	canaries := map[string]map[string]any{
		hookevent.SessionStart:     {"source": "startup"},
		hookevent.UserPromptSubmit: {"prompt": "ctxls doctor canary: how is the index stored?"},
		hookevent.PreToolUse:       {"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(d.root, "README.md"), "old_string": "x", "new_string": "y"}},
		hookevent.PostToolUse:      {"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(d.root, "README.md")}, "tool_response": map[string]any{}},
		hookevent.PostToolBatch:    {"tool_calls": []any{}},
		hookevent.PreCompact:       {"trigger": "manual"},
	}
	for _, e := range hookevent.All() {
		ev, in := e.Arg, canaries[e.Name]
		in["session_id"] = fmt.Sprintf("%sdoctor-%d", hooks.ProbeSessionPrefix, time.Now().UnixNano())
		in["cwd"] = d.root
		in["hook_event_name"] = e.Name
		data, _ := json.Marshal(in)
		c := exec.CommandContext(ctx, path, "hook", ev)
		c.Stdin = bytes.NewReader(data)
		var out bytes.Buffer
		c.Stdout = &out
		start := time.Now()
		err := c.Run()
		took := time.Since(start)
		valid := out.Len() == 0 || json.Valid(out.Bytes())
		ok := err == nil && valid && took < 5*time.Second
		detail := fmt.Sprintf("%d ms, %d bytes of output", took.Milliseconds(), out.Len())
		if err != nil {
			detail += ", " + err.Error()
		}
		if !valid {
			detail += ", output is not valid JSON"
		}
		d.verdict(ok, "hook "+ev, detail)
	}
	d.daemon(ctx)
	d.enterprise(ctx)
}

// command checks the command a settings or MCP file runs: that it
// resolves on this machine and, in a file the team shares, that it is not a
// path only this machine has (decision 0098). It returns the executable, or
// "" when the command does not resolve here.
func (d *doctor) command(file, command string, shared bool) string {
	what := "command in " + file
	path, err := install.Resolve(d.root, command)
	if err != nil {
		d.verdict(false, what, fmt.Sprintf("%q does not resolve on this machine: %v; install ctxls (make install) or put its directory on PATH", command, err))
		return ""
	}
	if shared && install.CheckShared(command) != nil {
		d.verdict(false, what, fmt.Sprintf("%q is a path of this machine, which teammates do not have; run 'ctxls init' again to write %q", command, install.DefaultSharedCommand))
		return path
	}
	d.verdict(true, what, fmt.Sprintf("%s → %s", command, path))
	return path
}

// pages checks every page of the index and state files: Open reads only
// their headers, and damaged pages fail just the queries that meet them.
func (d *doctor) pages(ctx context.Context) {
	switch damaged, err := store.Check(ctx, d.root); {
	case err != nil:
		d.verdict(false, "index pages", err.Error())
	case len(damaged) > 0:
		d.verdict(false, "index pages", fmt.Sprintf("damaged: %s; run 'ctxls index --check' to set them aside and rebuild", strings.Join(damaged, ", ")))
	default:
		d.verdict(true, "index pages", "sound")
	}
}

// daemon checks that the canaries left a hook daemon serving the workspace
// (the first one starts it), unless it is turned off.
func (d *doctor) daemon(ctx context.Context) {
	if cfg, err := config.Load(d.root); err == nil && !cfg.HookDaemon() {
		d.verdict(true, "hook daemon", "off (hooks.daemon: false): every hook runs in its own process")
		return
	}
	if hookcall.Off() {
		d.verdict(true, "hook daemon", "off (CTXLS_HOOK_DAEMON=0)")
		return
	}
	sock, _ := hookcall.SocketPath(d.root)
	var err error
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err = hookcall.Ping(ctx, d.root); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		d.verdict(false, "hook daemon", fmt.Sprintf("not serving %s after the canaries (%v); hooks answer in their own, slower, processes; see .ctxls/ctxls.log", sock, err))
		return
	}
	d.verdict(true, "hook daemon", "serving on "+sock)
	resp, err := hookcall.CallSocket(ctx, sock, &hookcall.Request{Info: true})
	switch {
	case err != nil:
		d.verdict(false, "file watching", fmt.Sprintf("the daemon did not answer: %v", err))
		return
	case resp.Daemon == nil || resp.Daemon.Following == nil:
		d.verdict(true, "file watching", "not reported by this daemon's build")
		return
	}
	d.following(resp.Daemon.Following)
}

// following reports how the daemon keeps the index current with the disk.
// Whatever it says, no stale code is shown: a file that is not followed is
// checked against the disk when it is rendered (decision 0092). So a tree
// only partly watched is a note, not a failure: it costs freshness of the
// index between hooks, never what a hook shows.
func (d *doctor) following(f *hookcall.Following) {
	const unwatched = "changes there reach the index when a hook renders the file (it is checked against the disk) or at the next 'ctxls index'"
	switch {
	case f.NoWatcher != "":
		d.verdict(true, "file watching", fmt.Sprintf("no directory is watched (%s); %s", f.NoWatcher, unwatched))
	case f.Partial != "":
		d.verdict(true, "file watching", fmt.Sprintf("%d directories watched, not all: %s; %s", f.Dirs, f.Partial, unwatched))
	case !f.Current && f.Lost != "":
		d.verdict(true, "file watching", fmt.Sprintf("%d directories watched; catching up after %s (a background index run compares the tree)", f.Dirs, f.Lost))
	case !f.Current:
		d.verdict(true, "file watching", fmt.Sprintf("%d directories watched; waiting for the first whole index walk since the watches were set", f.Dirs))
	default:
		d.verdict(true, "file watching", fmt.Sprintf("%d directories watched; every change reaches the index", f.Dirs))
	}
}
