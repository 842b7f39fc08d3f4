package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNeovim drives the built binary from a real Neovim (headless): open,
// hover, documentSymbol, an edit, and the auto-context file reflecting it.
func TestNeovim(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set: run through make test")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not installed (.ci/run installs Debian's neovim)")
	}
	root := writeWorkspace(t)
	out := filepath.Join(t.TempDir(), "result.json")
	script, err := filepath.Abs("testdata/nvim.lua")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "WS="+root, "CTXLS_BIN="+bin, "OUT="+out, "HOME="+t.TempDir())
	cmd.Dir = root
	start := time.Now()
	output, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(root, "serve.log"))
		t.Fatalf("nvim: %v\n%s\nserver log:\n%s", err, output, tail(log))
	}
	t.Logf("neovim session took %s", time.Since(start))
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no result from nvim: %v\n%s", err, output)
	}
	var r struct {
		Initialized, Ready, Edited, Stopped bool
		Hover                               any
		Symbols, SymbolsAfter               []string
		AutoContext                         string `json:"autocontext"`
		Statuses                            []string
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if !r.Initialized || !r.Ready {
		t.Fatalf("client not initialized/ready: %s", data)
	}
	hover, _ := r.Hover.(string)
	checkHover(t, hover)
	if got := strings.Join(r.Symbols, " "); !strings.Contains(got, "AuthService/Login") || !strings.Contains(got, "issueToken") {
		t.Errorf("documentSymbol = %v", r.Symbols)
	}
	checkEdit(t, root, r.Edited, r.AutoContext)
	if !strings.Contains(strings.Join(r.SymbolsAfter, " "), "RevokeToken") {
		t.Errorf("documentSymbol after the edit = %v", r.SymbolsAfter)
	}
	if !r.Stopped {
		t.Error("the server did not stop when Neovim stopped the client")
	}
}

// checkHover asserts what an editor's hover on Login in auth/service.go
// showed: the signature and its caller in another package.
func checkHover(t *testing.T, hover string) {
	t.Helper()
	for _, want := range []string{"func (a *AuthService) Login", "Used by", "HandleLogin"} {
		if !strings.Contains(hover, want) {
			t.Errorf("hover lacks %q: %q", want, hover)
		}
	}
}

// checkEdit asserts that auto-context.md was rewritten for the editor's
// edit adding RevokeToken to auth/service.go.
func checkEdit(t *testing.T, root string, edited bool, autoContext string) {
	t.Helper()
	if !edited {
		log, _ := os.ReadFile(filepath.Join(root, "serve.log"))
		t.Fatalf("auto-context.md never reflected the edit:\n%s\nserver log:\n%s", autoContext, tail(log))
	}
	for _, want := range []string{"edited RevokeToken in auth/service.go", "## Editing", "func RevokeToken(tok string) bool"} {
		if !strings.Contains(autoContext, want) {
			t.Errorf("auto-context.md lacks %q:\n%s", want, autoContext)
		}
	}
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
