package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fuzz targets drive a real server over a real index. Their seeds run
// with every `go test`; `go test -fuzz=FuzzX` explores from them.

// fuzzServer is a server over the fixture's index, with a home of its own
// (memory_write may write a global memory).
func fuzzServer(f *testing.F) (*Server, string) {
	root := testWorkspace(f, fixture)
	srv, err := New(Options{Root: root, Version: "fuzz", Home: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { srv.Close() })
	return srv, root
}

// sdkSession connects the SDK's client to a new session of srv over an
// in-memory transport.
func sdkSession(t *testing.T, srv *Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// checkAnswered fails unless err is nil or an error answer of the server
// (not a broken session), and the session still answers a ping.
func checkAnswered(t *testing.T, cs *mcp.ClientSession, what string, err error) {
	t.Helper()
	var we *jsonrpc.Error
	if err != nil && !errors.As(err, &we) {
		t.Fatalf("%s: not an answer: %v", what, err)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatalf("%s: the session is gone: ping: %v", what, err)
	}
}

// FuzzResourceRead reads arbitrary URIs: each must be answered, the
// session must outlive it, and a file resource may be read only for a
// path of the index, inside the workspace.
func FuzzResourceRead(f *testing.F) {
	for _, uri := range []string{
		"ctxls://context/file/\x01", "ctxls://context/file/\u0001", "ctxls://context/file/a\x00b",
		"ctxls://context/file/../../etc/passwd", "ctxls://context/file/%2e%2e/%2e%2e/etc/passwd",
		"ctxls://context/file//etc/passwd", "ctxls://context/file/%2Fetc%2Fpasswd", "ctxls://context/file/auth/../../auth/auth.go",
		"ctxls://context/file/auth/auth.go", "ctxls://context/file/auth%2Fauth.go", "ctxls://context/file/./auth/auth.go",
		"ctxls://context/file/..%5Cauth.go", "ctxls://context/file/%ff", "ctxls://context/auto", "ctxls://context/session",
		"ctxls://nothing/\x07", "file:///etc/passwd", "", "\xff",
	} {
		f.Add(uri)
	}
	srv, root := fuzzServer(f)
	// Out through the root's parent and back in: it leaves the root.
	f.Add("ctxls://context/file/../" + filepath.Base(root) + "/auth/auth.go")
	f.Add("ctxls://context/file/auth/../../" + url.PathEscape(filepath.Base(root)) + "/auth/auth.go")
	f.Fuzz(func(t *testing.T, uri string) {
		cs := sdkSession(t, srv)
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		checkAnswered(t, cs, "resources/read "+uri, err)
		if err != nil {
			return
		}
		if why := outside(uri); why != "" {
			t.Fatalf("resources/read %q was answered, but %s", uri, why)
		}
	})
}

// outside says why a file URI must not be read, independently of
// filePath: its path, decoded, is absolute, climbs above the root at any
// step, or holds a control character.
func outside(uri string) string {
	rest, ok := strings.CutPrefix(uri, filePrefix)
	if !ok {
		return ""
	}
	p, err := url.PathUnescape(rest)
	switch {
	case err != nil:
		return "its path does not decode"
	case strings.HasPrefix(p, "/"):
		return "its path is absolute"
	case strings.ContainsFunc(p, unicode.IsControl):
		return "its path holds a control character"
	}
	depth := 0
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "..":
			depth--
		case ".", "":
		default:
			depth++
		}
		if depth < 0 {
			return "its path climbs above the root"
		}
	}
	return ""
}

// toolNames are the server's tools.
var toolNames = []string{"context_query", "symbol_lookup", "related", "memory_search", "memory_write", "memory_link"}

// FuzzToolArguments calls each tool with arbitrary arguments: JSON as it
// comes, or any other text as the value of every string field the tools
// have. Each call must be answered (a tool's error is a result with isError
// set) and the session must outlive it.
func FuzzToolArguments(f *testing.F) {
	for i, args := range []string{
		`{"text":"how is the password checked in Login","active_files":["auth/auth.go"]}`,
		`{"name":"auth.Login"}`, `{"name":42}`, `{"symbol":"Login","limit":-1}`, `{"file":"../../etc/passwd"}`,
		`{"file":"\u0001"}`, `{"text":"\u0000"}`, `{"text":"x","max_tokens":1e308}`, `{"text":"x","types":["nope"]}`,
		`{"type":"gotcha","title":"t","content":"c","files":["../../etc/passwd"]}`, `{"from":"a","to":"a"}`,
		`[]`, `null`, `"x"`, `{}`, `{"limit":9223372036854775807}`, "not json \x01", "\xff",
	} {
		f.Add(uint8(i), args)
	}
	srv, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		name := toolNames[int(tool)%len(toolNames)]
		var arguments any = json.RawMessage(args)
		if !json.Valid([]byte(args)) {
			arguments = map[string]any{"text": args, "name": args, "symbol": args, "file": args, "title": args, "content": args, "type": args, "from": args, "to": args}
		}
		cs := sdkSession(t, srv)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: arguments})
		checkAnswered(t, cs, name+" "+args, err)
	})
}

// FuzzFilter sends arbitrary bytes, after an initialize at a protocol with
// or without batches, to a server behind FilterTransport: every line it
// sends back must be JSON-RPC 2.0, and a ping after the bytes must be
// answered.
func FuzzFilter(f *testing.F) {
	for _, bl := range badLines {
		f.Add(false, []byte(bl.line))
	}
	for _, in := range []string{
		"{not json\n[]\n{}\n\xff\xfe\n", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n" + `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":null,"error":null}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\r\n \n", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
	} {
		f.Add(true, []byte(in))
		f.Add(false, []byte(in))
	}
	srv, _ := fuzzServer(f)
	f.Fuzz(func(t *testing.T, batches bool, in []byte) {
		c := filterSession(t, srv, 0)
		protocol := "2025-06-18"
		if batches {
			protocol = "2025-03-26"
		}
		c.initialize(protocol)
		// Write from another goroutine: many lines draw many answers, and
		// the answers must be read for the input to be.
		go func() {
			c.w.Write(in)
			io.WriteString(c.w, "\n"+`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`+"\n")
		}()
		c.until(`"fuzz-ping"`)
	})
}
