package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestEmacsEglot drives the built binary from a real Emacs (batch) through
// eglot, its built-in LSP client since Emacs 29 (Debian's Emacs 28 gets it
// from elpa-eglot): open, hover, an edit, and the auto-context file
// reflecting it.
func TestEmacsEglot(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set: run through make test")
	}
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		t.Skip("emacs not installed (.ci/run installs Debian's emacs-nox and elpa-eglot)")
	}
	script, err := filepath.Abs("testdata/eglot.el")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	probe := exec.Command(emacs, "--batch", "-Q", "--eval",
		`(progn (require 'package) (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa") (package-initialize) (princ (if (require 'eglot nil t) "eglot" "none")))`)
	probe.Env = append(os.Environ(), "HOME="+home)
	if out, err := probe.Output(); err != nil || string(out) != "eglot" {
		t.Skipf("this Emacs has no eglot (built in from Emacs 29; .ci/run installs Debian's elpa-eglot for 28): %v %q", err, out)
	}

	root := writeWorkspace(t)
	out := filepath.Join(t.TempDir(), "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q", "-l", script)
	cmd.Env = append(os.Environ(), "WS="+root, "CTXLS_BIN="+bin, "OUT="+out, "HOME="+home)
	cmd.Dir = root
	start := time.Now()
	output, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(root, "serve.log"))
		result, _ := os.ReadFile(out)
		t.Fatalf("emacs: %v\n%s\nresult: %s\nserver log:\n%s", err, output, result, tail(log))
	}
	t.Logf("emacs session took %s", time.Since(start))
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no result from emacs: %v\n%s", err, output)
	}
	var r struct {
		Eglot              string
		Initialized, Ready bool
		Edited, Stopped    bool
		Hover              string
		AutoContext        string `json:"autocontext"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	t.Logf("eglot %s", r.Eglot)
	if !r.Initialized || !r.Ready {
		t.Fatalf("eglot not connected or the index never ready: %s", data)
	}
	checkHover(t, r.Hover)
	checkEdit(t, root, r.Edited, r.AutoContext)
	if !r.Stopped {
		t.Error("the server did not stop when eglot shut it down")
	}
}
