package engine

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/wstest"
)

func TestSettingsTriggers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		triggers func(*Triggers)
		absent   []string // why entries that must not appear
		present  []string
	}{
		{"all on", func(*Triggers) {}, nil, []string{"opened auth/service.go", "edited Render in billing/invoice.go", "hovered issueToken", "viewing billing/invoice.go"}},
		{"fileOpen off", func(t *Triggers) { t.FileOpen = false }, []string{"opened auth/service.go"}, []string{"edited Render", "hovered issueToken"}},
		{"fileEdit off", func(t *Triggers) { t.FileEdit = false }, []string{"edited Render"}, []string{"opened auth/service.go", "hovered issueToken"}},
		{"selection off", func(t *Triggers) { t.Selection = false }, []string{"hovered issueToken", "viewing billing/invoice.go"}, []string{"opened auth/service.go", "edited Render"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, st := wstest.Indexed(t, files)
			set := DefaultSettings()
			tc.triggers(&set.Triggers)
			e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, Settings: &set})
			defer e.Close()
			e.Record(Activity{Type: FileOpen, Path: "auth/service.go"})
			e.Record(Activity{Type: FileEdit, Path: "billing/invoice.go", ChangedSymbols: []string{"Render"}})
			e.Record(Activity{Type: SymbolHover, Path: "auth/service.go", Symbol: "issueToken", Line: 9})
			e.Record(Activity{Type: VisibleRange, Path: "billing/invoice.go", Line: 4})
			snap, err := e.Refresh(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			why := strings.Join(snap.Why, "; ")
			for _, w := range tc.absent {
				if strings.Contains(why, w) {
					t.Errorf("why %q has %q", why, w)
				}
			}
			for _, w := range tc.present {
				if !strings.Contains(why, w) {
					t.Errorf("why %q lacks %q", why, w)
				}
			}
		})
	}
}

func TestVisibleRangeIsWeakerThanSelection(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour})
	defer e.Close()
	e.Record(Activity{Type: VisibleRange, Path: "billing/invoice.go", Line: 7})
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Triggers) != 1 || snap.Triggers[0].Line != 7 || snap.Triggers[0].Relevance >= analyzer.DefaultWeights[analyzer.TriggerSelection] {
		t.Errorf("visible_range triggers = %+v, want one at line 7 weaker than a selection", snap.Triggers)
	}
	if !strings.Contains(snap.Markdown, "Render") {
		t.Errorf("the code in view is not in the context:\n%s", snap.Markdown)
	}
	// Scrolling further in the same file replaces the view, not piles up.
	e.Record(Activity{Type: VisibleRange, Path: "billing/invoice.go", Line: 3})
	if snap, _ = e.Refresh(context.Background()); len(snap.Why) != 1 {
		t.Errorf("two views of one file: why = %v", snap.Why)
	}
}

func TestSettingsBudgetGateAndEnabled(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	writes := make(chan *Snapshot, 16)
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, OnWrite: func(s *Snapshot) { writes <- s }})
	defer e.Close()
	e.Message("how does AuthService Login issue a token?")
	full, err := e.Refresh(context.Background())
	if err != nil || full.Abstained {
		t.Fatalf("message context: %v %+v", err, full)
	}
	<-writes

	// A tiny budget makes the context smaller.
	set := DefaultSettings()
	set.MaxTokens = 100
	e.SetSettings(set)
	small, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if small.Tokens >= full.Tokens {
		t.Errorf("maxTokens 100: %d tokens, no fewer than the default's %d", small.Tokens, full.Tokens)
	}
	<-writes

	// The gate judges a message alone: a vague one passes a gate of 0
	// and not one of 0.99. Symbol mentions and implicit queries off leave
	// nothing to look up in the first message.
	e.Message("where do we check things")
	for _, gate := range []float64{0, 0.99} {
		set = DefaultSettings()
		set.MinRelevance = gate
		e.SetSettings(set)
		if snap, _ := e.Refresh(context.Background()); snap.Abstained != (gate > 0.5) {
			t.Errorf("minRelevance %g: abstained = %v (%s)", gate, snap.Abstained, snap.Reason)
		}
		<-writes
	}
	e.Message("how does AuthService Login issue a token?")
	set = DefaultSettings()
	set.Triggers.SymbolMention, set.Triggers.ImplicitQueries = false, false
	e.SetSettings(set)
	if snap, _ := e.Refresh(context.Background()); !snap.Abstained {
		t.Errorf("message triggers off did not abstain:\n%s", snap.Markdown)
	}
	<-writes

	// Disabled: computed on request, files left alone.
	before, err := os.ReadFile(MarkdownFile(root))
	if err != nil {
		t.Fatal(err)
	}
	set = DefaultSettings()
	set.Enabled = false
	e.SetSettings(set)
	e.Record(Activity{Type: FileOpen, Path: "billing/invoice.go"})
	if _, err := e.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(MarkdownFile(root))
	if string(after) != string(before) || len(writes) != 0 {
		t.Error("disabled engine rewrote the auto-context")
	}
}

func TestRepeatedHoverDoesNotRewrite(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	writes := make(chan *Snapshot, 16)
	e := New(Options{Root: root, Store: st, Config: config.Default(), OnWrite: func(s *Snapshot) { writes <- s }})
	defer e.Close()
	hover := Activity{Type: SymbolHover, Path: "auth/service.go", Symbol: "issueToken", Line: 9}
	e.Record(hover)
	select {
	case <-writes:
	case <-time.After(10 * time.Second):
		t.Fatal("no write after the first hover")
	}
	e.Record(hover)
	e.Record(hover)
	select {
	case s := <-writes:
		t.Errorf("hovering the same symbol again rewrote the context (why %v)", s.Why)
	case <-time.After(300 * time.Millisecond):
	}
	// Another symbol does.
	e.Record(Activity{Type: SymbolHover, Path: "auth/service.go", Symbol: "Login", Line: 7})
	select {
	case <-writes:
	case <-time.After(10 * time.Second):
		t.Fatal("no write after hovering another symbol")
	}
}

func TestAutoContextMarkdownRenders(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	edited := []byte(files["auth/service.go"] + "\nfunc Logout() {}\n")
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: time.Hour, Buffers: buffers{"auth/service.go": edited}})
	defer e.Close()
	e.Record(Activity{Type: FileEdit, Path: "auth/service.go", ChangedSymbols: []string{"Logout"}})
	snap, err := e.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// CommonMark: an HTML block (the tag) ends only at a blank line, so the
	// heading must follow one, and the closing tag must start its own block.
	if !strings.Contains(snap.Markdown, "<auto-context>\n\n## Editing\n") || !strings.HasSuffix(snap.Markdown, "\n\n</auto-context>\n") {
		t.Errorf("auto-context markdown lacks blank lines around its body:\n%s", snap.Markdown)
	}
	if strings.Contains(snap.Markdown, "\n\n\n") {
		t.Errorf("auto-context markdown has two blank lines in a row:\n%q", snap.Markdown)
	}
}

func TestHoverBurstCostsOneRewrite(t *testing.T) {
	root, st := wstest.Indexed(t, files)
	writes := make(chan *Snapshot, 16)
	e := New(Options{Root: root, Store: st, Config: config.Default(), OnWrite: func(s *Snapshot) { writes <- s }})
	defer e.Close()
	for _, sym := range []string{"Login", "issueToken", "AuthService", "Invoice", "Render"} {
		e.Record(Activity{Type: SymbolHover, Path: "auth/service.go", Symbol: sym, Line: 1})
	}
	select {
	case s := <-writes:
		if !strings.Contains(strings.Join(s.Why, ";"), "hovered Render") {
			t.Errorf("the write after the burst lacks the last hover: %v", s.Why)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no write after a burst of hovers")
	}
	time.Sleep(300 * time.Millisecond)
	// A loaded machine may split the burst once.
	if n := len(writes); n > 1 {
		t.Errorf("five hovers in a burst wrote %d more times", n)
	}
	// An edit is written at once (debounce 0), without the hover delay.
	e.Record(Activity{Type: FileEdit, Path: "auth/service.go", ChangedSymbols: []string{"Login"}})
	select {
	case <-writes:
	case <-time.After(10 * time.Second):
		t.Fatal("no write after an edit")
	}
}
