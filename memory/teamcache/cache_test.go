package teamcache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
)

func mem(slug string, updated time.Time) *memory.Memory {
	return &memory.Memory{Slug: slug, Type: memory.Learning, Title: "About " + slug, Tags: []string{"x"},
		Created: updated, Updated: updated, Content: "Body of " + slug + ".\n", Scope: memory.Enterprise}
}

func TestRefreshIsBoundedAndPrunes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mems := []*memory.Memory{mem("learning-old", t0), mem("learning-mid", t0.Add(time.Hour)), mem("learning-new", t0.Add(2*time.Hour))}
	g := memory.NewGraph()
	g.Link("learning-old", "learning-new", "builds-on", t0)
	g.Link("learning-mid", "learning-new", "", t0)
	st, err := refresh(ctx, dir, mems, g, t0.Add(3*time.Hour), 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 2 || st.Dropped != 1 {
		t.Fatalf("state = %+v, want 2 kept and 1 dropped", st)
	}
	names := func() []string {
		var out []string
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if filepath.Ext(e.Name()) == ".md" {
				out = append(out, e.Name())
			}
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"learning-mid.md", "learning-new.md"}) {
		t.Fatalf("cache holds %v, want the two most recently updated", got)
	}
	// The cache is a file scope: a memory store reads it, graph and all.
	data, _ := os.ReadFile(filepath.Join(dir, "graph.json"))
	cg, err := memory.ParseGraph(data)
	if err != nil || !cg.Has("learning-new", "learning-mid", "relates-to") || len(cg.Adj["learning-old"]) != 0 {
		t.Fatalf("cached graph = %v, %v", cg.Adj, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "learning-new.md"))
	if m, err := memory.Parse(b, filepath.Join(dir, "learning-new.md"), memory.Enterprise, t0.Add(4*time.Hour)); err != nil || len(m.Problems) > 0 {
		t.Fatalf("cached file does not parse cleanly: %v %v", err, m.Problems)
	}
	// A memory deleted in the database leaves the cache; an unchanged
	// file is not rewritten.
	before, _ := os.Stat(filepath.Join(dir, "learning-new.md"))
	time.Sleep(10 * time.Millisecond)
	if _, err := refresh(ctx, dir, mems[2:], memory.NewGraph(), t0.Add(5*time.Hour), 2); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"learning-new.md"}) {
		t.Fatalf("after a delete the cache holds %v", got)
	}
	if after, _ := os.Stat(filepath.Join(dir, "learning-new.md")); !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("an unchanged memory was rewritten")
	}
	// A refresh that changes nothing leaves the directory untouched (its
	// time is what readers' syncs compare).
	dirBefore, _ := os.Stat(dir)
	time.Sleep(10 * time.Millisecond)
	if _, err := refresh(ctx, dir, mems[2:], memory.NewGraph(), t0.Add(6*time.Hour), 2); err != nil {
		t.Fatal(err)
	}
	if dirAfter, _ := os.Stat(dir); !dirAfter.ModTime().Equal(dirBefore.ModTime()) {
		t.Fatal("a refresh with nothing new changed the directory")
	}
	if st, _ := ReadState(dir); !st.Synced.Equal(t0.Add(6 * time.Hour)) {
		t.Fatalf("state not recorded: %+v", st)
	}
}

func TestStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	now := time.Now()
	if st, _ := ReadState(dir); !st.Stale(now) {
		t.Fatal("a cache never refreshed is not stale")
	}
	if _, err := refresh(ctx, dir, nil, memory.NewGraph(), now, 10); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		at    time.Time
		fail  bool
		stale bool
	}{
		{"just refreshed", now.Add(time.Minute), false, false},
		{"older than StaleAfter", now.Add(StaleAfter + time.Minute), false, true},
		{"refresh failed since", now.Add(time.Minute), true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fail {
				if err := MarkFailed(ctx, dir, errors.New("unreachable"), now.Add(time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			st, err := ReadState(dir)
			if err != nil || st.Stale(tt.at) != tt.stale {
				t.Fatalf("Stale = %v (%+v, %v), want %v", st.Stale(tt.at), st, err, tt.stale)
			}
		})
	}
}
