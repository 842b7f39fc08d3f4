package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/symbols"
)

var files = map[string]string{
	"auth/service.go": `package auth

// AuthService checks credentials.
type AuthService struct{}

// Login returns a session token.
func (a *AuthService) Login(user string) string { return issueToken(user) }

func issueToken(user string) string { return "t-" + user }
`,
	"billing/invoice.go": `package billing

// Invoice is a bill.
type Invoice struct{ Total int }

// Render prints the invoice.
func (i Invoice) Render() string { return "" }
`,
}

// buffers is an editor overlay for tests.
type buffers map[string][]byte

func (b buffers) Buffer(p string) ([]byte, *symbols.File, bool) {
	text, ok := b[p]
	if !ok {
		return nil, nil, false
	}
	f, err := symbols.Extract(context.Background(), p, text)
	return text, f, err == nil
}

func TestActivityBecomesAutoContext(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	edited := []byte(files["auth/service.go"] + "\n// Logout ends a session.\nfunc Logout(tok string) bool { return tok != \"\" }\n")
	written := make(chan *Snapshot, 16)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Buffers: buffers{"auth/service.go": edited}, OnWrite: func(s *Snapshot) { written <- s }})
	defer e.Close()

	e.Record(Activity{Type: FileOpen, Path: "billing/invoice.go"})
	e.Record(Activity{Type: FileEdit, Path: "auth/service.go", ChangedSymbols: []string{"Logout"}})
	// With no debounce the open may be written on its own first; wait for
	// the write that has both.
	var snap *Snapshot
	for snap == nil || !strings.Contains(snap.Markdown, "Logout") {
		select {
		case snap = <-written:
		case <-time.After(10 * time.Second):
			t.Fatal("no auto-context with the edit written")
		}
	}
	md, err := os.ReadFile(MarkdownFile(root))
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != snap.Markdown {
		t.Error("auto-context.md differs from the snapshot")
	}
	for _, want := range []string{
		"active file auth/service.go",
		"why: edited Logout in auth/service.go; opened billing/invoice.go",
		"## Editing", "func Logout(tok string) bool", "Logout ends a session",
		"<auto-context>", "</auto-context>",
	} {
		if !strings.Contains(snap.Markdown, want) {
			t.Errorf("auto-context lacks %q:\n%s", want, snap.Markdown)
		}
	}
	// The index does not hold the edited buffer yet: nothing of that file
	// is shown from the index, which would contradict the Editing section.
	if strings.Contains(snap.Markdown, "### file `auth/service.go`") || !strings.Contains(snap.Markdown, "### file `billing/invoice.go`") {
		t.Errorf("auto-context shows the edited file from the index before it holds the buffer:\n%s", snap.Markdown)
	}
	// The buffer reaches the index (the server's queue): the context is
	// rewritten without further activity and shows the file, as edited.
	if _, err := index.Update(context.Background(), st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: "auth/service.go", Content: edited}}); err != nil {
		t.Fatal(err)
	}
	e.IndexChanged()
	for !strings.Contains(snap.Markdown, "### file `auth/service.go`") {
		select {
		case snap = <-written:
		case <-time.After(10 * time.Second):
			t.Fatalf("not rewritten after the index caught up:\n%s", snap.Markdown)
		}
	}
	if strings.Count(snap.Markdown, "func Logout(tok string) bool") != 1 {
		t.Errorf("the edited function is not shown exactly once:\n%s", snap.Markdown)
	}
	var fromJSON Snapshot
	data, err := os.ReadFile(JSONFile(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if fromJSON.ActiveFile != "auth/service.go" || fromJSON.Bytes != len(snap.Markdown) || fromJSON.Sections[0].Title != "Editing" {
		t.Errorf("auto-context.json = %+v", fromJSON)
	}
	// Weights are the seed's: edit 0.95, open 0.8.
	w := map[analyzer.TriggerType]float64{}
	for _, tr := range snap.Triggers {
		w[tr.Type] = tr.Relevance
	}
	if w[analyzer.TriggerFileEdit] != 0.95 || w[analyzer.TriggerFileOpen] != 0.8 {
		t.Errorf("trigger weights = %v", w)
	}

	// Activity reaches the store for the other processes (written off the
	// rewrite's path, so wait for it).
	var ws []string
	for deadline := time.Now().Add(5 * time.Second); len(ws) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ws, err = st.WorkingSet(context.Background(), time.Now().Add(-time.Minute), 10); err != nil {
			t.Fatal(err)
		}
	}
	if len(ws) != 2 || ws[0] != "auth/service.go" {
		t.Errorf("working set = %v", ws)
	}
}

func TestDebounceCoalesces(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	writes := make(chan *Snapshot, 100)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: 100 * time.Millisecond, OnWrite: func(s *Snapshot) { writes <- s }})
	defer e.Close()
	for i := 0; i < 20; i++ {
		e.Record(Activity{Type: FileEdit, Path: "auth/service.go", ChangedSymbols: []string{"Login"}})
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(600 * time.Millisecond)
	// One write; a loaded machine may stretch a 5 ms sleep past the
	// debounce once or twice, never 20 times.
	if n := len(writes); n < 1 || n > 3 {
		t.Errorf("20 edits 5 ms apart with a 100 ms debounce wrote %d times, want 1 (at most 3)", n)
	}
}

func TestMemoryContinuityAndRestore(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
	e.Record(Activity{Type: FileEdit, Path: "billing/invoice.go", ChangedSymbols: []string{"Render"}})
	e.Message("how is the total computed?")
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The message did not mention Render, but the recent edit carries over.
	if !strings.Contains(snap.Markdown, "Render") || !strings.Contains(strings.Join(snap.Why, ";"), "asked: how is the total computed?") {
		t.Errorf("continuity lost:\n%s\nwhy=%v", snap.Markdown, snap.Why)
	}
	e.Record(Activity{Type: FileClose, Path: "billing/invoice.go"})
	e.Close()
	if e.ActiveFile() != "" {
		t.Errorf("active file after close = %q", e.ActiveFile())
	}

	// A new engine (a restarted server) continues from the store.
	e2 := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
	defer e2.Close()
	if err := e2.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap, err = e2.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(snap.Why, ";"), "edited Render in billing/invoice.go") {
		t.Errorf("restored memory: %v", snap.Why)
	}
}

func TestNoActivityAbstains(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	e := New(Options{Root: root, Store: st, Config: config.Default()})
	defer e.Close()
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Abstained || strings.Contains(snap.Markdown, "##") {
		t.Errorf("no activity produced context:\n%s", snap.Markdown)
	}
}

func TestEditingShowsTheEditedOfSameNamedSymbols(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	src := []byte("package billing\n\ntype A struct{}\n\nfunc (A) Render() string {\n\treturn \"a\"\n}\n\ntype B struct{}\n\nfunc (B) Render() string {\n\t_ = 42\n\treturn \"b\"\n}\n")
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, Buffers: buffers{"billing/invoice.go": src}})
	defer e.Close()
	e.Record(Activity{Type: FileEdit, Path: "billing/invoice.go", ChangedSymbols: []string{"Render"}, Line: 12})
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if it := snap.Sections[0].Items[0]; snap.Sections[0].Title != "Editing" || !strings.Contains(it.Excerpt, "_ = 42") {
		t.Errorf("Editing shows the wrong Render: %+v", snap.Sections[0])
	}
}

func TestRetrievalReusedUntilTheIndexChanges(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
	defer e.Close()
	e.Record(Activity{Type: FileOpen, Path: "billing/invoice.go"})
	first, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The file changes on disk and in the index.
	src := files["billing/invoice.go"] + "\n// Refund reverses an invoice.\nfunc Refund(i Invoice) Invoice { return i }\n"
	if err := os.WriteFile(filepath.Join(root, "billing/invoice.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Update(context.Background(), st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: "billing/invoice.go"}}); err != nil {
		t.Fatal(err)
	}
	same, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first.Markdown, "struct Invoice") || strings.Contains(same.Markdown, "Refund") {
		t.Errorf("without IndexChanged the previous retrieval is reused:\n%s", same.Markdown)
	}
	e.IndexChanged()
	fresh, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fresh.Markdown, "Refund") {
		t.Errorf("after IndexChanged the context does not show the update:\n%s", fresh.Markdown)
	}
}

func TestHoverAndSelectionTriggers(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
	defer e.Close()
	e.Record(Activity{Type: FileOpen, Path: "auth/service.go"})
	e.Record(Activity{Type: SymbolHover, Path: "auth/service.go", Symbol: "issueToken", Line: 9})
	e.Record(Activity{Type: Selection, Path: "billing/invoice.go", Line: 7, Text: "func (i Invoice) Render() string"})
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range snap.Triggers {
		got = append(got, fmt.Sprintf("%s:%s:%d", tr.Type, tr.Query, tr.Line))
	}
	all := strings.Join(got, " ")
	for _, want := range []string{"symbol_hover:issueToken:9", "file_open:billing/invoice.go:7", "selection:Render:0"} {
		if !strings.Contains(all, want) {
			t.Errorf("triggers %v lack %s", got, want)
		}
	}
	// A hover or selection does not take the active file away from the
	// file being worked in.
	if snap.ActiveFile != "auth/service.go" {
		t.Errorf("active file = %q", snap.ActiveFile)
	}
	if !strings.Contains(snap.Markdown, "issueToken") || !strings.Contains(snap.Markdown, "Render") {
		t.Errorf("hovered and selected symbols missing:\n%s", snap.Markdown)
	}
}

// While typing, the previous retrieval is reused, but never with code of an
// open file whose buffer changed since: that file's entities wait for the
// index to take the new buffer in (decision 0095).
func TestReuseLeavesOutChangedBuffers(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	ctx := context.Background()
	const path = "auth/service.go"
	v1 := []byte(files[path] + "\n// Logout ends a session.\nfunc Logout(tok string) bool { return tok != \"\" }\n")
	bufs := buffers{path: v1}
	if _, err := index.Update(ctx, st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: path, Content: v1}}); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, Buffers: bufs})
	defer e.Close()
	e.Record(Activity{Type: FileOpen, Path: path})
	e.Message("how does Login issue a token?")
	first, err := e.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first.Markdown, "func (a *AuthService) Login") {
		t.Fatalf("the open file, indexed as buffered, is not shown:\n%s", first.Markdown)
	}
	// Two lines above Login in the buffer; the index has not caught up.
	v2 := []byte(strings.Replace(string(v1), "// Login returns", "var _ = 1\n\n// Login returns", 1))
	bufs[path] = v2
	reused, err := e.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range reused.Sections {
		for _, it := range s.Items {
			if it.Path == path && s.Title != "Editing" {
				t.Errorf("%s shown from an index behind its buffer (%s, line %d):\n%s", it.QName, s.Title, it.Line, reused.Markdown)
			}
		}
	}
	if _, err := index.Update(ctx, st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: path, Content: v2}}); err != nil {
		t.Fatal(err)
	}
	e.IndexChanged()
	caught, err := e.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(caught.Markdown, "auth/service.go:9") {
		t.Errorf("Login not back at the buffer's line 9 once the index caught up:\n%s", caught.Markdown)
	}
}

// Multibyte text in a buffer and a message: the Editing excerpt cuts a long
// line at 240 bytes and the message at analyzer.MaxMessageBytes, and
// neither cut splits a character, whatever the byte at the cut.
func TestMultibyteCuts(t *testing.T) {
	for _, pad := range []string{"", "x", "xx"} {
		t.Run(fmt.Sprintf("pad=%d", len(pad)), func(t *testing.T) {
			root, st := wstest.Indexed(t, files)
			long := pad + strings.Repeat("日本語のテキスト", 40) // 3 bytes a character
			src := []byte("package billing\n\n// Render prints the invoice.\nfunc Render() string {\n\treturn \"" + long + "\"\n}\n")
			e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, Buffers: buffers{"billing/invoice.go": src}})
			defer e.Close()
			e.Record(Activity{Type: FileEdit, Path: "billing/invoice.go", ChangedSymbols: []string{"Render"}, Line: 5})
			e.Message(pad + "Render " + strings.Repeat("é😀", analyzer.MaxMessageBytes/6+10))
			snap, err := e.Refresh(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.ValidString(snap.Markdown) {
				t.Fatal("the auto-context is not valid UTF-8: a cut split a character")
			}
			md, err := os.ReadFile(MarkdownFile(root))
			if err != nil || !utf8.Valid(md) {
				t.Fatalf("auto-context.md: %v, valid UTF-8 %v", err, utf8.Valid(md))
			}
			if len(snap.Sections) == 0 || snap.Sections[0].Title != "Editing" {
				t.Fatalf("no Editing section:\n%s", snap.Markdown)
			}
			var cut string
			for _, l := range strings.Split(snap.Sections[0].Items[0].Excerpt, "\n") {
				if strings.Contains(l, "日本語") {
					cut = l
				}
			}
			if !strings.HasSuffix(cut, "…") || len(cut) > 240+len("…") || !strings.HasPrefix("\treturn \""+long, strings.TrimSuffix(cut, "…")) {
				t.Errorf("long line not cut at 240 bytes on a character boundary: %d bytes %q", len(cut), cut)
			}
			e.mu.Lock()
			msg := e.memory.Message
			e.mu.Unlock()
			if !utf8.ValidString(msg) || len(msg) > analyzer.MaxMessageBytes || len(msg) < analyzer.MaxMessageBytes-utf8.UTFMax {
				t.Errorf("message cut to %d bytes (valid UTF-8 %v), want just under %d", len(msg), utf8.ValidString(msg), analyzer.MaxMessageBytes)
			}
		})
	}
}
