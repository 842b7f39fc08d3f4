package collect

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/store"
)

func newStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	root := t.TempDir()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, root
}

func TestConsumeOrderDedupBudget(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	c := New(st, "s1")
	c.Register(ctx,
		Entry{Source: "readme", ID: "r", Content: "low", Priority: Low},
		Entry{Source: "rules", ID: "a", Content: "normal-old", Priority: Normal},
		Entry{Source: "keyword", ID: "k", Content: "high", Priority: High},
		Entry{Source: "rules", ID: "a", Content: "normal", Priority: Normal}, // overwrites
		Entry{Source: "safety", ID: "s", Content: "critical", Priority: Critical},
	)
	res, err := c.Consume(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join([]string{"critical", "high", "normal", "low"}, Separator); res.Merged != want {
		t.Fatalf("merged %q, want %q", res.Merged, want)
	}
	// Consumed: nothing pending.
	if res, _ := c.Consume(ctx, 1000); res.Merged != "" {
		t.Fatalf("second consume returned %q", res.Merged)
	}
	// Same content again: deduplicated and counted; changed content passes.
	c.Register(ctx, Entry{Source: "rules", ID: "a", Content: "normal"}, Entry{Source: "keyword", ID: "k", Content: "high v2", Priority: High})
	res, _ = c.Consume(ctx, 1000)
	if res.Merged != "high v2" || res.DedupHits != 1 {
		t.Fatalf("dedup: %+v", res)
	}
	_, hits, _ := c.Stats(ctx)
	if hits != 1 {
		t.Fatalf("dedup hits %d", hits)
	}
	// Budget: what does not fit is dropped, not cut.
	c.Register(ctx, Entry{Source: "x", ID: "1", Content: strings.Repeat("a", 60)}, Entry{Source: "x", ID: "2", Content: strings.Repeat("b", 60)})
	res, _ = c.Consume(ctx, 100)
	if len(res.Merged) != 60 || res.Dropped != 1 {
		t.Fatalf("budget: %d chars, dropped %d", len(res.Merged), res.Dropped)
	}
	// Sessions are separate.
	New(st, "s2").Register(ctx, Entry{Source: "rules", ID: "a", Content: "normal"})
	if res, _ := New(st, "s2").Consume(ctx, 1000); res.Merged != "normal" {
		t.Fatalf("other session deduplicated: %+v", res)
	}
}

func TestConcurrentConsumersInjectOnce(t *testing.T) {
	ctx := context.Background()
	st, root := newStore(t)
	var wg sync.WaitGroup
	results := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each "process" has its own connection pool.
			s, err := store.Open(ctx, root, store.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			c := New(s, "shared")
			if err := c.Register(ctx, Entry{Source: "code", ID: "e1", Content: "entity one"}); err != nil {
				t.Error(err)
				return
			}
			res, err := c.Consume(ctx, 1000)
			if err != nil {
				t.Error(err)
				return
			}
			results <- res.Merged
		}()
	}
	wg.Wait()
	close(results)
	n := 0
	for r := range results {
		if r != "" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("entry injected %d times across 20 concurrent consumers, want 1", n)
	}
	_ = st
}

// A source's entries keep the order it registered them in (by relevance),
// not the order of their keys.
func TestConsumeKeepsRegistrationOrder(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	c := New(st, "order")
	c.Register(ctx,
		Entry{Source: "code", ID: "z.go#Best", Content: "best", Priority: Normal},
		Entry{Source: "code", ID: "a.go#Second", Content: "second", Priority: Normal},
		Entry{Source: "code", ID: "m.go#Third", Content: "third", Priority: Normal},
	)
	res, err := c.Consume(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join([]string{"best", "second", "third"}, Separator); res.Merged != want {
		t.Fatalf("merged %q, want %q", res.Merged, want)
	}
}

// An entry whose fingerprint was injected is not injected again when only
// its rendering moved (a line number); a changed fingerprint is.
func TestFingerprintDedup(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	c := New(st, "fp")
	round := func(content, fp string) Result {
		t.Helper()
		if err := c.Register(ctx, Entry{Source: "code", ID: "a.go#F", Content: content, Fingerprint: fp}); err != nil {
			t.Fatal(err)
		}
		res, err := c.Consume(ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := round("F — a.go:10\nbody", "body"); len(res.Entries) != 1 {
		t.Fatalf("first injection: %+v", res)
	}
	if res := round("F — a.go:14\nbody", "body"); len(res.Entries) != 0 || res.DedupHits != 1 {
		t.Fatalf("moved entry injected again: %+v", res)
	}
	if res := round("F — a.go:14\nnew body", "new body"); len(res.Entries) != 1 {
		t.Fatalf("changed entry not injected: %+v", res)
	}
	if res := round("F — a.go:14\nnew body", "new body"); len(res.Entries) != 0 || res.Entries != nil && res.Entries[0].Metadata[fingerprintKey] != nil {
		t.Fatalf("fingerprint leaked or re-injected: %+v", res)
	}
}

// ConsumePrompt records the prompt with exactly the entries it injected (not
// those already given, nor those over the budget), with the file, section
// and relevance of their metadata.
func TestConsumePromptRecordsWhatWasInjected(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	c := New(st, "s1")
	code := func(id, content string, rel float64) Entry {
		path, _, _ := strings.Cut(id, "#")
		return Entry{Source: "code", ID: id, Content: content, Metadata: map[string]any{"path": path, "section": "Symbol", "relevance": rel}}
	}
	c.Register(ctx, code("a.go#A", "func A()", 0.9))
	if _, err := c.ConsumePrompt(ctx, 1000, "first"); err != nil {
		t.Fatal(err)
	}
	c.Register(ctx, code("a.go#A", "func A()", 0.9), code("b.go#B", "func B()", 0.4),
		Entry{Source: "memory", ID: "m", Content: "a gotcha"}, code("c.go#C", strings.Repeat("c", 990), 0.1))
	res, err := c.ConsumePrompt(ctx, 1000, "second")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 2 || res.DedupHits != 1 || res.Dropped != 1 {
		t.Fatalf("consumed %+v", res)
	}
	prompts, err := st.SessionPrompts(ctx, "s1")
	if err != nil || len(prompts) != 2 {
		t.Fatalf("history: %+v, %v", prompts, err)
	}
	var got []string
	for _, p := range prompts {
		for _, in := range p.Injected {
			got = append(got, fmt.Sprintf("%d %s %s:%s %s %s %.1f", p.Ordinal, p.Text, in.Source, in.ID, in.Path, in.Section, in.Relevance))
		}
	}
	want := []string{"1 first code:a.go#A a.go Symbol 0.9", "2 second code:b.go#B b.go Symbol 0.4", "2 second memory:m   0.0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Consume records nothing.
	c.Register(ctx, code("d.go#D", "func D()", 0.5))
	c.Consume(ctx, 1000)
	if prompts, _ := st.SessionPrompts(ctx, "s1"); len(prompts) != 2 {
		t.Errorf("Consume recorded a prompt: %d", len(prompts))
	}
}

// A failed write of the prompt history never costs the injection: the
// entries are merged and recorded as injected, and the failure reported.
func TestConsumePromptInjectsWhenHistoryFails(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	if _, err := st.DB().Exec(`DROP TABLE state.prompt_injections`); err != nil {
		t.Fatal(err)
	}
	c := New(st, "s1")
	e := Entry{Source: "code", ID: "a.go#A", Content: "func A()", Metadata: map[string]any{"path": "a.go"}}
	c.Register(ctx, e)
	res, err := c.ConsumePrompt(ctx, 1000, "why")
	if err != nil || res.Merged != "func A()" || res.HistoryErr == nil {
		t.Fatalf("ConsumePrompt: %+v, %v", res, err)
	}
	if !c.WasInjected(ctx, e) {
		t.Error("the entry was not recorded as injected")
	}
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM prompts`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d prompts kept of a failed history write (%v)", n, err)
	}
}

// The keys an entry covers count as injected once the entry is.
func TestCoveredKeysAreInjected(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	c := New(st, "covers")
	if err := c.Register(ctx, Entry{Source: "code", ID: "related:a.go", Content: "uses: X, Y", Covers: []string{"code:m|X", "code:m|Y"}}); err != nil {
		t.Fatal(err)
	}
	if c.Injected(ctx, "code:m|X") {
		t.Fatal("covered before it was injected")
	}
	res, err := c.Consume(ctx, 1000)
	if err != nil || len(res.Entries) != 1 {
		t.Fatalf("consume: %v %+v", err, res)
	}
	if _, leaked := res.Entries[0].Metadata[coversKey]; leaked {
		t.Error("covers leaked into the metadata")
	}
	for _, k := range []string{"code:m|X", "code:m|Y"} {
		if !c.Injected(ctx, k) {
			t.Errorf("%s not injected", k)
		}
	}
	if c.Injected(ctx, "code:m|Z") {
		t.Error("an uncovered key counts as injected")
	}
}
