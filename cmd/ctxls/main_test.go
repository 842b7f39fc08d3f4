package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// thin is the built thin client (CTXLS_BIN, bin/ctxls), ctxls-core beside it.
func thin(t *testing.T) string {
	t.Helper()
	b := os.Getenv("CTXLS_BIN")
	if b == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	return b
}

// run runs bin with args and stdin and returns its output and exit code.
func run(t *testing.T, bin string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return out.String(), errb.String(), code
}

// Every other command is ctxls-core's, with its streams and exit code.
func TestRunsCore(t *testing.T) {
	bin := thin(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "auth.go"), []byte("package auth\n\n// Login checks a password.\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	off := []string{"CTXLS_HOOK_DAEMON=0"}
	if out, _, code := run(t, bin, off, "", "--version"); code != 0 || !strings.HasPrefix(out, "ctxls ") {
		t.Errorf("--version: %q, exit %d", out, code)
	}
	if _, errs, code := run(t, bin, off, "", "query", "--root", ws, " "); code != 2 || !strings.Contains(errs, "empty query") {
		t.Errorf("empty query: exit %d, stderr %q; want 2, empty query", code, errs)
	}
	if _, errs, code := run(t, bin, off, "", "query", "--root", ws, "Login"); code != 1 || !strings.Contains(errs, "ctxls index") {
		t.Errorf("query before an index: exit %d, stderr %q; want 1 and what to run", code, errs)
	}
	if _, errs, code := run(t, bin, off, "", "index", "--root", ws); code != 0 {
		t.Fatalf("index: exit %d, stderr %q", code, errs)
	}
	// Text on stdin reaches ctxls-core.
	if out, errs, code := run(t, bin, off, "how does Login check a password", "query", "--root", ws, "--json", "-"); code != 0 || !strings.Contains(out, `"auth.go"`) {
		t.Errorf("query from stdin: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// Without ctxls-core the thin client says what is missing; a hook still
// exits 0.
func TestWithoutCore(t *testing.T) {
	src := thin(t)
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ctxls")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + t.TempDir()}
	if _, errs, code := run(t, bin, env, "", "index"); code != 1 || !strings.Contains(errs, coreName) {
		t.Errorf("index: exit %d, stderr %q; want 1 and %s named", code, errs, coreName)
	}
	if out, _, code := run(t, bin, env, `{"cwd": "/"}`, "hook", "user-prompt-submit"); code != 0 || out != "" {
		t.Errorf("hook: exit %d, stdout %q; want 0 and nothing", code, out)
	}
}
