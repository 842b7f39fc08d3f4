package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// allCommands returns every command of the full tree a person can see,
// cobra's help and completion included: their help is ctxls's too.
func allCommands() []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(nil))
	return out
}

// Every command's help shows how it is used (cobra's Example), and says
// each flag's default once: a flag whose text states its default has a
// zero default value, to which cobra adds nothing.
func TestHelpExplainsItself(t *testing.T) {
	zero := map[string]bool{"": true, "0": true, "false": true, "[]": true, "0s": true}
	for _, c := range allCommands() {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no example in its help", c.CommandPath())
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if strings.Contains(f.Usage, "default") && !zero[f.DefValue] {
				t.Errorf("%s --%s states its default twice: %q and cobra's (default %s)", c.CommandPath(), f.Name, f.Usage, f.DefValue)
			}
		})
	}
}

// Exit codes through the built binary: 0 done, 1 failed, 2 the command
// line is wrong; a usage error shows the usage of the command misused.
func TestExitCodes(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	t.Setenv("HOME", t.TempDir())
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() { Greet() }\n"), 0o644)
	empty := t.TempDir()
	if _, errOut, code := ctxls(t, root, "index"); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	for _, c := range []struct {
		dir    string
		args   []string
		code   int
		stdout string // a substring of stdout, if given
		stderr string // a substring of stderr, if given
	}{
		{root, []string{"--version"}, 0, "ctxls ", ""},
		{root, []string{"query", "Greet"}, 0, "main.go", ""},
		{root, []string{"context", "Greet"}, 0, "func Greet()", ""},
		// An abstention is an answer (0), with its reason in one line.
		{root, []string{"context", "what a lovely day for a walk"}, 0, "<auto-context>", "ctxls: no context for this message: "},
		{root, []string{"context", "--json", "what a lovely day for a walk"}, 0, `"reason": "`, ""},
		{root, []string{"index", "--check"}, 0, "check: every page of the index and the session state file is sound", ""},
		{root, []string{"memory", "write", "--type", "gotcha", "--title", "Greet is English only", "--tags", "i18n", "--content", "Say hello in English."}, 0, "wrote ", ""},
		{root, []string{"daemon", "stop"}, 0, "no ctxls daemon serves this workspace", ""},
		{root, []string{"init", "--help"}, 0, "Examples:\n  ctxls init", ""},
		// Failures: 1.
		{empty, []string{"query", "Greet"}, 1, "", "ctxls index"},
		{root, []string{"memory", "show", "no-such-memory"}, 1, "", "no-such-memory"},
		// Usage errors: 2, with the usage of the command misused.
		{root, []string{"no-such-command"}, 2, "", "ctxls --help"},
		{root, []string{"query"}, 2, "", "Usage:\n  ctxls query"},
		{root, []string{"query", "--limit", "0", "x"}, 2, "", "Usage:\n  ctxls query"},
		{root, []string{"query", "--min-relevance", "2", "x"}, 2, "", "Usage:\n  ctxls query"},
		{root, []string{"context", "--max-tokens", "0", "x"}, 2, "", "Usage:\n  ctxls context"},
		{root, []string{"index", "--nope"}, 2, "", "Usage:\n  ctxls index"},
		{root, []string{"init", "--local", "--global"}, 2, "", "Usage:\n  ctxls init"},
		{root, []string{"memory", "write", "--type", "foo", "--title", "x", "--tags", "a", "--content", "y"}, 2, "", "Usage:\n  ctxls memory write"},
		{root, []string{"memory", "write", "--title", "x", "--tags", "a", "--content", "y"}, 2, "", "Usage:\n  ctxls memory write"},
		{root, []string{"memory", "write", "--type", "gotcha", "--title", "x", "--tags", "UPPER", "--content", "y"}, 2, "", "lowercase"},
		{root, []string{"daemon", "stop", "--all", "--root", root}, 2, "", "Usage:\n  ctxls daemon stop"},
		{root, []string{"daemon", "list", "extra"}, 2, "", "Usage:\n  ctxls daemon list"},
		{root, []string{"memory", "show", "../../etc/passwd"}, 2, "", "invalid slug"},
	} {
		out, errOut, code := ctxls(t, c.dir, c.args...)
		if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", c.args, code, out, errOut, c.code, c.stdout, c.stderr)
		}
		if c.code == 0 && c.stderr == "" && errOut != "" {
			t.Errorf("%v: exit 0 with stderr %q", c.args, errOut)
		}
	}
}

// daemon list shows the workspace daemons of this user, and daemon stop
// stops one, or all, and waits until they are gone.
func TestDaemonListStop(t *testing.T) {
	// Daemon sockets of this test only: --all must not reach the
	// daemons of anything else running as this user.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	roots := []string{t.TempDir(), t.TempDir()}
	for _, root := range roots {
		os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
		if _, errOut, code := ctxls(t, root, "index"); code != 0 {
			t.Fatalf("index: %d %s", code, errOut)
		}
	}
	list := func() map[string]int {
		t.Helper()
		out, errOut, code := ctxls(t, roots[0], "daemon", "list", "--json")
		var l struct {
			Version int `json:"version"`
			Daemons []struct {
				Root string `json:"root"`
				PID  int    `json:"pid"`
			} `json:"daemons"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || l.Version != 1 {
			t.Fatalf("daemon list --json: %d %v %q %q", code, err, out, errOut)
		}
		m := map[string]int{}
		for _, d := range l.Daemons {
			m[d.Root] = d.PID
		}
		return m
	}
	start := func() {
		t.Helper()
		for _, root := range roots {
			hook := exec.Command(os.Getenv("CTXLS_BIN"), "hook", "session-start")
			hook.Dir = root
			hook.Stdin = strings.NewReader(`{"session_id":"d1","hook_event_name":"SessionStart","source":"startup","cwd":"` + root + `"}`)
			if err := hook.Run(); err != nil {
				t.Fatal(err)
			}
		}
		for deadline := time.Now().Add(20 * time.Second); len(list()) < 2; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("daemons listed: %v, want both workspaces", list())
			}
		}
	}
	t.Cleanup(func() { ctxls(t, roots[0], "daemon", "stop", "--all") })
	if got := list(); len(got) != 0 {
		t.Fatalf("daemons before any hook: %v", got)
	}
	start()
	if out, _, _ := ctxls(t, roots[0], "daemon", "list"); !strings.Contains(out, roots[0]) || !strings.Contains(out, roots[1]) {
		t.Errorf("daemon list:\n%s", out)
	}
	pid := list()[roots[0]]
	if out, _, code := ctxls(t, roots[0], "daemon", "stop"); code != 0 || !strings.Contains(out, "stopped the daemon of "+roots[0]) {
		t.Errorf("daemon stop: %d %q", code, out)
	}
	if got := list(); got[roots[0]] != 0 || got[roots[1]] == 0 {
		t.Errorf("after daemon stop in %s (pid %d): %v", roots[0], pid, got)
	}
	start()
	if out, _, code := ctxls(t, roots[0], "daemon", "stop", "--all"); code != 0 || strings.Count(out, "stopped the daemon of ") != 2 {
		t.Errorf("daemon stop --all: %d %q", code, out)
	}
	if got := list(); len(got) != 0 {
		t.Errorf("after daemon stop --all: %v", got)
	}
}
