package think

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
)

// newStore opens a thinking store over a real memory store in temporary
// directories.
func newStore(t *testing.T) (*Store, *memory.Store) {
	t.Helper()
	ms, err := memory.Open(memory.Options{Root: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return New(ms, nil), ms
}

func TestDocumentLifecycle(t *testing.T) {
	ctx := context.Background()
	s, ms := newStore(t)
	if err := ms.Write(ctx, &memory.Memory{Slug: "decision-use-redis", Type: memory.Decision, Title: "Use Redis",
		Tags: []string{"cache"}, Scope: memory.Project, Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := ms.Write(ctx, &memory.Memory{Slug: "gotcha-ttl-drift", Type: memory.Gotcha, Title: "TTL drift",
		Tags: []string{"cache"}, Scope: memory.Project, Content: "x"}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Create(ctx, memory.Project, "Redis or PostgreSQL for caching?", []string{"decision-use-redis"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.ID, "think-") {
		t.Errorf("id %q", d.ID)
	}
	tricky := "line one\n---\nnot frontmatter: [x]\n  indented\n# heading"
	for _, k := range []Kind{Thought, Counter, Branch} {
		if _, _, err := s.Add(ctx, memory.Project, "", k, tricky, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, memory.Project, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Thoughts) != 3 || got.Thoughts[1].Kind != Counter || got.Thoughts[2].Text != tricky {
		t.Fatalf("thoughts after round trip: %+v", got.Thoughts)
	}
	// The document is not a memory: the store's scan does not see it.
	mems, skipped, err := ms.Scan(ctx, memory.Project)
	if err != nil || len(mems) != 2 || len(skipped) != 0 {
		t.Errorf("memory scan sees %d memories, %d skipped, %v", len(mems), len(skipped), err)
	}
	// A second document becomes current; use switches back.
	d2, err := s.Create(ctx, memory.Project, "Second topic", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := s.Current(memory.Project); cur != d2.ID {
		t.Errorf("current %q, want %q", cur, d2.ID)
	}
	if err := s.Use(ctx, memory.Project, d.ID); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(ctx, memory.Project)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, l := range list {
		if l.Current != (l.ID == d.ID) {
			t.Errorf("current flag of %s: %v", l.ID, l.Current)
		}
	}
	// Conclude with promotion: a decision linked to the referenced memory
	// and to the slug a thought mentions.
	if _, _, err := s.Add(ctx, memory.Project, "", Counter, "Remember gotcha-ttl-drift and decision-not-there.", "", nil); err != nil {
		t.Fatal(err)
	}
	done, m, err := s.Conclude(ctx, memory.Project, "", "Use Redis with short TTLs.", &Promotion{Type: memory.Decision})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != Concluded || done.Promoted != m.Slug {
		t.Errorf("concluded doc %+v", done)
	}
	saved, err := ms.Get(ctx, memory.Project, m.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Type != memory.Decision || !strings.HasPrefix(saved.Content, "Use Redis with short TTLs.") {
		t.Errorf("promoted memory %+v", saved)
	}
	g, _ := ms.Graph(memory.Project)
	for _, want := range []string{"decision-use-redis", "gotcha-ttl-drift"} {
		if !g.Has(m.Slug, want, "") && !contains(g.Neighbours(m.Slug), want) {
			t.Errorf("promoted memory not linked to %s: %v", want, g.Neighbours(m.Slug))
		}
	}
	if contains(saved.Links, "decision-not-there") {
		t.Errorf("linked to a memory that does not exist: %v", saved.Links)
	}
	if cur, _ := s.Current(memory.Project); cur != "" {
		t.Errorf("concluded document still current: %q", cur)
	}
	if _, _, err := s.Add(ctx, memory.Project, d.ID, Thought, "late", "", nil); !errors.Is(err, ErrConcluded) {
		t.Errorf("add to concluded: %v", err)
	}
	// Delete the current document: the next add says so.
	if err := s.Use(ctx, memory.Project, d2.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, memory.Project, d2.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Add(ctx, memory.Project, "", Thought, "x", "", nil); !errors.Is(err, ErrNoCurrent) {
		t.Errorf("add after deleting current: %v", err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	d, err := s.Create(ctx, memory.Project, "topic", nil)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(d.Path)
	big := strings.Repeat("a", 1<<20)
	cases := []struct {
		name string
		run  func() error
	}{
		{"1 MB topic", func() error { _, err := s.Create(ctx, memory.Project, big, nil); return err }},
		{"1 MB thought", func() error { _, _, err := s.Add(ctx, memory.Project, "", Thought, big, "", nil); return err }},
		{"not UTF-8", func() error { _, _, err := s.Add(ctx, memory.Project, "", Thought, "a\xffb", "", nil); return err }},
		{"empty", func() error { _, _, err := s.Add(ctx, memory.Project, "", Thought, "  \n", "", nil); return err }},
		{"escaping id", func() error { return s.Use(ctx, memory.Project, "../../etc/passwd") }},
		{"escaping show", func() error { _, err := s.Get(ctx, memory.Project, "../x"); return err }},
		{"escaping delete", func() error { return s.Delete(ctx, memory.Project, "..") }},
		{"bad ref", func() error {
			_, _, err := s.Add(ctx, memory.Project, "", Thought, "x", "", []string{"../a"})
			return err
		}},
		{"bad promote type", func() error {
			_, _, err := s.Conclude(ctx, memory.Project, "", "done", &Promotion{Type: "opinion"})
			return err
		}},
		{"promoted slug escapes", func() error {
			_, _, err := s.Conclude(ctx, memory.Project, "", "done", &Promotion{Type: memory.Decision, Slug: "../../x"})
			return err
		}},
		{"1 MB conclusion", func() error { _, _, err := s.Conclude(ctx, memory.Project, "", big, nil); return err }},
		{"unknown id", func() error { return s.Use(ctx, memory.Project, "think-nope") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); err == nil {
				t.Fatal("accepted")
			}
			after, _ := os.ReadFile(d.Path)
			if string(after) != string(before) {
				t.Error("document changed")
			}
			ents, _ := os.ReadDir(filepath.Dir(d.Path))
			if len(ents) != 2 { // the document and current
				t.Errorf("files in .thinking: %d", len(ents))
			}
		})
	}
}

// TestConcurrentAdds: many processes' worth of adds at once through
// separate stores lose nothing (each takes the scope's file lock).
func TestConcurrentAdds(t *testing.T) {
	ctx := context.Background()
	root, home := t.TempDir(), t.TempDir()
	open := func() *Store {
		ms, err := memory.Open(memory.Options{Root: root, Home: home})
		if err != nil {
			t.Fatal(err)
		}
		return New(ms, nil)
	}
	if _, err := open().Create(ctx, memory.Project, "race", nil); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, _, err := open().Add(cctx, memory.Project, "", Thought, "thought", "", nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	d, err := open().Get(ctx, memory.Project, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Thoughts) != n {
		t.Fatalf("%d thoughts, want %d", len(d.Thoughts), n)
	}
	for i, e := range d.Thoughts {
		if e.N != i+1 {
			t.Fatalf("thought %d numbered %d", i, e.N)
		}
	}
}
