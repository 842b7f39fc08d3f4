package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap/zaptest"

	"github.com/ctxls/ctxls/internal/damage"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/store"
)

// rawClient talks to the server in raw frames, to send what a well-behaved
// client never would.
type rawClient struct {
	t    *testing.T
	w    *io.PipeWriter
	r    *bufio.Reader
	code chan int
}

func startRaw(t *testing.T, opts Options) *rawClient {
	t.Helper()
	opts.Log = zaptest.NewLogger(t)
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	rc := &rawClient{t: t, w: c2sW, r: bufio.NewReader(s2cR), code: make(chan int, 1)}
	go func() {
		rc.code <- New(opts).Serve(context.Background(), c2sR, s2cW, pipeRWC{closers: []io.Closer{c2sR}})
		s2cW.Close()
	}()
	t.Cleanup(func() {
		c2sW.Close()
		go io.Copy(io.Discard, s2cR)
		select {
		case <-rc.code:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after the client disconnected")
		}
	})
	return rc
}

func (c *rawClient) raw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) send(v any) {
	c.t.Helper()
	data, _ := json.Marshal(v)
	c.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(data), data))
}

// next reads frames until one that is a response (server notifications
// are skipped).
func (c *rawClient) next() map[string]any {
	c.t.Helper()
	type result struct {
		m   map[string]any
		err error
	}
	ch := make(chan result, 1)
	go func() {
		for {
			length := 0
			for {
				line, err := c.r.ReadString('\n')
				if err != nil {
					ch <- result{err: err}
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					length, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, length)
			if _, err := io.ReadFull(c.r, body); err != nil {
				ch <- result{err: err}
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				ch <- result{err: err}
				return
			}
			if _, isNote := m["method"]; !isNote {
				ch <- result{m: m}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			c.t.Fatal(r.err)
		}
		return r.m
	case <-time.After(30 * time.Second):
		c.t.Fatal("no response")
	}
	return nil
}

func (c *rawClient) initialize(root string) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"rootUri": uri.File(root), "capabilities": map[string]any{}}})
	if m := c.next(); m["result"] == nil {
		c.t.Fatalf("initialize: %v", m)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
}

// alive checks the server still answers, with a shutdown-free request.
func (c *rawClient) alive(id int) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "workspace/symbol", "params": map[string]any{"query": "Login"}})
	m := c.next()
	if m["error"] != nil || m["id"].(float64) != float64(id) {
		c.t.Fatalf("server no longer answers properly: %v", m)
	}
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	return e["code"].(float64)
}

func TestMalformedFrames(t *testing.T) {
	root := writeWorkspace(t)
	c := startRaw(t, Options{NoWatch: true})
	c.initialize(root)

	// A body that is not JSON: ParseError with a null id, and the session
	// goes on.
	c.raw("Content-Length: 9\r\n\r\n{not json")
	if m := c.next(); errCode(m) != -32700 || m["id"] != nil {
		t.Errorf("malformed body: %v", m)
	}
	c.alive(10)

	// A header line that is not a header, and a non-numeric length.
	c.raw("garbage line\r\nContent-Length: abc\r\n\r\n")
	c.alive(11)

	// A length too long: the body swallows the next frame's header, which
	// the server finds again.
	good, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 12, "method": "workspace/symbol", "params": map[string]any{"query": "Login"}})
	bad := `{"jsonrpc":"2.0","id":99,"method":"workspace/symbol","params":{}}`
	next := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good), good)
	c.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(bad)+20, bad) + next)
	// The first request is answered (or refused) and the swallowed one is
	// answered once the server resynchronises.
	for _, m := range []map[string]any{c.next(), c.next()} {
		if m["id"] == float64(12) && m["error"] != nil || m["id"] != float64(12) && m["id"] != float64(99) && errCode(m) != -32700 {
			t.Errorf("too-long frame: %v", m)
		}
	}

	// A length too short: the rest of the body precedes the next header.
	body := `{"jsonrpc":"2.0","id":13,"method":"workspace/symbol","params":{"query":"Login"}}`
	c.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)-10, body))
	if m := c.next(); errCode(m) != -32700 {
		t.Errorf("too-short frame: %v", m)
	}
	c.alive(14)

	// Valid JSON that is not a JSON-RPC message.
	c.raw("Content-Length: 2\r\n\r\n[]")
	if m := c.next(); errCode(m) == 0 {
		t.Errorf("array body: %v", m)
	}
	c.alive(15)
}

func TestHostileDocuments(t *testing.T) {
	root := writeWorkspace(t)
	c := startRaw(t, Options{NoWatch: true})
	c.initialize(root)

	// didChange for a document never opened: ignored.
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": uri.File(filepath.Join(root, "nowhere.go")), "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 3, "character": 0}, "end": map[string]any{"line": 3, "character": 0}}, "text": "x"}},
	}})
	c.alive(20)

	// A 5 MB document: kept as text, not parsed (over index.maxFileSize),
	// and edits still apply.
	var big strings.Builder
	for big.Len() < 5<<20 {
		fmt.Fprintf(&big, "func F%d() int { return %d }\n", big.Len(), big.Len())
	}
	u := uri.File(filepath.Join(root, "big.go"))
	start := time.Now()
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": "package big\n" + big.String()}}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 100000, "character": 0}, "end": map[string]any{"line": 100000, "character": 0}}, "text": "// edited\n"}},
	}})
	c.send(map[string]any{"jsonrpc": "2.0", "id": 21, "method": "textDocument/hover", "params": map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 1, "character": 6}}})
	if m := c.next(); m["error"] != nil {
		t.Errorf("hover in a 5 MB document: %v", m)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": 22, "method": "textDocument/documentSymbol", "params": map[string]any{"textDocument": map[string]any{"uri": u}}})
	if m := c.next(); m["error"] != nil {
		t.Errorf("documentSymbol of a 5 MB document: %v", m)
	}
	t.Logf("5 MB document: open, edit, hover, symbols in %s", time.Since(start))
	c.alive(23)

	// Positions past the end of lines and of the document, and a surrogate
	// pair before the cursor.
	u2 := uri.File(filepath.Join(root, "emoji.go"))
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": u2, "languageId": "go", "version": 1, "text": "package e\n\nvar s = \"😀\" // x\nfunc Smile() {}\n"}}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
		"textDocument": map[string]any{"uri": u2, "version": 2},
		"contentChanges": []any{
			map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 11}, "end": map[string]any{"line": 2, "character": 11}}, "text": "!"},
			map[string]any{"range": map[string]any{"start": map[string]any{"line": 99, "character": 99}, "end": map[string]any{"line": 120, "character": 0}}, "text": "\nfunc Frown() {}\n"},
		},
	}})
	c.send(map[string]any{"jsonrpc": "2.0", "id": 24, "method": "textDocument/documentSymbol", "params": map[string]any{"textDocument": map[string]any{"uri": u2}}})
	m := c.next()
	data, _ := json.Marshal(m["result"])
	if !strings.Contains(string(data), "Smile") || !strings.Contains(string(data), "Frown") {
		t.Errorf("symbols after edits at odd positions: %s", data)
	}
}

func TestIndexDeletedUnderRunningServer(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{Debounce: &zero, BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	// The server may be writing into .ctxls: retry as rm -rf would.
	var err error
	for i := 0; i < 20; i++ {
		if err = os.RemoveAll(filepath.Join(root, ".ctxls")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The server notices (watcher), recreates the index and re-indexes. rm
	// may delete a first recreated file too; the server recreates it again.
	// Hover answers from the index (ErrDenied is declared in another file).
	u := open(t, c, root, "auth/service.go")
	var h string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(root, ".ctxls", "index.db")); err != nil {
			continue
		}
		// Until the server has noticed, a hover may fail: its store's
		// files are gone, and new connections do not recreate them.
		var hv *protocol.Hover
		if err := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 8, "character": 15}}, &hv); err != nil || hv == nil {
			continue
		}
		if h = hv.Contents.Value; strings.Contains(h, "wrong password") {
			break
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".ctxls", "index.db")); err != nil || !strings.Contains(h, "wrong password") {
		t.Fatalf("index not recreated and filled: %v, hover %q", err, h)
	}
	waitFile(t, filepath.Join(root, ".ctxls", "auto-context.md"), "active file auth/service.go")
}

// The state file alone deleted: the server reopens the store, so that the
// activity it records reaches the new file other processes read.
func TestStateFileDeletedUnderRunningServer(t *testing.T) {
	root, c := serveWithState(t)
	// As `rm .ctxls/state.db*` would. (Removing the file alone while
	// processes hold it open leaves its WAL behind for the next file of the
	// name, which SQLite documents as a way to corrupt a database.)
	for _, p := range []string{store.StatePath(root), store.StatePath(root) + "-wal", store.StatePath(root) + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	waitStateFile(t, root, "the server did not reopen the store")
	waitActivityRecorded(t, c, root)
}

// An index another process created in place of the one the server opened
// (a hook that ran first after `rm .ctxls/index.db*`) is the server's from
// then on: it indexes the workspace into it.
func TestIndexReplacedUnderRunningServer(t *testing.T) {
	root, _ := serveWithState(t)
	ctx := context.Background()
	other := t.TempDir()
	st, err := store.Open(ctx, other, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// As `rm .ctxls/index.db-*` and a new index created in place would,
	// but without a moment in which the path is missing.
	for _, p := range []string{store.Path(root) + "-wal", store.Path(root) + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.Rename(store.Path(other), store.Path(root)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if st, err := store.Open(ctx, root, store.Options{ReadOnly: true}); err == nil {
			n, _ := st.FileCount(ctx)
			st.Close()
			if n > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the workspace was not indexed into the index now at its path")
		}
	}
}

// serveWithState starts a server on a new workspace, without debounce,
// and waits for its state file.
func serveWithState(t *testing.T) (string, *client) {
	t.Helper()
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{Debounce: &zero, BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	waitStateFile(t, root, "no state file")
	return root, c
}

// waitStateFile fails the test with what unless the workspace's state file
// exists within 10 s.
func waitStateFile(t *testing.T, root, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(store.StatePath(root)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// waitActivityRecorded fails the test unless editor activity reaches the
// state file now at the workspace's path within 10 s.
func waitActivityRecorded(t *testing.T, c *client, root string) {
	t.Helper()
	// Activity sent while the server reopens may still reach the old file,
	// and the engine records only changes: switch between two files until
	// one switch reaches the new file.
	files := []string{"auth/service.go", "web/handler.go"}
	for i, deadline := 0, time.Now().Add(10*time.Second); time.Now().Before(deadline); i++ {
		c.notify("ctxls/activity", map[string]any{"type": "file_open", "filePath": filepath.Join(root, files[i%2])})
		time.Sleep(200 * time.Millisecond)
		st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
		if err != nil {
			continue
		}
		ws, _ := st.WorkingSet(context.Background(), time.Now().Add(-time.Minute), 5)
		st.Close()
		if len(ws) > 0 {
			return
		}
	}
	t.Fatal("no activity reached the state file at the workspace's path")
}

// An index with damaged pages (Open reads only the header) is set aside by
// the first index run or rewrite that meets them, and the server indexes
// again into a new file.
func TestDamagedIndexPagesUnderServer(t *testing.T) {
	root := writeWorkspace(t)
	if err := damage.GoFiles(filepath.Join(root, "auth"), "auth", 300); err != nil {
		t.Fatal(err)
	}
	wstest.Index(t, root)
	if err := damage.Pages(store.Path(root), 1.0/3); err != nil {
		t.Fatal(err)
	}

	zero := time.Duration(0)
	c := startServer(t, Options{Debounce: &zero, BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	open(t, c, root, "auth/service.go")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		aside, _ := filepath.Glob(store.Path(root) + ".corrupt-*")
		if len(aside) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("damaged index not set aside: %v", aside)
		}
	}
	// The new index fills, and the auto-context is written from it.
	waitFile(t, filepath.Join(root, ".ctxls", "auto-context.md"), "active file auth/service.go")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rd, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
		if err == nil {
			n, _ := rd.EntityCount(context.Background())
			rd.Close()
			if n > 300 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new index was not filled: %v", err)
		}
	}
}
