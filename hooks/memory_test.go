package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryInjectionEndToEnd drives the built binary: a gotcha attached to
// a file (written with 'ctxls memory write --files') is injected when the
// assistant reads that file, once per session, and before an edit of it.
func TestMemoryInjectionEndToEnd(t *testing.T) {
	b := bin(t)
	root := quietDir(t) // its hooks start a daemon
	home := t.TempDir() // the global scope: never the real ~/.claude
	os.MkdirAll(filepath.Join(root, "billing"), 0o755)
	os.WriteFile(filepath.Join(root, "billing", "invoice.go"), []byte("package billing\n\n// Total sums the lines.\nfunc Total(lines []int) int { return 0 }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(b, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HOME="+home)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("ctxls %v: %v\n%s", args, err, errb.String())
		}
		if args[0] == "hook" && errb.Len() > 0 {
			t.Errorf("hook wrote to stderr: %s", errb.String())
		}
		return out.String()
	}
	run("", "index", "--root", root)
	run("", "memory", "write", "--root", root, "--type", "gotcha", "--title", "Invoice totals must round half-even",
		"--tags", "billing,rounding", "--severity", "high", "--files", "billing/invoice.go",
		"--content", "Round with banker's rounding; the tax office rejects half-up totals.")

	read := func(session, file string) string {
		return run(string(input(map[string]any{"session_id": session, "cwd": root, "hook_event_name": "PostToolUse",
			"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(root, file)}})), "hook", "post-tool-use")
	}
	got := contextOf(t, "post-tool-use", read("s1", "billing/invoice.go"))
	for _, want := range []string{"🚨 **Invoice totals must round half-even** (gotcha-invoice-totals-must-round-half-even)", "Relevance: 100%", "severity: high", "banker's rounding"} {
		if !strings.Contains(got, want) {
			t.Errorf("post-tool-use Read: context lacks %q:\n%s", want, got)
		}
	}
	// The same session is not told twice.
	if again := contextOf(t, "post-tool-use", read("s1", "billing/invoice.go")); strings.Contains(again, "Invoice totals") {
		t.Errorf("injected twice in one session:\n%s", again)
	}
	// An unrelated file gets nothing from memory.
	if other := contextOf(t, "post-tool-use", read("s2", "main.go")); strings.Contains(other, "Invoice totals") {
		t.Errorf("injected for an unrelated file:\n%s", other)
	}
	// Before an edit of the file, in a new session.
	edit := run(string(input(map[string]any{"session_id": "s3", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "billing", "invoice.go"), "old_string": "return 0", "new_string": "return 1"}})), "hook", "pre-tool-use")
	if got := contextOf(t, "pre-tool-use", edit); !strings.Contains(got, "🚨 **Invoice totals must round half-even**") {
		t.Errorf("pre-tool-use Edit: gotcha not injected:\n%s", got)
	}
	// The hint state of the session is where the seed keeps it.
	if _, err := os.Stat(filepath.Join(root, ".claude", "session-state", "s1", "hints.json")); err != nil {
		t.Errorf("hint state: %v", err)
	}
}
