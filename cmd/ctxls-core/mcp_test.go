package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/store"
)

// TestInitMCP registers the server with init --mcp, starts it the way
// Claude Code does (the .mcp.json entry's command and args, in the project
// directory) and removes it with init --uninstall.
func TestInitMCP(t *testing.T) {
	root := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, root) }) // doctor's canaries start it; it writes under root until stopped
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() { Greet() }\n"), 0o644)
	binOnPath(t)
	if out, errOut, code := ctxls(t, root, "init", "--mcp", "--index"); code != 0 || !strings.Contains(out, "registered the ctxls MCP server") {
		t.Fatalf("init --mcp: %d %q %q", code, out, errOut)
	}
	var cfg struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if err := json.Unmarshal(data, &cfg); err != nil || cfg.Servers["ctxls"].Command != "ctxls" {
		t.Fatalf(".mcp.json: %s %v", data, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	entry := cfg.Servers["ctxls"]
	cmd := exec.Command(entry.Command, entry.Args...)
	cmd.Dir = root
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "init-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "symbol_lookup", Arguments: map[string]any{"name": "Greet"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "main.go:4") {
		t.Errorf("symbol_lookup through the registered server: %v %+v", err, res)
	}
	cs.Close()
	if out, _, _ := ctxls(t, root, "doctor"); !strings.Contains(out, "ok    mcp server in "+filepath.Join(root, ".mcp.json")+": 6 tools") {
		t.Errorf("doctor does not check the MCP server:\n%s", out)
	}

	if out, _, code := ctxls(t, root, "init", "--uninstall"); code != 0 || !strings.Contains(out, "removed the ctxls MCP server") {
		t.Errorf("init --uninstall: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf(".mcp.json left after uninstall: %v", err)
	}
	if _, _, code := ctxls(t, root, "init", "--mcp", "--global"); code != 2 {
		t.Errorf("init --mcp --global: exit %d, want 2", code)
	}
	if _, _, code := ctxls(t, root, "mcp", "extra"); code != 2 {
		t.Errorf("mcp with an argument: exit %d, want 2", code)
	}
	if _, _, code := ctxls(t, root, "mcp", "--root", filepath.Join(root, "missing")); code != 2 {
		t.Errorf("mcp with a missing root: exit %d, want 2", code)
	}
}

// TestMCPOnAnOlderIndex: the server answers from an index an older ctxls
// wrote once the rebuild it starts is done, saying so until then.
func TestMCPOnAnOlderIndex(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n"), 0o644)
	if _, errOut, code := ctxls(t, root, "index"); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.Command(os.Getenv("CTXLS_BIN"), "mcp", "--root", root)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "older-index-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lookup := func() (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "symbol_lookup", Arguments: map[string]any{"name": "Greet"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	// Until the rebuild is done the answer says so, or, once the rebuild
	// has migrated the file and is filling it, finds nothing yet; it never
	// leaves the rebuild to the user.
	for {
		text, isErr := lookup()
		if !isErr && strings.Contains(text, "main.go:4") {
			return
		}
		if strings.Contains(text, "run 'ctxls index'") || (isErr && !strings.Contains(text, "being rebuilt in the background")) {
			t.Fatalf("answer on an older index: %v %q", isErr, text)
		}
		if ctx.Err() != nil {
			t.Fatalf("no answer after the rebuild: %v %q", isErr, text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
