package hookd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/store"
)

// hook runs the built binary as Claude Code does, with the prompt of
// prompt() on stdin, and returns its additionalContext.
func hook(t *testing.T, root, session string, env ...string) string {
	t.Helper()
	b := os.Getenv("CTXLS_BIN")
	if b == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	cmd := exec.Command(b, "hook", "user-prompt-submit")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(prompt(root, session))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("hook: %v, stderr %q", err, stderr.String())
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return ""
	}
	var o hooks.Output
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return o.HookSpecificOutput.AdditionalContext
}

// waitFile waits until path exists (or, with gone, no longer exists).
func waitFile(t *testing.T, path string, gone bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, err := os.Stat(path)
		if (err == nil) != gone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The first hook call answers in its own process and starts the
// workspace's daemon; the next ones are answered by the daemon, with the
// same context; the daemon exits when the index is deleted.
func TestHookDaemonThroughBinary(t *testing.T) {
	root := workspace(t)
	sock, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	first := hook(t, root, "s1")
	if first == "" {
		t.Fatal("no context from the first call")
	}
	waitFile(t, sock, false, "the daemon's socket")
	if second := hook(t, root, "s2"); second != first {
		t.Errorf("through the daemon:\n%s\nin-process:\n%s", second, first)
	}
	log, _ := os.ReadFile(filepath.Join(store.Dir(root), "ctxls.log"))
	if !bytes.Contains(log, []byte(`"msg":"hook answered","daemon":true`)) {
		t.Errorf("no call was answered by the daemon; log:\n%s", log)
	}
	if err := os.Remove(store.Path(root)); err != nil {
		t.Fatal(err)
	}
	waitFile(t, sock, true, "the daemon to exit after its index was deleted")
}

// CTXLS_HOOK_DAEMON=0 keeps every call in its own process.
func TestHookDaemonOff(t *testing.T) {
	root := workspace(t)
	if hook(t, root, "s", "CTXLS_HOOK_DAEMON=0") == "" {
		t.Fatal("no context")
	}
	sock, _ := SocketPath(root)
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(sock); err == nil {
		t.Error("a daemon was started with CTXLS_HOOK_DAEMON=0")
	}
}
