package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// badLine is a line a client or a prompt-injected model may send, and the
// answer it must draw: an error with code (0: a result), and id the raw id
// of the answer.
type badLine struct {
	name string
	line string
	code int64
	id   string
	// uri is the data.uri of a resource-not-found error.
	uri string
}

// badLines are the lines of issue 23's reproduction and their kin. Each is
// followed by a ping that must be answered: the session outlives them.
var badLines = []badLine{
	{name: "control character in a file URI", line: `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"ctxls://context/file/\u0001"}}`,
		code: codeResourceNotFound, id: "2", uri: "ctxls://context/file/\x01"},
	{name: "control character in an unknown URI", line: `{"jsonrpc":"2.0","id":"u","method":"resources/read","params":{"uri":"ctxls://nothing/\u0007\u001b"}}`,
		code: codeResourceNotFound, id: `"u"`, uri: "ctxls://nothing/\x07\x1b"},
	{name: "control character in a subscription", line: `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"ctxls://context/\u0001"}}`,
		code: codeResourceNotFound, id: "3", uri: "ctxls://context/\x01"},
	{name: "NUL in a file URI", line: `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"ctxls://context/file/auth\u0000/auth.go"}}`,
		code: codeResourceNotFound, id: "4", uri: "ctxls://context/file/auth\x00/auth.go"},
	{name: "traversal", line: `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"ctxls://context/file/../../etc/passwd"}}`,
		code: codeResourceNotFound, id: "5", uri: "ctxls://context/file/../../etc/passwd"},
	{name: "encoded traversal", line: `{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"ctxls://context/file/%2e%2e/%2e%2e/etc/passwd"}}`,
		code: codeResourceNotFound, id: "6", uri: "ctxls://context/file/%2e%2e/%2e%2e/etc/passwd"},
	{name: "absolute path", line: `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"ctxls://context/file//etc/passwd"}}`,
		code: codeResourceNotFound, id: "7", uri: "ctxls://context/file//etc/passwd"},
	{name: "traversal inside the workspace's files", line: `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"ctxls://context/file/auth/../../auth/auth.go"}}`,
		code: codeResourceNotFound, id: "8", uri: "ctxls://context/file/auth/../../auth/auth.go"},
	{name: "not JSON", line: `{not json`, code: jsonrpc.CodeParseError, id: "null"},
	{name: "two values", line: `{"jsonrpc":"2.0","id":9,"method":"ping"} {}`, code: jsonrpc.CodeParseError, id: "null"},
	{name: "not UTF-8", line: "\xff\xfe", code: jsonrpc.CodeParseError, id: "null"},
	{name: "not UTF-8 in a string", line: "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\"}}", code: jsonrpc.CodeParseError, id: "null"},
	{name: "empty batch", line: `[]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "batch where the protocol has none", line: `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "empty object", line: `{}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "wrong version", line: `{"jsonrpc":"1.0","id":12,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "12"},
	{name: "no version", line: `{"id":13,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "13"},
	{name: "number", line: `42`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "null", line: `null`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "object id", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "fractional id", line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "null id", line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "method not a string", line: `{"jsonrpc":"2.0","id":14,"method":7}`, code: jsonrpc.CodeInvalidRequest, id: "14"},
	{name: "params not an object", line: `{"jsonrpc":"2.0","id":15,"method":"ping","params":"x"}`, code: jsonrpc.CodeInvalidRequest, id: "15"},
	{name: "response without result", line: `{"jsonrpc":"2.0","id":16}`, code: jsonrpc.CodeInvalidRequest, id: "16"},
	{name: "response with a string error", line: `{"jsonrpc":"2.0","id":17,"error":"x"}`, code: jsonrpc.CodeInvalidRequest, id: "17"},
	{name: "too deep", line: strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), code: jsonrpc.CodeInvalidRequest, id: "null"},
	{name: "blanks around a request", line: " \t{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"ping\"} \t", id: "18"},
	{name: "CRLF", line: "{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"ping\"}\r", id: "19"},
	{name: "unknown method", line: `{"jsonrpc":"2.0","id":20,"method":"no/such"}`, code: jsonrpc.CodeMethodNotFound, id: "20"},
	// A tool's errors are results with isError set.
	{name: "tool arguments not an object", line: `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"symbol_lookup","arguments":[1]}}`, id: "21"},
}

// reply is one JSON-RPC response as it came over the wire.
type reply struct {
	raw     json.RawMessage
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (r reply) String() string { return string(r.raw) }

// rawClient speaks newline-delimited JSON-RPC over a pair of pipes,
// without the SDK, so that it can send what the SDK never would.
type rawClient struct {
	t     testing.TB
	w     io.Writer
	lines chan []byte
}

func newRawClient(t testing.TB, w io.Writer, r io.Reader) *rawClient {
	c := &rawClient{t: t, w: w, lines: make(chan []byte, 64)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	return c
}

// send writes one line and its newline.
func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("send %q: %v", line, err)
	}
}

// next reads the next line, which must be a JSON-RPC 2.0 response or
// notification, or a batch of responses (returned one by one); ok is false
// when the server ended the session or said nothing for a while.
func (c *rawClient) next() (_ []reply, ok bool) {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			return nil, false
		}
		if !json.Valid(line) {
			c.t.Fatalf("the server sent a line that is not JSON: %q", line)
		}
		var raws []json.RawMessage
		if line[0] == '[' {
			if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
				c.t.Fatalf("the server sent a bad batch: %q", line)
			}
		} else {
			raws = []json.RawMessage{line}
		}
		var rs []reply
		for _, raw := range raws {
			r := reply{raw: raw}
			if err := json.Unmarshal(raw, &r); err != nil || r.JSONRPC != "2.0" {
				c.t.Fatalf("the server sent a line that is not JSON-RPC 2.0: %q (%v)", line, err)
			}
			rs = append(rs, r)
		}
		return rs, true
	case <-time.After(10 * time.Second):
		return nil, false
	}
}

// until reads lines until the response with id, returning those before it.
func (c *rawClient) until(id string) (before []reply, r reply) {
	c.t.Helper()
	for {
		rs, ok := c.next()
		if !ok {
			c.t.Fatalf("the session ended, or the server did not answer %s; read before: %s", id, before)
		}
		for _, r := range rs {
			if string(r.ID) == id {
				return before, r
			}
			before = append(before, r)
		}
	}
}

// initialize opens the session at a protocol revision.
func (c *rawClient) initialize(protocol string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, r := c.until(`"init"`); r.Error != nil {
		c.t.Fatalf("initialize: %s", r.raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// checkBadLines sends each bad line and a ping after it, and checks the
// answer to each and that the ping is answered.
func checkBadLines(t *testing.T, c *rawClient, lines []badLine) {
	for i, bl := range lines {
		ping := fmt.Sprintf(`"ping-%d"`, i)
		c.send(bl.line)
		c.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
		before, pong := c.until(ping)
		if pong.Error != nil {
			t.Errorf("%s: the ping after it failed: %s", bl.name, pong.raw)
		}
		var got *reply
		for j := range before {
			if string(before[j].ID) == bl.id {
				got = &before[j]
			}
		}
		if got == nil && bl.id != "null" {
			// The SDK handles requests concurrently: the ping may
			// overtake a request. The filter's answers (id null) come
			// before the next line is read.
			_, r := c.until(bl.id)
			got = &r
		}
		switch {
		case got == nil:
			t.Errorf("%s: no answer with id %s before the ping's; got %s", bl.name, bl.id, before)
		case bl.code == 0 && got.Error != nil:
			t.Errorf("%s: %s, want a result", bl.name, got.raw)
		case bl.code != 0 && (got.Error == nil || got.Error.Code != bl.code):
			t.Errorf("%s: %s, want code %d", bl.name, got.raw, bl.code)
		case bl.uri != "":
			var data struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(got.Error.Data, &data); err != nil || data.URI != bl.uri {
				t.Errorf("%s: data %s, want the uri %q", bl.name, got.Error.Data, bl.uri)
			}
		}
	}
}

// filterClient serves root in-process through FilterTransport over pipes
// and returns a raw client of it; maxLine > 0 replaces MaxFrameBytes.
func filterClient(t *testing.T, root string, maxLine int) *rawClient {
	t.Helper()
	srv, err := New(Options{Root: root, Version: "test", Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return filterSession(t, srv, maxLine)
}

// filterSession connects a new session of srv through FilterTransport.
func filterSession(t *testing.T, srv *Server, maxLine int) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ft := FilterTransport(inR, outW).(*filterTransport)
	if maxLine > 0 {
		ft.maxLine = maxLine
	}
	ss, err := srv.MCP().Connect(context.Background(), ft, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		ss.Wait()
		outW.Close()
	})
	return newRawClient(t, inW, outR)
}

// TestFilterBadLines sends every bad line of the reproduction to a server
// over the filter, at the protocol revision Claude Code speaks and at a
// later one.
func TestFilterBadLines(t *testing.T) {
	root := testWorkspace(t, fixture)
	for _, protocol := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			c := filterClient(t, root, 0)
			c.initialize(protocol)
			checkBadLines(t, c, badLines)
			// A good read still works after all that.
			c.send(`{"jsonrpc":"2.0","id":"read","method":"resources/read","params":{"uri":"ctxls://context/file/auth/auth.go"}}`)
			if _, r := c.until(`"read"`); r.Error != nil || !bytes.Contains(r.Result, []byte("auth.Login")) {
				t.Errorf("read after the bad lines: %s", r.raw)
			}
		})
	}
}

// TestFilterLimits: a line over the limit is refused and the next one
// read; input before initialization and a last line without its newline
// are answered too.
func TestFilterLimits(t *testing.T) {
	root := testWorkspace(t, fixture)
	c := filterClient(t, root, 1000)
	const head, tail = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"`, `"}}`
	atLimit := head + strings.Repeat("x", 1000-len(head)-len(tail)) + tail
	checkBadLines(t, c, []badLine{
		{name: "batch before initialization", line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
	})
	c.initialize("2025-06-18")
	checkBadLines(t, c, []badLine{
		{name: "long line", line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 200_000) + `"}}`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "line at the limit", line: atLimit, id: "2"},
	})
	io.WriteString(c.w, `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	c.w.(io.Closer).Close()
	if _, r := c.until(`"last"`); r.Error != nil {
		t.Errorf("last line: %s", r.raw)
	}
}

// TestFilterBatches: under 2025-03-26, which has batches, good batches
// reach the SDK and are answered; bad ones are refused whole.
func TestFilterBatches(t *testing.T) {
	root := testWorkspace(t, fixture)
	c := filterClient(t, root, 0)
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"ping"}]`)
	if batch, ok := c.next(); !ok || len(batch) != 2 || string(batch[0].ID) != "1" || string(batch[1].ID) != `"two"` {
		t.Errorf("batch answer: %s", batch)
	}
	checkBadLines(t, c, []badLine{
		{name: "empty batch", line: `[]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "duplicate ids", line: `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "element not an object", line: `[{"jsonrpc":"2.0","id":4,"method":"ping"},1]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "notification", line: `[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "bad element", line: `[{"jsonrpc":"2.0","id":5,"method":"ping"},{}]`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "ids that were answered may come again", line: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, id: "1"},
	})
}
