package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap/zaptest"

	"github.com/ctxls/ctxls/internal/wstest"
)

var workspaceFiles = map[string]string{
	"auth/service.go": `package auth

// AuthService checks credentials and issues session tokens.
type AuthService struct{ users map[string]string }

// Login checks a password and returns a session token.
func (a *AuthService) Login(user, password string) (string, error) {
	if a.users[user] != password {
		return "", ErrDenied
	}
	return issueToken(user), nil
}

func issueToken(user string) string { return "t-" + user }
`,
	"auth/errors.go": `package auth

import "errors"

// ErrDenied is returned for a wrong password.
var ErrDenied = errors.New("denied")
`,
	"web/handler.go": `package web

import "example.com/app/auth"

// HandleLogin serves the login form.
func HandleLogin(svc *auth.AuthService, user, pw string) string {
	tok, err := svc.Login(user, pw)
	if err != nil {
		return "no"
	}
	return tok
}
`,
	"ui/app.ts": `export class Panel {
  render(): string { return "x"; }
}
export function mount(p: Panel) { return p.render(); }
`,
}

func writeWorkspace(t *testing.T) string {
	t.Helper()
	return wstest.New(t, workspaceFiles)
}

// client is an in-process LSP client over pipes.
type client struct {
	t      *testing.T
	srv    *Server
	conn   jsonrpc2.Conn
	out    *io.PipeWriter // client → server
	status chan map[string]any
	code   chan int
}

type pipeRWC struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeRWC) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

func startServer(t *testing.T, opts Options) *client {
	t.Helper()
	if opts.Log == nil {
		opts.Log = zaptest.NewLogger(t)
	}
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	srv := New(opts)
	c := &client{t: t, srv: srv, out: c2sW, status: make(chan map[string]any, 1024), code: make(chan int, 1)}
	go func() {
		c.code <- srv.Serve(context.Background(), c2sR, s2cW, pipeRWC{closers: []io.Closer{c2sR, s2cW}})
		s2cW.Close()
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{Reader: s2cR, Writer: c2sW, closers: []io.Closer{s2cR, c2sW}}))
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "ctxls/status" {
			var m map[string]any
			_ = json.Unmarshal(req.Params(), &m)
			select {
			case c.status <- m:
			default:
			}
		}
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() {
		c.conn.Close()
		select {
		case <-c.code:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after the client disconnected")
		}
	})
	return c
}

func (c *client) call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatal(err)
	}
}

// initialize runs initialize + initialized and waits for the index.
func (c *client) initialize(root string) map[string]any {
	c.t.Helper()
	var res map[string]any
	if err := c.call("initialize", map[string]any{"processId": nil, "rootUri": uri.File(root), "capabilities": map[string]any{}}, &res); err != nil {
		c.t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	c.waitStatus(func(m map[string]any) bool { return m["state"] == "ready" && m["entities"].(float64) > 0 })
	return res
}

func (c *client) waitStatus(ok func(map[string]any) bool) map[string]any {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-c.status:
			if ok(m) {
				return m
			}
		case <-deadline:
			c.t.Fatal("no matching ctxls/status notification")
		}
	}
}

func code(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestLifecycleErrors(t *testing.T) {
	root := writeWorkspace(t)
	c := startServer(t, Options{NoWatch: true})
	if err := c.call("textDocument/hover", map[string]any{}, nil); code(err) != codeServerNotInitialized {
		t.Errorf("hover before initialize: got %v, want ServerNotInitialized", err)
	}
	res := c.initialize(root)
	caps := res["capabilities"].(map[string]any)
	if caps["hoverProvider"] != true || caps["textDocumentSync"].(map[string]any)["change"].(float64) != 2 {
		t.Errorf("capabilities = %v", caps)
	}
	if res["serverInfo"].(map[string]any)["name"] != "ctxls" {
		t.Errorf("serverInfo = %v", res["serverInfo"])
	}
	if err := c.call("initialize", map[string]any{}, nil); code(err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: got %v, want InvalidRequest", err)
	}
	if err := c.call("textDocument/nonsense", map[string]any{}, nil); code(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: got %v, want MethodNotFound", err)
	}
	if err := c.call("textDocument/hover", "not an object", nil); code(err) != jsonrpc2.InvalidParams {
		t.Errorf("bad params: got %v, want InvalidParams", err)
	}
	c.notify("$/unknownNotification", map[string]any{})
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.call("textDocument/hover", map[string]any{}, nil); code(err) != jsonrpc2.InvalidRequest {
		t.Errorf("hover after shutdown: got %v, want InvalidRequest", err)
	}
	c.notify("exit", nil)
	select {
	case status := <-c.code:
		if status != 0 {
			t.Errorf("exit after shutdown: status %d, want 0", status)
		}
		c.code <- status
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := startServer(t, Options{NoWatch: true})
	c.notify("exit", nil)
	select {
	case status := <-c.code:
		if status != 1 {
			t.Errorf("exit without shutdown: status %d, want 1", status)
		}
		c.code <- status
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit")
	}
}

func open(t *testing.T, c *client, root, rel string) protocol.DocumentURI {
	t.Helper()
	u := uri.File(filepath.Join(root, rel))
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": string(data)}})
	return u
}

func hoverText(t *testing.T, c *client, u protocol.DocumentURI, line, char int) string {
	t.Helper()
	var h *protocol.Hover
	if err := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": char}}, &h); err != nil {
		t.Fatal(err)
	}
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

type symbol struct {
	Name     string   `json:"name"`
	Kind     int      `json:"kind"`
	Children []symbol `json:"children"`
}

func names(syms []symbol) []string {
	var out []string
	for _, s := range syms {
		out = append(out, s.Name)
		for _, ch := range names(s.Children) {
			out = append(out, s.Name+"/"+ch)
		}
	}
	return out
}

func TestDocumentsHoverSymbolsAndAutoContext(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero, BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	u := open(t, c, root, "auth/service.go")

	// Hover on the declaration of Login (line 6, "func (a *AuthService) Login").
	h := hoverText(t, c, u, 6, 24)
	for _, want := range []string{"func (a *AuthService) Login(user, password string) (string, error)", "checks a password", "auth/service.go:7", "Used by", "HandleLogin", "issueToken"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover on Login lacks %q:\n%s", want, h)
		}
	}
	// Hover on a use resolves through the index to the definition in
	// another file.
	if h := hoverText(t, c, u, 8, 15); !strings.Contains(h, "wrong password") || !strings.Contains(h, "auth/errors.go") {
		t.Errorf("hover on ErrDenied:\n%s", h)
	}
	if h := hoverText(t, c, u, 5, 0); h != "" {
		t.Errorf("hover on a blank line = %q, want nothing", h)
	}

	var syms []symbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(names(syms), " ")
	if !strings.Contains(got, "AuthService/Login") || !strings.Contains(got, "issueToken") {
		t.Errorf("documentSymbol = %s", got)
	}
	// A file that is not open, in another language.
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri.File(filepath.Join(root, "ui/app.ts"))}}, &syms); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(syms), " "); !strings.Contains(got, "Panel/render") || !strings.Contains(got, "mount") {
		t.Errorf("documentSymbol of app.ts = %s", got)
	}

	var ws []struct {
		Name     string            `json:"name"`
		Location protocol.Location `json:"location"`
	}
	if err := c.call("workspace/symbol", map[string]any{"query": "login"}, &ws); err != nil {
		t.Fatal(err)
	}
	if len(ws) < 2 || ws[0].Name != "Login" {
		t.Errorf("workspace/symbol login = %+v", ws)
	}

	// An incremental edit: add a function after issueToken (line 14).
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 14, "character": 0}, "end": map[string]any{"line": 14, "character": 0}}, "text": "\n// RevokeToken ends a session.\nfunc RevokeToken(tok string) bool { return tok != \"\" }\n"}},
	})
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(syms), " "); !strings.Contains(got, "RevokeToken") {
		t.Errorf("documentSymbol after the edit = %s", got)
	}
	md := waitFile(t, filepath.Join(root, ".ctxls", "auto-context.md"), "RevokeToken")
	for _, want := range []string{"active file auth/service.go", "edited RevokeToken in auth/service.go", "## Editing", "func RevokeToken(tok string) bool"} {
		if !strings.Contains(md, want) {
			t.Errorf("auto-context.md lacks %q:\n%s", want, md)
		}
	}
	var snap map[string]any
	if err := c.call("ctxls/context", map[string]any{}, &snap); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap["markdown"].(string), "RevokeToken") || snap["entities"].(float64) == 0 || snap["bytes"].(float64) == 0 {
		t.Errorf("ctxls/context = %v", snap)
	}
	// The buffer reaches the index: workspace/symbol finds the new function.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := c.call("workspace/symbol", map[string]any{"query": "RevokeToken"}, &ws); err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(ws) != 1 {
		t.Errorf("RevokeToken never reached the index: %+v", ws)
	}

	// Activity from the extension: a hover elsewhere, and a message.
	c.notify("ctxls/activity", map[string]any{"type": "file_open", "filePath": filepath.Join(root, "web/handler.go"), "timestamp": time.Now().Format(time.RFC3339)})
	waitFile(t, filepath.Join(root, ".ctxls", "auto-context.md"), "active file web/handler.go")
	c.notify("ctxls/message", map[string]any{"text": "why does issueToken prefix t-?"})
	waitFile(t, filepath.Join(root, ".ctxls", "auto-context.md"), "asked: why does issueToken")

	var q map[string]any
	if err := c.call("workspace/executeCommand", map[string]any{"command": "ctxls.query", "arguments": []any{"login token"}}, &q); err != nil {
		t.Fatal(err)
	}
	if res := q["results"].([]any); len(res) == 0 {
		t.Errorf("ctxls.query found nothing: %v", q)
	}
	var sums []map[string]any
	if err := c.call("workspace/executeCommand", map[string]any{"command": "ctxls.reindex", "arguments": []any{}}, &sums); err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0]["files"].(float64) < 4 {
		t.Errorf("ctxls.reindex = %v", sums)
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "ctxls.nope"}, nil); code(err) != jsonrpc2.InvalidParams {
		t.Errorf("unknown command: %v", err)
	}
	if err := c.call("workspace/executeCommand", map[string]any{"command": "ctxls.showContext"}, &snap); err != nil || snap["markdown"] == nil {
		t.Errorf("ctxls.showContext = %v, %v", snap, err)
	}
}

func waitFile(t *testing.T, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), want) {
			return string(data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never contained %q; last content:\n%s", path, want, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWatcherSeesEditsOutsideTheEditor(t *testing.T) {
	root := writeWorkspace(t)
	c := startServer(t, Options{BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	// The assistant writes a new file and changes another.
	if err := os.MkdirAll(filepath.Join(root, "billing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "billing", "invoice.go"), []byte("package billing\n\nfunc ComputeInvoiceTotal() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "auth", "errors.go"), []byte("package auth\n\nvar ErrLockedOut = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ComputeInvoiceTotal", "ErrLockedOut"} {
		deadline := time.Now().Add(10 * time.Second)
		var ws []map[string]any
		for len(ws) == 0 && time.Now().Before(deadline) {
			if err := c.call("workspace/symbol", map[string]any{"query": name}, &ws); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(ws) == 0 {
			t.Errorf("%s, written outside the editor, never reached the index", name)
		}
	}
	var ws []map[string]any
	if err := c.call("workspace/symbol", map[string]any{"query": "ErrDenied"}, &ws); err != nil || len(ws) != 0 {
		t.Errorf("ErrDenied was overwritten but is still indexed: %v %v", ws, err)
	}
}

func TestMultiRootOneIndexPerFolder(t *testing.T) {
	a, b := writeWorkspace(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(b, "tool.py"), []byte("def only_in_b():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero})
	var res map[string]any
	if err := c.call("initialize", map[string]any{"workspaceFolders": []any{
		map[string]any{"uri": uri.File(a), "name": "a"}, map[string]any{"uri": uri.File(b), "name": "b"},
	}, "capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	seen := map[string]bool{}
	for len(seen) < 2 {
		m := c.waitStatus(func(m map[string]any) bool { return m["state"] == "ready" })
		seen[m["root"].(string)] = true
	}
	for _, r := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(r, ".ctxls", "index.db")); err != nil {
			t.Errorf("no index in %s: %v", r, err)
		}
	}
	var ws []struct {
		Location protocol.Location `json:"location"`
	}
	if err := c.call("workspace/symbol", map[string]any{"query": "only_in_b"}, &ws); err != nil || len(ws) != 1 || !strings.HasPrefix(string(ws[0].Location.URI), string(uri.File(b))) {
		t.Errorf("workspace/symbol across folders = %+v, %v", ws, err)
	}
	u := uri.File(filepath.Join(b, "tool.py"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "python", "version": 1, "text": "def only_in_b():\n    return 1\n"}})
	waitFile(t, filepath.Join(b, ".ctxls", "auto-context.md"), "active file tool.py")
	if _, err := os.Stat(filepath.Join(a, ".ctxls", "auto-context.md")); err == nil {
		t.Error("activity in folder b wrote folder a's auto-context")
	}
}

// TestRapidChanges sends 1,000 changes as fast as the pipe takes them, with
// the default debounce, and checks the overlay is consistent afterwards.
func TestRapidChanges(t *testing.T) {
	root := writeWorkspace(t)
	c := startServer(t, Options{NoWatch: true})
	c.initialize(root)
	u := open(t, c, root, "auth/service.go")
	for i := 0; i < 1000; i++ {
		// Type one character at a time on the last line.
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": 2 + i},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 14, "character": i}, "end": map[string]any{"line": 14, "character": i}}, "text": "/"}},
		})
	}
	var syms []symbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(syms), " "); !strings.Contains(got, "issueToken") {
		t.Errorf("after 1,000 changes documentSymbol = %s", got)
	}
	if h := hoverText(t, c, u, 13, 7); !strings.Contains(h, "issueToken") {
		t.Errorf("hover after 1,000 changes: %q", h)
	}
}

// The status bar's entity count follows the index as soon as an unsaved
// buffer reaches it, without waiting for an auto-context write (here held
// off by an hour's debounce).
func TestStatusCountsEntitiesAfterAnEdit(t *testing.T) {
	root := writeWorkspace(t)
	hour := time.Hour
	c := startServer(t, Options{NoWatch: true, Debounce: &hour, BufferFlush: 50 * time.Millisecond})
	if err := c.call("initialize", map[string]any{"processId": nil, "rootUri": uri.File(root), "capabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	ready := c.waitStatus(func(m map[string]any) bool { return m["state"] == "ready" && m["entities"].(float64) > 0 })
	n := ready["entities"].(float64)
	u := open(t, c, root, "auth/service.go")
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 14, "character": 0}, "end": map[string]any{"line": 14, "character": 0}}, "text": "\nfunc RevokeToken(tok string) bool { return tok != \"\" }\n"}},
	})
	c.waitStatus(func(m map[string]any) bool { return m["state"] == "ready" && m["entities"].(float64) > n })
}
