package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wstest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/store"
)

// fixture is a small Go module: auth defines Login (called from main and
// from a method of Service), and check, which Login calls.
var fixture = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"auth/auth.go": `package auth

// Login checks a user's password against the stored hash.
func Login(user, pass string) bool {
	return check(pass)
}

func check(p string) bool { return p != "" }

// Service authenticates requests.
type Service struct{ name string }

// Authenticate logs the user in.
func (s *Service) Authenticate(user string) bool {
	return Login(user, s.name)
}
`,
	"cmd/app/main.go": `package main

import "example.com/app/auth"

func main() {
	auth.Login("admin", "secret")
}
`,
}

// testWorkspace writes files under a new root and indexes it.
func testWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	wstest.Write(t, root, files)
	wstest.Index(t, root)
	return root
}

// client is a connected SDK client and what the server told it.
type client struct {
	*mcp.ClientSession
	updated     chan string
	listChanged chan struct{}
}

// connect serves root in-process and connects the SDK's client over an
// in-memory transport.
func connect(t *testing.T, opts Options) *client {
	t.Helper()
	return connectVersion(t, opts, "")
}

// connectVersion connects with a given protocol version ("" for the
// latest the SDK speaks).
func connectVersion(t *testing.T, opts Options, protocol string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if opts.Version == "" {
		opts.Version = "test"
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	c := &client{updated: make(chan string, 16), listChanged: make(chan struct{}, 16)}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			c.updated <- r.Params.URI
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			c.listChanged <- struct{}{}
		},
	})
	cs, err := cl.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return c
}

func readText(t *testing.T, c *client, uri string) string {
	t.Helper()
	res, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text
}

// call calls a tool and decodes its structured output into out; it returns
// the text content and whether the result is a tool error.
func call(t *testing.T, c *client, tool string, args any, out any) (string, bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var text string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError && out != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, data, err)
		}
	}
	return text, res.IsError
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// waitUpdated waits for an update of uri, skipping others.
func waitUpdated(t *testing.T, c *client, uri string) {
	t.Helper()
	// Generous: under a loaded machine (go test runs packages side by
	// side) the watcher goroutine can be held up behind a slow look at the
	// store; a lost notification still fails, a late one does not.
	deadline := time.After(15 * time.Second)
	for {
		select {
		case got := <-c.updated:
			if got == uri {
				return
			}
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s", uri)
		}
	}
}

func TestInitialize(t *testing.T) {
	if len(instructions) > 2048 || len(instructions) < 200 {
		t.Fatalf("instructions are %d bytes, want a useful text of at most 2 KB", len(instructions))
	}
	c := connect(t, Options{Root: testWorkspace(t, fixture)})
	res := c.InitializeResult()
	if res.ServerInfo.Name != "ctxls" || res.ServerInfo.Version != "test" {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	if res.Instructions != instructions {
		t.Errorf("instructions not sent")
	}
	caps := res.Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
		t.Errorf("resources capability %+v", caps.Resources)
	}
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability %+v (a fixed list)", caps.Tools)
	}
	// Logs go to a file, and there are no prompts: neither is advertised.
	var wire map[string]any
	data, _ := json.Marshal(caps)
	json.Unmarshal(data, &wire)
	if _, ok := wire["logging"]; ok || wire["prompts"] != nil {
		t.Errorf("unexpected capabilities: %s", data)
	}
	tools, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil || tl.Description == "" {
			t.Errorf("tool %s lacks a schema or description", tl.Name)
		}
	}
	if strings.Join(names, ",") != "context_query,memory_link,memory_search,memory_write,related,symbol_lookup" {
		t.Errorf("tools %v", names)
	}
}

func TestResources(t *testing.T) {
	ctx := context.Background()
	root := testWorkspace(t, fixture)
	c := connect(t, Options{Root: root})

	list, err := c.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range list.Resources {
		uris[r.URI] = true
	}
	if !uris[AutoURI] || !uris[SessionURI] || len(list.Resources) != 2 {
		t.Errorf("resources %v (no activity yet: no working-set files)", uris)
	}
	tpls, err := c.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != FileTemplate {
		t.Errorf("templates %+v", tpls.ResourceTemplates)
	}

	if got := readText(t, c, AutoURI); !strings.Contains(got, "No auto-context yet") || !strings.Contains(got, "no editor or assistant activity") {
		t.Errorf("auto-context without file or activity: %q", got)
	}
	if got := readText(t, c, SessionURI); !strings.Contains(got, "No editor or assistant activity") {
		t.Errorf("session without activity: %q", got)
	}

	// The language server's file is served as it is.
	want := "<auto-context>\n## Related Code\n\nfrom the language server\n</auto-context>\n"
	if err := workspace.WriteFileAtomic(filepath.Join(root, ".ctxls", AutoContextFile), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readText(t, c, AutoURI); got != want {
		t.Errorf("auto-context = %q, want the file's content", got)
	}

	// The file template, with raw and percent-encoded slashes.
	for _, uri := range []string{"ctxls://context/file/auth/auth.go", "ctxls://context/file/auth%2Fauth.go"} {
		got := readText(t, c, uri)
		for _, w := range []string{"# auth/auth.go", "function `auth.Login`", "`func Login(user, pass string) bool`",
			"method `auth.Service.Authenticate`", "## Used by", "main.main", "cmd/app/main.go"} {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", uri, w, got)
			}
		}
	}
	if got := readText(t, c, "ctxls://context/file/cmd/app/main.go"); !strings.Contains(got, "## Imports") || !strings.Contains(got, "example.com/app/auth") {
		t.Errorf("main.go resource lacks its import:\n%s", got)
	}

	// Unknown resources: resource-not-found (-32602 since the 2025-11-25
	// revision of the spec).
	for _, uri := range []string{"ctxls://context/file/nope.go", "ctxls://context/file/../../etc/passwd", "ctxls://context/nothing", "file:///etc/passwd"} {
		_, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "not found") {
			t.Errorf("read %s: %v, want resource not found", uri, err)
		}
	}
}

func TestFileSections(t *testing.T) {
	c := connect(t, Options{Root: testWorkspace(t, fixture), FileSections: []FileSection{
		func(_ context.Context, _, path string) (string, error) {
			if path != "auth/auth.go" {
				return "", nil
			}
			return "## Rules\n\n- hash passwords with bcrypt\n", nil
		},
	}})
	if got := readText(t, c, "ctxls://context/file/auth/auth.go"); !strings.HasSuffix(got, "## Rules\n\n- hash passwords with bcrypt\n") {
		t.Errorf("file section not appended:\n%s", got)
	}
	if got := readText(t, c, "ctxls://context/file/cmd/app/main.go"); strings.Contains(got, "Rules") {
		t.Errorf("file section added where it has nothing")
	}
}

func TestSubscribeAutoContext(t *testing.T) {
	// 2025-06-18 subscribes with resources/subscribe; 2026-07-28 with a
	// subscriptions/listen stream.
	for _, protocol := range []string{"2025-06-18", ""} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			ctx := context.Background()
			root := testWorkspace(t, fixture)
			c := connectVersion(t, Options{Root: root}, protocol)
			if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: AutoURI}); err != nil {
				t.Fatal(err)
			}
			for i, body := range []string{"first version", "second version"} {
				want := fmt.Sprintf("<auto-context>\n%s\n</auto-context>\n", body)
				if err := workspace.WriteFileAtomic(filepath.Join(root, ".ctxls", AutoContextFile), []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				waitUpdated(t, c, AutoURI)
				if got := readText(t, c, AutoURI); got != want {
					t.Errorf("update %d: read %q, want %q", i, got, want)
				}
			}
			if protocol != "" {
				// Subscriptions are for the resources that change on
				// their own. resources/subscribe reports the refusal; the
				// SDK's client does not surface it from a listen stream.
				if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: "ctxls://context/nothing"}); err == nil {
					t.Errorf("subscribe to an unknown resource succeeded")
				}
				if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: "ctxls://context/file/auth/auth.go"}); err == nil {
					t.Errorf("subscribe to a file resource succeeded")
				}
			}
		})
	}
}

func TestActivityListsWorkingSet(t *testing.T) {
	ctx := context.Background()
	root := testWorkspace(t, fixture)
	// What the language server or the hook daemon records in the shared
	// store, through a store that stays open (opening and closing one
	// touches the index file, which the server also watches).
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := connect(t, Options{Root: root})
	if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: SessionURI}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * storeDelay) // events of the open are over
	err = st.RecordActivity(ctx,
		store.Activity{Session: "s1", Origin: "assistant", Type: "prompt", Text: "why does Login reject empty passwords"},
		store.Activity{Session: "s1", Origin: "editor", Type: "file_open", Path: "auth/auth.go"},
		store.Activity{Session: "s1", Origin: "editor", Type: "file_edit", Path: "auth/auth.go", Symbols: []string{"check"}, Line: 8},
	)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, c.listChanged, "notifications/resources/list_changed")
	waitUpdated(t, c, SessionURI)
	list, err := c.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range list.Resources {
		found = found || r.URI == "ctxls://context/file/auth/auth.go"
	}
	if !found {
		t.Errorf("working-set file not listed: %+v", list.Resources)
	}
	session := readText(t, c, SessionURI)
	for _, w := range []string{"- auth/auth.go: Login, check, Service", "editor file_edit auth/auth.go:8 (check)", "### session s1", "why does Login reject empty passwords"} {
		if !strings.Contains(session, w) {
			t.Errorf("session context lacks %q:\n%s", w, session)
		}
	}
	// Without the language server's file, the auto-context is computed
	// from the activity.
	auto := readText(t, c, AutoURI)
	if !strings.Contains(auto, "computed by ctxls mcp") || !strings.Contains(auto, "auth.Login") {
		t.Errorf("computed auto-context:\n%s", auto)
	}
}

func TestTools(t *testing.T) {
	c := connect(t, Options{Root: testWorkspace(t, fixture)})

	var q ContextQueryOutput
	text, isErr := call(t, c, "context_query", map[string]any{"text": "where does Login check the password", "max_tokens": 1500}, &q)
	if isErr || q.Abstained || len(q.Results) == 0 || q.Results[0].QName != "auth.Login" {
		t.Fatalf("context_query: error %v, %+v\n%s", isErr, q, text)
	}
	if text != q.Context || !strings.Contains(text, "<auto-context>") || q.Tokens == 0 || q.Tokens > 1500 {
		t.Errorf("context_query text/context/tokens: %d tokens\n%s", q.Tokens, text)
	}
	// An unrelated message abstains, as `ctxls context` does.
	if text, isErr := call(t, c, "context_query", map[string]any{"text": "thanks, that is all"}, &q); isErr || !q.Abstained || !strings.Contains(text, "No code") {
		t.Errorf("unrelated message: error %v abstained %v %q", isErr, q.Abstained, text)
	}

	var l SymbolLookupOutput
	text, isErr = call(t, c, "symbol_lookup", map[string]any{"name": "Login"}, &l)
	if isErr || len(l.Definitions) != 1 || l.Definitions[0].Path != "auth/auth.go" || l.Definitions[0].Line != 4 ||
		!strings.Contains(l.Definitions[0].Doc, "checks a user's password") {
		t.Fatalf("symbol_lookup definitions: %+v\n%s", l, text)
	}
	callers := map[string]bool{}
	for _, cl := range l.Callers {
		callers[cl.QName] = true
	}
	if !callers["main.main"] || !callers["auth.Service.Authenticate"] || l.CallersTotal != 2 || l.ReferencesTotal < 2 {
		t.Errorf("symbol_lookup callers: %+v", l)
	}
	if _, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Service.Authenticate"}, &l); isErr || len(l.Definitions) != 1 || l.Definitions[0].Kind != "method" {
		t.Errorf("qualified lookup: %+v", l)
	}
	if text, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Nowhere"}, &l); isErr || len(l.Definitions) != 0 || !strings.Contains(text, "No definition") {
		t.Errorf("unknown symbol: %v %q", isErr, text)
	}

	var r RelatedOutput
	text, isErr = call(t, c, "related", map[string]any{"file": "auth/auth.go"}, &r)
	if isErr || r.Target != "auth/auth.go" || !hasNeighbour(r.UsedBy, "called by", "main.main") {
		t.Errorf("related file: %+v\n%s", r, text)
	}
	if len(r.Files) != 1 || r.Files[0].Path != "cmd/app/main.go" || r.Files[0].UsedBy == 0 {
		t.Errorf("related file's files: %+v", r.Files)
	}
	text, isErr = call(t, c, "related", map[string]any{"symbol": "Service.Authenticate"}, &r)
	if isErr || !hasNeighbour(r.Uses, "calls", "auth.Login") || !hasNeighbour(r.UsedBy, "contained in", "auth.Service") {
		t.Errorf("related symbol: %+v\n%s", r, text)
	}
	// A unique suffix of a path names the file.
	if _, isErr := call(t, c, "related", map[string]any{"file": "main.go"}, &r); isErr || r.Target != "cmd/app/main.go" || !hasNeighbour(r.Uses, "calls", "auth.Login") {
		t.Errorf("related by suffix: %+v", r)
	}
}

func hasNeighbour(ns []Neighbour, relation, qname string) bool {
	for _, n := range ns {
		if n.Relation == relation && n.QName == qname {
			return true
		}
	}
	return false
}

func TestInvalidArguments(t *testing.T) {
	ctx := context.Background()
	c := connect(t, Options{Root: testWorkspace(t, fixture)})
	cases := []struct {
		tool string
		args any
		want string
	}{
		{"context_query", map[string]any{}, "text"},
		{"context_query", map[string]any{"text": 5}, "text"},
		{"context_query", map[string]any{"text": "   "}, "text is empty"},
		{"context_query", map[string]any{"text": "Login", "max_tokens": -3}, "max_tokens must be positive"},
		{"context_query", map[string]any{"text": "Login", "colour": "red"}, "colour"},
		{"symbol_lookup", map[string]any{"name": ""}, "name is empty"},
		{"symbol_lookup", map[string]any{"name": "Login", "limit": -1}, "limit must be positive"},
		{"related", map[string]any{}, "exactly one of file or symbol"},
		{"related", map[string]any{"file": "auth/auth.go", "symbol": "Login"}, "exactly one of file or symbol"},
		{"related", map[string]any{"file": "../outside.go"}, "outside the workspace"},
		{"related", map[string]any{"file": "missing.go"}, "no file"},
		{"related", map[string]any{"symbol": "Nowhere"}, "no definition"},
	}
	for _, tc := range cases {
		text, isErr := call(t, c, tc.tool, tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error %v %q, want a tool error mentioning %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
	_, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Errorf("unknown tool: %v, want a JSON-RPC error", err)
	}
}

func TestNoIndex(t *testing.T) {
	root := t.TempDir()
	c := connect(t, Options{Root: root})
	text, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Login"}, nil)
	if !isErr || !strings.Contains(text, "ctxls index") {
		t.Errorf("tool without an index: %v %q", isErr, text)
	}
	if got := readText(t, c, AutoURI); !strings.Contains(got, "No auto-context yet") || !strings.Contains(got, "ctxls index") {
		t.Errorf("auto without an index: %q", got)
	}
	// The index appears later: the server picks it up.
	ws := testWorkspace(t, fixture)
	if err := os.Rename(filepath.Join(ws, ".ctxls"), filepath.Join(root, ".ctxls")); err != nil {
		t.Fatal(err)
	}
	for rel, content := range fixture {
		os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644)
	}
	var l SymbolLookupOutput
	if _, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Login"}, &l); isErr || len(l.Definitions) != 1 {
		t.Errorf("after indexing: %v %+v", isErr, l)
	}
}

func TestOutputCap(t *testing.T) {
	// 300 callers of Login and a large file: every list outgrows a small cap.
	files := map[string]string{"go.mod": fixture["go.mod"], "auth/auth.go": fixture["auth/auth.go"]}
	var b strings.Builder
	b.WriteString("package auth\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "// Caller%03d logs someone in with a long and descriptive comment that takes room.\nfunc Caller%03d() bool { return Login(\"user\", \"pass\") }\n\n", i, i)
	}
	files["auth/callers.go"] = b.String()
	root := testWorkspace(t, files)

	const limit = 4000
	c := connect(t, Options{Root: root, MaxOutputBytes: limit})
	check := func(tool string, args map[string]any) {
		t.Helper()
		res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		js, _ := json.Marshal(res.StructuredContent)
		if len(text) > limit || len(js) > limit {
			t.Errorf("%s: text %d bytes, structured %d bytes, cap %d", tool, len(text), len(js), limit)
		}
		if !strings.Contains(string(js), `"truncated":true`) {
			t.Errorf("%s: not marked truncated", tool)
		}
	}
	check("symbol_lookup", map[string]any{"name": "Login", "limit": 100})
	check("related", map[string]any{"file": "auth/auth.go", "limit": 100})
	check("related", map[string]any{"symbol": "Login", "limit": 100})
	// Resources are cut at a line boundary too.
	if got := readText(t, c, "ctxls://context/file/auth/callers.go"); len(got) > limit || !strings.Contains(got, "(cut at 4000 of") {
		t.Errorf("file resource: %d bytes, cap %d:\n%s", len(got), limit, got[max(len(got)-200, 0):])
	}

	// The default cap holds for the largest context a client may ask for.
	d := connect(t, Options{Root: root})
	var q ContextQueryOutput
	text, isErr := call(t, d, "context_query", map[string]any{"text": "which callers log in with Login", "max_tokens": 1_000_000}, &q)
	js, _ := json.Marshal(q)
	if isErr || q.Abstained || len(text) > DefaultMaxOutputBytes || len(js) > DefaultMaxOutputBytes || q.Tokens > maxContextTokens {
		t.Errorf("context_query at the largest budget: error %v, text %d bytes, json %d bytes, %d tokens", isErr, len(text), len(js), q.Tokens)
	}
}

func TestFilePath(t *testing.T) {
	root := filepath.FromSlash("/work/space")
	for uri, want := range map[string]string{
		"ctxls://context/file/a/b.go":            "a/b.go",
		"ctxls://context/file/a%2Fb.go":          "a/b.go",
		"ctxls://context/file/./a/../b.go":       "b.go",
		"ctxls://context/file/a b%20c.go":        "a b c.go",
		"ctxls://context/file/%252e%252e":        "%2e%2e", // encoded twice: a name, not ..
		"ctxls://context/file/../b.go":           "",
		"ctxls://context/file/a/../../b":         "",
		"ctxls://context/file/../../etc/passwd":  "",
		"ctxls://context/file/%2e%2e/%2e%2e/etc": "",
		"ctxls://context/file/%2E%2E%2Fetc":      "",
		"ctxls://context/file/..":                "",
		"ctxls://context/file/.":                 "",
		"ctxls://context/file//etc/passwd":       "",
		"ctxls://context/file/%2Fetc%2Fpasswd":   "",
		"ctxls://context/file/a\x00b":            "",
		"ctxls://context/file/a%00b":             "",
		"ctxls://context/file/\u0001":            "",
		"ctxls://context/file/%01":               "",
		"ctxls://context/file/a\nb":              "",
		"ctxls://context/file/a%7Fb":             "",
		"ctxls://context/file/%ff":               "",
		"ctxls://context/file/..%5C..%5Cetc":     "",
		"ctxls://context/file/a\\b":              "",
		"ctxls://context/file/":                  "",
		"ctxls://context/file/%zz":               "",
		"ctxls://context/auto":                   "",
	} {
		got, ok := filePath(root, uri)
		if got != want || ok != (want != "") {
			t.Errorf("filePath(%q) = %q, %v; want %q", uri, got, ok, want)
		}
	}
}

func TestStateDirectoryReplaced(t *testing.T) {
	ctx := context.Background()
	root := testWorkspace(t, fixture)
	c := connect(t, Options{Root: root})
	if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: AutoURI}); err != nil {
		t.Fatal(err)
	}
	// The index is thrown away and built again (rm -rf .ctxls; ctxls index).
	dir := filepath.Join(root, ".ctxls")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	workspace2 := testWorkspace(t, fixture)
	if err := os.Rename(filepath.Join(workspace2, ".ctxls"), dir); err != nil {
		t.Fatal(err)
	}
	// The server watches the new directory and announces it (what it
	// holds is new).
	waitUpdated(t, c, AutoURI)
	want := "<auto-context>\nafter the rebuild\n</auto-context>\n"
	if err := workspace.WriteFileAtomic(filepath.Join(dir, AutoContextFile), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	waitUpdated(t, c, AutoURI)
	if got := readText(t, c, AutoURI); got != want {
		t.Errorf("auto-context after the rebuild: %q", got)
	}
	var l SymbolLookupOutput
	if _, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Login"}, &l); isErr || len(l.Definitions) != 1 {
		t.Errorf("lookup in the rebuilt index: %v %+v", isErr, l)
	}
}

func TestMemoryTools(t *testing.T) {
	root := testWorkspace(t, fixture)
	c := connect(t, Options{Root: root, Home: t.TempDir()})

	var w MemoryRef
	text, isErr := call(t, c, "memory_write", map[string]any{"type": "gotcha", "title": "Login compares passwords in constant time",
		"content": "Use subtle.ConstantTimeCompare in auth.check, never ==.", "tags": []string{"auth", "security"},
		"files": []string{"auth/*.go"}, "severity": "high"}, &w)
	if isErr || w.Slug != "gotcha-login-compares-passwords-in-constant-time" || w.Scope != "project" ||
		!strings.HasPrefix(w.Path, filepath.Join(root, ".claude", "memory")) {
		t.Fatalf("memory_write: %v %+v %s", isErr, w, text)
	}
	var d MemoryRef
	if _, isErr := call(t, c, "memory_write", map[string]any{"type": "decision", "title": "Passwords are hashed with bcrypt",
		"content": "bcrypt cost 12 for stored password hashes.", "tags": []string{"auth"}}, &d); isErr {
		t.Fatal("second memory_write failed")
	}
	var l MemoryLinkOutput
	if text, isErr := call(t, c, "memory_link", map[string]any{"from": w.Slug, "to": d.Slug}, &l); isErr || l.Label != "relates-to" || l.Scope != "project" {
		t.Errorf("memory_link: %v %+v %s", isErr, l, text)
	}
	var sr MemorySearchOutput
	text, isErr = call(t, c, "memory_search", map[string]any{"text": "constant time password compare"}, &sr)
	if isErr || len(sr.Memories) == 0 || sr.Memories[0].Slug != w.Slug || !strings.Contains(sr.Memories[0].Excerpt, "ConstantTimeCompare") {
		t.Errorf("memory_search: %v %+v %s", isErr, sr, text)
	}
	if _, isErr := call(t, c, "memory_search", map[string]any{"text": "bcrypt", "types": []string{"gotcha"}}, &sr); isErr || len(sr.Memories) != 0 {
		t.Errorf("memory_search filtered by type: %+v", sr)
	}

	// Bad input is a tool error and writes nothing.
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_write", map[string]any{"type": "bogus", "title": "x", "content": "y", "tags": []string{"a"}}},
		{"memory_write", map[string]any{"type": "learning", "title": "No tags here", "content": "y", "tags": []string{}}},
		{"memory_write", map[string]any{"type": "learning", "title": "x", "content": "y"}},
		{"memory_link", map[string]any{"from": w.Slug, "to": "no-such-memory"}},
		{"memory_search", map[string]any{"text": " "}},
		{"memory_search", map[string]any{"text": "x", "scopes": []string{"../etc"}}},
	} {
		if text, isErr := call(t, c, tc.tool, tc.args, nil); !isErr {
			t.Errorf("%s %v: no error (%s)", tc.tool, tc.args, text)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".claude", "memory"))
	var mds int
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			mds++
		}
	}
	if mds != 2 {
		t.Errorf("%d memory files after the bad writes, want 2: %v", mds, entries)
	}
}

// A file resource reached through a symbolic link that leads out of the
// workspace is not found (decision 0090); one inside it is.
func TestFilePathThroughLinks(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pkg", "a.go"), []byte("package pkg\n"), 0o644)
	for link, target := range map[string]string{
		"out":       outside,
		"secret.go": filepath.Join(outside, "secret.go"),
		"alias":     filepath.Join(root, "pkg"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for uri, want := range map[string]bool{
		"ctxls://context/file/pkg/a.go":      true,
		"ctxls://context/file/alias/a.go":    true,
		"ctxls://context/file/out/secret.go": false,
		"ctxls://context/file/secret.go":     false,
	} {
		if _, ok := filePath(root, uri); ok != want {
			t.Errorf("%s: allowed %v, want %v", uri, ok, want)
		}
	}
}

// An index an older ctxls wrote cannot be migrated by the read-only server:
// it asks for the rebuild and says so, or, without a way to start one, asks
// for 'ctxls index'.
func TestOlderIndex(t *testing.T) {
	root := testWorkspace(t, fixture)
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(fmt.Sprintf("PRAGMA user_version = %d", store.SchemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var mu sync.Mutex // the server calls Rebuild on its own goroutines
	var reasons []string
	rebuild := func(reason string) bool {
		mu.Lock()
		defer mu.Unlock()
		reasons = append(reasons, reason)
		return true
	}
	c := connect(t, Options{Root: root, Rebuild: rebuild})
	text, isErr := call(t, c, "symbol_lookup", map[string]any{"name": "Login"}, nil)
	if !isErr || !strings.Contains(text, "being rebuilt in the background") {
		t.Errorf("tool on an older index: %v %q", isErr, text)
	}
	// Each answer asks again (so did the resource list at connection);
	// ctxls mcp's Rebuild bounds how often a rebuild starts (heal).
	mu.Lock()
	if len(reasons) == 0 || !strings.Contains(reasons[0], fmt.Sprintf("schema version %d", store.SchemaVersion-1)) {
		t.Errorf("rebuild asked for %q", reasons)
	}
	mu.Unlock()

	d := connect(t, Options{Root: root})
	if text, isErr := call(t, d, "symbol_lookup", map[string]any{"name": "Login"}, nil); !isErr || !strings.Contains(text, "run 'ctxls index'") {
		t.Errorf("tool on an older index, no rebuild: %v %q", isErr, text)
	}
}

// While an indexer fills an index no run has finished into, each tool's
// answer says that it may be incomplete; a finished index's answers, or an
// unfinished one that nothing is filling, do not.
func TestAnswersWhileTheIndexIsBuilt(t *testing.T) {
	const note = "still building this workspace's index"
	tests := []struct {
		name             string
		locked, complete bool
		want             bool
	}{
		{"an indexer fills a new index", true, false, true},
		{"an indexer updates a finished index", true, true, false},
		{"an unfinished index, no indexer", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := testWorkspace(t, fixture)
			if !tc.complete {
				st, err := store.Open(context.Background(), root, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := st.SetMeta(context.Background(), store.MetaComplete, ""); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			if tc.locked {
				lock, ok, err := index.TryLock(root)
				if err != nil || !ok {
					t.Fatalf("index lock: %v %v", ok, err)
				}
				defer lock.Close()
			}
			c := connect(t, Options{Root: root})
			for _, q := range []struct {
				tool string
				args map[string]any
			}{
				{"symbol_lookup", map[string]any{"name": "Login"}},
				{"related", map[string]any{"symbol": "Login"}},
				{"context_query", map[string]any{"text": "how does Login check the password"}},
			} {
				text, isErr := call(t, c, q.tool, q.args, nil)
				if isErr || strings.Contains(text, note) != tc.want {
					t.Errorf("%s: error %v, note %v, want %v: %q", q.tool, isErr, strings.Contains(text, note), tc.want, text[:min(len(text), 200)])
				}
			}
			// The resources computed from the index say so too; a file the
			// indexer has not reached is "not yet", not "not found".
			for _, uri := range []string{fileURI("auth/auth.go"), AutoURI} {
				if text := readText(t, c, uri); strings.Contains(text, note) != tc.want {
					t.Errorf("%s: note %v, want %v: %q", uri, !tc.want, tc.want, text[:min(len(text), 200)])
				}
			}
			_, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: fileURI("auth/later.go")})
			if tc.want {
				if text := readText(t, c, fileURI("auth/later.go")); !strings.Contains(text, note) || !strings.Contains(text, "not in the index yet") {
					t.Errorf("a file not reached yet: %q", text)
				}
			} else if err == nil {
				t.Error("a file the finished index lacks was found")
			}
		})
	}
}
