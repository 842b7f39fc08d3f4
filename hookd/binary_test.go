package hookd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// core is bin/ctxls-core, the full program beside the thin client
// CTXLS_BIN (cmd/ctxls).
func core(t *testing.T) string {
	t.Helper()
	b := os.Getenv("CTXLS_BIN")
	if b == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	return filepath.Join(filepath.Dir(b), "ctxls-core")
}

// hook runs ctxls-core's hook command with the prompt of prompt() on stdin,
// and returns its additionalContext.
func hook(t *testing.T, root, session string, env ...string) string {
	t.Helper()
	cmd := exec.Command(core(t), "hook", "user-prompt-submit")
	cmd.Dir = t.TempDir()
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
	sock, err := hookcall.SocketPath(root)
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
	sock, _ := hookcall.SocketPath(root)
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(sock); err == nil {
		t.Error("a daemon was started with CTXLS_HOOK_DAEMON=0")
	}
}

// hookClient runs the thin client CTXLS_BIN with args and stdin, as Claude
// Code runs what ctxls init installs; it must exit 0 whatever happens.
func hookClient(t *testing.T, stdin []byte, args ...string) (stdout, stderr string) {
	t.Helper()
	b := os.Getenv("CTXLS_BIN")
	if b == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	cmd := exec.Command(b, args...)
	cmd.Dir = t.TempDir() // input without a cwd must not find the repository
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctxls %v: %v (stderr %q)", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// The thin client, what ctxls init installs: the first call is answered by
// ctxls-core (which starts the daemon), the next by the daemon, with the
// same context; input it cannot handle goes to ctxls-core, which fails
// open.
func TestHookClientThroughBinary(t *testing.T) {
	root := workspace(t)
	sock, err := hookcall.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	contextOf := func(out string) string {
		if strings.TrimSpace(out) == "" {
			return ""
		}
		var o hooks.Output
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		return o.HookSpecificOutput.AdditionalContext
	}
	out, _ := hookClient(t, prompt(root, "c1"), "hook", "user-prompt-submit")
	first := contextOf(out)
	if first == "" {
		t.Fatal("no context from the first call")
	}
	waitFile(t, sock, false, "the daemon's socket")
	before := daemonAnswers(t, root)
	out, _ = hookClient(t, prompt(root, "c2"), "hook", "user-prompt-submit")
	if second := contextOf(out); second != first {
		t.Errorf("through the daemon:\n%s\nfirst call:\n%s", second, first)
	}
	if daemonAnswers(t, root) != before+1 {
		t.Error("the second call was not answered by the daemon")
	}
	if out, _ := hookClient(t, []byte("{not json"), "hook", "user-prompt-submit"); out != "" {
		t.Errorf("malformed input: %q, want nothing", out)
	}
	if out, errs := hookClient(t, prompt(root, "c3"), "hook", "no-such-event"); out != "" || !strings.Contains(errs, "unknown event") {
		t.Errorf("unknown event: stdout %q, stderr %q", out, errs)
	}
}

// daemonAnswers counts the calls the daemon answered, from the log.
func daemonAnswers(t *testing.T, root string) int {
	t.Helper()
	log, _ := os.ReadFile(filepath.Join(store.Dir(root), "ctxls.log"))
	return bytes.Count(log, []byte(`"msg":"hook answered","daemon":true`))
}

// `ctxls query` asks the daemon too, from the thin client and from
// ctxls-core, and prints exactly what ctxls-core prints on its own.
func TestQueryThroughDaemon(t *testing.T) {
	root := workspace(t)
	thin, full := os.Getenv("CTXLS_BIN"), core(t)
	// The thin client must resolve the root and the active file (given
	// relative to the working directory) as ctxls-core does.
	dir := filepath.Join(root, "auth")
	query := func(bin string, env ...string) string {
		t.Helper()
		cmd := exec.Command(bin, "query", "--root", "..", "--json", "--explain", "--active-file", "auth.go",
			"--limit=5", "Why does AuthService.Login", "reject valid passwords?")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s query: %v", bin, err)
		}
		return string(out)
	}
	answered := func() int {
		log, _ := os.ReadFile(filepath.Join(store.Dir(root), "ctxls.log"))
		return bytes.Count(log, []byte(`"msg":"query answered"`))
	}
	alone := query(full, "CTXLS_HOOK_DAEMON=0")
	if !strings.Contains(alone, `"auth/auth.go"`) {
		t.Fatalf("on its own: %s", alone)
	}
	query(thin) // ctxls-core answers and starts the daemon
	sock, _ := hookcall.SocketPath(root)
	waitFile(t, sock, false, "the daemon's socket")
	for _, bin := range []string{thin, full} {
		before := answered()
		if got := query(bin); got != alone {
			t.Errorf("%s through the daemon:\n%s\non its own:\n%s", bin, got, alone)
		}
		if answered() != before+1 {
			t.Errorf("%s: the daemon did not answer the query", bin)
		}
	}
}

// `ctxls index` through the thin client: the first run after the daemon
// started walks and tells the daemon; the next is answered by the daemon's
// watches without a walk, with a file written just before it indexed.
func TestIndexThroughFollowingDaemon(t *testing.T) {
	root := workspace(t)
	sock, err := hookcall.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	hookClient(t, prompt(root, "s1"), "hook", "user-prompt-submit") // starts the daemon
	waitFile(t, sock, false, "the daemon's socket")
	time.Sleep(300 * time.Millisecond) // its watches in place
	run := func() index.Summary {
		t.Helper()
		out, _ := hookClient(t, nil, "index", "--root", root, "--json")
		var sum index.Summary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("index output %q: %v", out, err)
		}
		return sum
	}
	if sum := run(); sum.Followed || sum.Files != 1 {
		t.Fatalf("first run: %+v, want a walk of 1 file", sum)
	}
	if err := os.WriteFile(filepath.Join(root, "auth", "token.go"), []byte("package auth\n\nfunc Mint() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum := run(); !sum.Followed || sum.Files != 2 {
		t.Fatalf("second run: %+v, want the daemon's answer with 2 files", sum)
	}
	hookcall.Stop(context.Background(), root)
	waitFile(t, sock, true, "the daemon to stop")
}
