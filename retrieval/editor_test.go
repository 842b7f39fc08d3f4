package retrieval

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

func TestForEditor(t *testing.T) {
	now := time.Now()
	open := store.Activity{Type: ActFileOpen, Path: "a.go", At: now}
	edit := store.Activity{Type: ActFileEdit, Path: "b.go", Symbols: []string{"Run", "Run", " "}, Line: 9, At: now}
	hover := store.Activity{Type: ActSymbolHover, Path: "a.go", Symbols: []string{"Serve"}, Line: 3, At: now}
	msg := store.Activity{Type: ActPrompt, Text: "  why does Run fail  ", At: now}
	old := store.Activity{Type: ActFileOpen, Path: "old.go", At: now.Add(-EditorWindow - time.Minute)}
	tool := store.Activity{Type: ActTool, Path: "c.go", Text: "Read", At: now}
	w := analyzer.DefaultWeights
	tests := []struct {
		name string
		acts []store.Activity // oldest first
		sw   EditorSwitches
		ws   []string
		want Request
	}{
		{name: "nothing", sw: AllSwitches(), want: Request{EntitiesOnly: true, Limit: EditorLimit, MinRelevance: 0.5}},
		{name: "a message alone is gated", acts: []store.Activity{msg}, sw: AllSwitches(),
			want: Request{Text: "why does Run fail", EntitiesOnly: true, Limit: EditorLimit, MinRelevance: 0.5}},
		{name: "activity is not gated; edits seed; newest first", acts: []store.Activity{open, edit, msg}, sw: AllSwitches(), ws: []string{"z.go", "a.go"},
			want: Request{Text: "why does Run fail", ActiveFiles: []string{"b.go", "z.go", "a.go"}, EntitiesOnly: true, Limit: EditorLimit, MinRelevance: -1,
				Triggers: []analyzer.Trigger{
					{Type: analyzer.TriggerFileEdit, Relevance: w[analyzer.TriggerFileEdit], Query: "b.go"},
					{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerFileEdit], Query: "Run"},
					{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerFileOpen], Query: "a.go"},
				}}},
		{name: "a hover keeps the active file", acts: []store.Activity{edit, hover}, sw: AllSwitches(),
			want: Request{ActiveFiles: []string{"b.go"}, EntitiesOnly: true, Limit: EditorLimit, MinRelevance: -1,
				Triggers: []analyzer.Trigger{
					{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerHover], Query: "Serve", Line: 3},
					{Type: analyzer.TriggerFileEdit, Relevance: w[analyzer.TriggerFileEdit], Query: "b.go"},
					{Type: analyzer.TriggerHover, Relevance: w[analyzer.TriggerFileEdit], Query: "Run"},
				}}},
		{name: "switches off", acts: []store.Activity{open, edit, hover, msg}, sw: EditorSwitches{},
			want: Request{Text: "why does Run fail", EntitiesOnly: true, Limit: EditorLimit, MinRelevance: 0.5,
				DropMessageTriggers: []analyzer.TriggerType{analyzer.TriggerSymbol, analyzer.TriggerImplicit}, NoMessageTerms: true}},
		{name: "past the window", acts: []store.Activity{old}, sw: AllSwitches(), ws: []string{"old.go"},
			want: Request{ActiveFiles: []string{"old.go"}, EntitiesOnly: true, Limit: EditorLimit, MinRelevance: 0.5}},
		{name: "an assistant's tool call opens", acts: []store.Activity{tool}, sw: AllSwitches(),
			want: Request{ActiveFiles: []string{"c.go"}, EntitiesOnly: true, Limit: EditorLimit, MinRelevance: -1,
				Triggers: []analyzer.Trigger{{Type: analyzer.TriggerFileOpen, Relevance: w[analyzer.TriggerFileOpen], Query: "c.go"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m EditorMemory
			for _, a := range tc.acts {
				m.Add(a, tc.sw)
			}
			cur := m.Current(now, tc.sw)
			got := ForEditor(cur, cur.Seeds(tc.ws), tc.sw, 0.5)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ForEditor =\n%+v\nwant\n%+v", got, tc.want)
			}
			// Recall from the recorded activity (newest first) is the
			// memory that took each event as it came.
			rev := slices.Clone(tc.acts)
			slices.Reverse(rev)
			if r := Recall(rev, tc.sw); !reflect.DeepEqual(r, m) {
				t.Errorf("Recall = %+v, want %+v", r, m)
			}
		})
	}
}

func TestEditorMemoryBoundsAndRepeats(t *testing.T) {
	var m EditorMemory
	now := time.Now()
	for i := 0; i < 3*EditorReasons; i++ {
		m.Add(store.Activity{Type: ActFileOpen, Path: strings.Repeat("x", i+1) + ".go", At: now}, AllSwitches())
	}
	if len(m.Reasons) != EditorReasons {
		t.Errorf("%d reasons kept, want %d", len(m.Reasons), EditorReasons)
	}
	hover := store.Activity{Type: ActSymbolHover, Path: "a.go", Symbols: []string{"Serve"}, Line: 3, At: now}
	if !m.Add(hover, AllSwitches()) || m.Add(hover, AllSwitches()) {
		t.Error("a new hover must change the context, the same hover again must not")
	}
	edit := store.Activity{Type: ActFileEdit, Path: "a.go", Symbols: []string{"Serve"}, At: now}
	first := m.Add(edit, AllSwitches())
	again := m.Add(edit, AllSwitches())
	if !first || !again {
		t.Errorf("every edit changes the context, the buffer changed: %v then %v", first, again)
	}
	long := strings.Repeat("é", analyzer.MaxMessageBytes)
	m.Add(store.Activity{Type: ActPrompt, Text: long, At: now}, AllSwitches())
	if len(m.Message) > analyzer.MaxMessageBytes || !strings.HasPrefix(long, m.Message) || !utf8Valid(m.Message) {
		t.Errorf("message cut to %d bytes, not on a rune boundary or too long", len(m.Message))
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestRetrievalBudget(t *testing.T) {
	item := Item{Path: "a.go", Line: 1, Kind: "function", Name: "F", QName: "F", Excerpt: strings.Repeat("x", 3000)}
	tests := []struct {
		budget  int
		editing Section
		want    int
	}{
		{0, Section{}, EditorBudget},
		{4000, Section{}, 4000},
		{4000, Section{Items: []Item{{Path: "a.go", Name: "F", QName: "F"}}}, 4000 - editingBudgetStep},
		{1000, Section{Items: []Item{item, item}}, 500},
	}
	for _, tc := range tests {
		if got := RetrievalBudget(tc.budget, tc.editing); got != tc.want {
			t.Errorf("RetrievalBudget(%d, %d items) = %d, want %d", tc.budget, len(tc.editing.Items), got, tc.want)
		}
	}
}

// bufferOverlay is an editor's open documents.
type bufferOverlay map[string][]byte

func (b bufferOverlay) Open(rel string) ([]byte, bool) { t, ok := b[rel]; return t, ok }

// An open file is rendered from its buffer, and only while the index holds
// that buffer: never the disk's text at the buffer's lines, nor the index's
// entities of an older buffer.
func TestAssembleRendersOpenFilesFromTheirBuffers(t *testing.T) {
	const service = "auth/service.go"
	ctx := context.Background()
	root, st := wstest.Indexed(t, files)
	// Two lines more above Login, unsaved.
	buffer := []byte(strings.Replace(files[service], "// Login verifies", "// ErrLocked is returned for a locked account.\nvar ErrLocked = error(nil)\n\n// Login verifies", 1))
	req := Request{Text: "AuthService Login password check token", Limit: 20, MinRelevance: -1, EntitiesOnly: true}
	opts := ContextOptions{Root: root, MaxTokens: 4000, MaxSections: 10, Overlay: bufferOverlay{service: buffer},
		// A refresher must not bring the disk's text in for an open file.
		Refresh: &index.Fresh{Store: st, Options: index.Options{Root: root, Config: config.Default()}}}
	assemble := func() *Context {
		t.Helper()
		c, _, err := QueryContext(ctx, st, req, opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The index holds the disk's text, not the buffer: left out.
	c := assemble()
	if !slices.Contains(c.Stale, service) || slices.ContainsFunc(itemNames(c), func(n string) bool { return strings.HasPrefix(n, service+"#") }) {
		t.Errorf("an open file the index does not hold is shown: stale %v, items %v", c.Stale, itemNames(c))
	}
	// The editor's queue brings the buffer in: shown, from the buffer.
	if _, err := index.Update(ctx, st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: service, Content: buffer}}); err != nil {
		t.Fatal(err)
	}
	c = assemble()
	var login *Item
	for _, s := range c.Sections {
		for i := range s.Items {
			if s.Items[i].QName == "auth.AuthService.Login" {
				login = &s.Items[i]
			}
		}
	}
	if login == nil || len(c.Stale) > 0 {
		t.Fatalf("Login not shown once the index holds the buffer: stale %v, items %v", c.Stale, itemNames(c))
	}
	lines := strings.Split(string(buffer), "\n")
	if n := strings.Count(login.Excerpt, "\n") + 1; login.Excerpt != strings.Join(lines[login.Line-1:login.Line-1+n], "\n") {
		t.Errorf("Login's excerpt is not the buffer's text at line %d:\n%s", login.Line, login.Excerpt)
	}
	// Closed without saving: the disk is current again, and the index,
	// still holding the buffer, is behind it.
	opts.Overlay, opts.Refresh = nil, nil
	c = assemble()
	if !slices.Contains(c.Stale, service) {
		t.Errorf("the discarded buffer's entities are shown from the index: %v", itemNames(c))
	}
}

func TestWithEditing(t *testing.T) {
	editing := Section{Title: "Editing", Items: []Item{{Path: "a.go", Line: 3, EndLine: 5, Kind: "function", Name: "Run", QName: "pkg.Run", Excerpt: "func Run() {\n\tnew()\n}"}}}
	old := Item{Path: "a.go", Line: 3, Kind: "function", Name: "Run", QName: "pkg.Run", Excerpt: "func Run() {\n\told()\n}"}
	other := Item{Path: "b.go", Line: 1, Kind: "function", Name: "Other", QName: "pkg.Other"}
	for _, it := range []*Item{&old, &other} {
		it.text = RenderItem(it)
	}
	rc := &Context{Sections: []Section{{Title: "Symbol: Run", Items: []Item{old}}, {Title: "Related Code", Items: []Item{other}}}}
	got := WithEditing(editing, rc)
	if strings.Contains(got.Markdown, "old()") || !strings.Contains(got.Markdown, "new()") || !strings.Contains(got.Markdown, "pkg.Other") {
		t.Errorf("an edited entity is shown twice or the rest is lost:\n%s", got.Markdown)
	}
	if titles := []string{got.Sections[0].Title, got.Sections[1].Title}; len(got.Sections) != 2 || titles[0] != "Editing" || titles[1] != "Related Code" {
		t.Errorf("sections %+v", got.Sections)
	}
	if strings.Contains(rc.Sections[0].Items[0].Excerpt, "new") || len(rc.Sections) != 2 {
		t.Error("WithEditing changed its argument")
	}
	abst := WithEditing(Section{Title: "Editing"}, &Context{Abstained: true, Reason: "no results"})
	if !abst.Abstained || abst.Markdown != WrapContext("") {
		t.Errorf("nothing edited and nothing found: %+v", abst)
	}
}

// bufferSet is an editor's open documents for tests, parsed for real.
type bufferSet map[string]string

func (b bufferSet) Buffer(p string) ([]byte, *symbols.File, bool) {
	text, ok := b[p]
	if !ok {
		return nil, nil, false
	}
	f, err := symbols.Extract(context.Background(), p, []byte(text))
	return []byte(text), f, err == nil
}

// The Editing section shows the edited symbols as the buffers hold them:
// a method among same-named ones by the edited line, nothing for a file
// that is not open, at most EditingItems.
func TestEditing(t *testing.T) {
	src := "package p\n\ntype A struct{}\n\nfunc (A) Run() int {\n\treturn 1\n}\n\ntype B struct{}\n\nfunc (B) Run() int {\n\treturn 2\n}\n"
	bufs := bufferSet{"p/p.go": src, "q/q.go": "package q\n\nfunc C() {}\n\nfunc D() {}\n\nfunc E() {}\n"}
	edit := func(path string, line int, syms ...string) Reason {
		return Reason{Edit: true, Path: path, Line: line, Symbols: syms}
	}
	tests := []struct {
		name    string
		reasons []Reason
		want    []string // QName: excerpt's first line
	}{
		{"method by its line", []Reason{edit("p/p.go", 12, "Run")}, []string{"p.B.Run: func (B) Run() int {"}},
		{"the other one", []Reason{edit("p/p.go", 6, "Run")}, []string{"p.A.Run: func (A) Run() int {"}},
		{"not open", []Reason{edit("q/q.go", 1, "Run")}, nil},
		{"not an edit", []Reason{{Path: "p/p.go", Symbols: []string{"Run"}}}, nil},
		{"once each", []Reason{edit("p/p.go", 6, "A", "Run", "Run"), edit("p/p.go", 6, "Run")}, []string{"p.A: type A struct{}", "p.A.Run: func (A) Run() int {"}},
		{"at most EditingItems", []Reason{edit("q/q.go", 1, "C", "D", "E"), edit("p/p.go", 6, "A", "B")}, []string{"q.C: func C() {}", "q.D: func D() {}", "q.E: func E() {}", "p.A: type A struct{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := Editing(EditorMemory{Reasons: tt.reasons}, bufs)
			var got []string
			for _, it := range sec.Items {
				got = append(got, it.QName+": "+strings.SplitN(it.Excerpt, "\n", 2)[0])
			}
			if sec.Title != "Editing" || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Editing = %q %q, want %q", sec.Title, got, tt.want)
			}
		})
	}
}
