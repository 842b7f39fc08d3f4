package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBinaryStdio drives the built binary's `ctxls mcp` over stdio with the
// SDK's client, at the protocol revision Claude Code speaks (2025-06-18:
// resources/subscribe) and at the SDK's latest.
func TestBinaryStdio(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	for _, protocol := range []string{"2025-06-18", ""} {
		t.Run("protocol "+protocol, func(t *testing.T) { testBinary(t, bin, protocol) })
	}
}

func testBinary(t *testing.T, bin, protocol string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	root := testWorkspace(t, fixture)
	c, cmd, stderr := startBinary(ctx, t, bin, root, protocol)
	cs := c.ClientSession
	if got := cs.InitializeResult().ServerInfo.Name; got != "ctxls" {
		t.Errorf("server name %q", got)
	}
	if protocol != "" {
		if got := cs.InitializeResult().ProtocolVersion; got != protocol {
			t.Errorf("negotiated protocol %q, want %q", got, protocol)
		}
	}

	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) != 2 {
		t.Fatalf("list resources: %v %+v", err, list)
	}
	if got := readText(t, c, "ctxls://context/file/auth/auth.go"); !strings.Contains(got, "function `auth.Login`") || !strings.Contains(got, "main.main") {
		t.Errorf("file template:\n%s", got)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ctxls://context/file/missing.go"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("missing file resource: %v", err)
	}

	// Subscribe, then the language server replaces the file.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: AutoURI}); err != nil {
		t.Fatal(err)
	}
	if protocol != "" { // resources/subscribe reports the refusal
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "ctxls://context/unknown"}); err == nil {
			t.Errorf("subscribe to an unknown resource succeeded")
		}
	}
	want := "<auto-context>\n## Symbol: Login\n\nedited just now\n</auto-context>\n"
	if err := workspace.WriteFileAtomic(filepath.Join(root, ".ctxls", AutoContextFile), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	waitUpdated(t, c, AutoURI)
	if got := readText(t, c, AutoURI); got != want {
		t.Errorf("auto-context after the update: %q", got)
	}

	var q ContextQueryOutput
	if text, isErr := call(t, c, "context_query", map[string]any{"text": "how is the password checked in Login", "active_files": []string{filepath.Join(root, "auth/auth.go")}}, &q); isErr || q.Abstained || len(q.Results) == 0 {
		t.Errorf("context_query: %v %+v %s", isErr, q, text)
	}
	var l SymbolLookupOutput
	if _, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "auth.Login"}, &l); isErr || len(l.Definitions) != 1 || len(l.Callers) != 2 {
		t.Errorf("symbol_lookup: %v %+v", isErr, l)
	}
	var r RelatedOutput
	if _, isErr := call(t, c, "related", map[string]any{"symbol": "Login"}, &r); isErr || !hasNeighbour(r.Uses, "calls", "auth.check") || !hasNeighbour(r.UsedBy, "called by", "main.main") {
		t.Errorf("related: %v %+v", isErr, r)
	}
	if text, isErr := call(t, c, "symbol_lookup", map[string]any{"name": 42}, nil); !isErr || !strings.Contains(text, "name") {
		t.Errorf("invalid arguments: %v %q", isErr, text)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("ctxls mcp did not exit cleanly after stdin closed: %v (stderr %q)", cmd.ProcessState, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("ctxls mcp wrote to stderr: %q", stderr.String())
	}
	if log, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log")); !bytes.Contains(log, []byte("mcp: serving")) {
		t.Errorf("log file lacks the start line: %q", log)
	}
}

// startBinary starts `bin mcp --root root` with the environment's extra
// variables and connects the SDK's client to it over stdio.
func startBinary(ctx context.Context, t *testing.T, bin, root, protocol string, env ...string) (*client, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--root", root)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := &client{updated: make(chan string, 16), listChanged: make(chan struct{}, 16)}
	cl := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { c.updated <- r.Params.URI },
	})
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, stderr.String())
	}
	c.ClientSession = cs
	return c, cmd, &stderr
}

// TestBinaryFileRulesAndMemories reads the file template through the built
// binary: the Go rule and the gotcha for a Go file, not the Go rule for a
// Markdown file. $HOME is a temporary directory, as the user's rules and
// global memories live under it.
func TestBinaryFileRulesAndMemories(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	root, home := rulesWorkspace(t)
	c, _, stderr := startBinary(ctx, t, bin, root, "", "HOME="+home)
	defer c.Close()
	goFile := readText(t, c, "ctxls://context/file/auth/auth.go")
	for _, want := range []string{"function `auth.Login`", ".cursor/rules/go-style.mdc (cursor rule, `**/*.go` matches)",
		"Wrap errors with fmt.Errorf and %w.", "- gotcha `gotcha-check-must-compare-in-constant-time` (project, severity high"} {
		if !strings.Contains(goFile, want) {
			t.Errorf("Go file resource lacks %q:\n%s", want, goFile)
		}
	}
	md := readText(t, c, "ctxls://context/file/docs/guide.md")
	if strings.Contains(md, "go-style.mdc") || !strings.Contains(md, "always.mdc") {
		t.Errorf("Markdown file resource: the Go rule listed or the always rule missing:\n%s", md)
	}
	// stderr is written until the process has exited: read it after.
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if stderr.Len() > 0 {
		t.Errorf("ctxls mcp wrote to stderr: %q", stderr.String())
	}
}

// TestBinaryBadLines sends the built binary's `ctxls mcp`, over real stdio
// pipes, every bad line of issue 23's reproduction (badLines), each with a
// ping after it: every answer must be JSON with the right code, and the
// session must outlive them all and answer a valid request at the end.
func TestBinaryBadLines(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	root := testWorkspace(t, fixture)
	cmd := exec.Command(bin, "mcp", "--root", root)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	c := newRawClient(t, stdin, stdout)
	c.initialize("2025-06-18")
	checkBadLines(t, c, badLines)

	c.send(`{"jsonrpc":"2.0","id":"read","method":"resources/read","params":{"uri":"ctxls://context/file/auth/auth.go"}}`)
	if _, r := c.until(`"read"`); r.Error != nil || !bytes.Contains(r.Result, []byte("auth.Login")) {
		t.Errorf("valid read after the bad lines: %s", r.raw)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ctxls mcp after stdin closed: %v (stderr %q)", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("ctxls mcp did not exit after stdin closed")
	}
	if stderr.Len() > 0 {
		t.Errorf("ctxls mcp wrote to stderr: %q", stderr.String())
	}
}
