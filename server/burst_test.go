package server

import (
	"strings"
	"testing"
	"time"
)

// A burst of didChange notifications for one document is applied in full
// but parsed far fewer times than it has changes, so a request behind it
// waits for one parse, not a thousand (issue 23: 1,000 changes delayed
// every request by 28 s).
func TestDidChangeBurstIsCoalesced(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero, BufferFlush: time.Hour})
	c.initialize(root)
	u := open(t, c, root, "auth/service.go")
	before := c.srv.sess.Parses()

	const changes = 1000
	for i := 1; i <= changes; i++ {
		// Each change puts one more space before "package", at the start.
		c.notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": u, "version": 1 + i},
			"contentChanges": []map[string]any{{
				"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
				"text":  " ",
			}},
		})
	}
	start := time.Now()
	var syms []symbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": u}}, &syms); err != nil {
		t.Fatal(err)
	}
	t.Logf("documentSymbol after %d changes answered in %v; %d parses", changes, time.Since(start), c.srv.sess.Parses()-before)
	if got := strings.Join(names(syms), " "); !strings.Contains(got, "Login") {
		t.Errorf("documentSymbol after the burst = %s", got)
	}
	d := c.srv.sess.Document(string(u))
	if d == nil {
		t.Fatal("the document is not open")
	}
	if !strings.HasPrefix(string(d.Text), strings.Repeat(" ", changes)+"package auth") || d.Version != 1+changes {
		t.Fatalf("the document does not hold every change in order (version %v)", d.Version)
	}
	if n := c.srv.sess.Parses() - before; n > changes/2 {
		t.Errorf("%d changes were parsed %d times: not coalesced", changes, n)
	}
}
