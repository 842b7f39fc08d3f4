package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/store"
)

func TestNewest(t *testing.T) {
	stats := func(mtimes ...int64) []store.FileStat {
		var out []store.FileStat
		for i, m := range mtimes {
			out = append(out, store.FileStat{Path: string(rune('a' + i)), MTime: m})
		}
		return out
	}
	tests := []struct {
		name  string
		stats []store.FileStat
		n     int
		want  string
	}{
		{"none", nil, 3, ""},
		{"fewer than n", stats(5, 9), 3, "ba"},
		{"n newest, newest first", stats(1, 7, 3, 9, 5, 8), 3, "dfb"},
		{"ties keep the first seen", stats(4, 4, 4, 1), 2, "ab"},
		{"newest last", stats(1, 2, 3, 4, 5), 2, "ed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			for _, f := range newest(tt.stats, tt.n) {
				got += f.Path
			}
			if got != tt.want {
				t.Errorf("newest = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEarlyParse checks what the early parse hands the run: the changed
// file among the most recently modified before anything is offered, an
// offered file (new or changed) after, each against its stored row.
func TestEarlyParse(t *testing.T) {
	root := testWorkspace(t, map[string]string{
		"go.mod":   "module ex\n",
		"app/a.go": aGo,
		"app/b.go": bGo,
		"old/o.go": "package old\n\nfunc Old() {}\n",
	})
	// o.go is the oldest file, so not among the recent ones below.
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "old", "o.go"), past, past); err != nil {
		t.Fatal(err)
	}
	_, st := run(t, root, config.Default())
	ctx := context.Background()
	stats, err := st.FileStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "app/a.go", aGo+"\nfunc Added() {}\n")
	write(t, root, "old/o.go", "package old\n\nfunc Old() {}\n\nfunc Older() {}\n")
	write(t, root, "app/new.go", "package app\n\nfunc New() {}\n")

	opts := Options{Root: root, Config: config.Default()}
	e := startEarly(ctx, st, opts, newest(stats, 2))
	first := <-e.out
	if first.cand.rel != "app/a.go" || first.old == nil || first.old.Path != "app/a.go" {
		t.Fatalf("first early result: %s, old %+v; want app/a.go against its stored row", first.cand.rel, first.old)
	}
	if !slices.ContainsFunc(first.fd.Entities, func(e store.Entity) bool { return e.Name == "Added" }) {
		t.Errorf("app/a.go parsed without the added function: %+v", first.fd.Entities)
	}
	fi, err := os.Stat(filepath.Join(root, "app", "a.go"))
	if err != nil {
		t.Fatal(err)
	}
	if first.cand.size != fi.Size() || first.cand.mtime != fi.ModTime().UnixNano() {
		t.Errorf("candidate stat %d/%d, file %d/%d", first.cand.size, first.cand.mtime, fi.Size(), fi.ModTime().UnixNano())
	}
	// The walk offers a.go again (parsed already), o.go and the new file.
	for _, rel := range []string{"app/a.go", "old/o.go", "app/new.go"} {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		e.offer(candidate{rel: rel, lang: "go", size: fi.Size(), mtime: fi.ModTime().UnixNano()}, rel != "app/new.go")
	}
	got := map[string]*result{}
	for len(got) < 2 {
		r := <-e.out
		got[r.cand.rel] = r
	}
	if o := got["old/o.go"]; o == nil || o.old == nil || o.old.Path != "old/o.go" {
		t.Errorf("old/o.go: %+v", o)
	}
	if n := got["app/new.go"]; n == nil || n.old != nil {
		t.Errorf("app/new.go: %+v", n)
	}
	results := e.finish()
	if len(results) != 0 {
		t.Errorf("results after those taken: %v; a.go was parsed twice?", results)
	}
}

func TestUseEarly(t *testing.T) {
	old := &store.File{ID: 1, Path: "a.go", Hash: "h1"}
	cand := candidate{rel: "a.go", size: 10, mtime: 100}
	tests := []struct {
		name    string
		early   result
		old     *store.File
		applies bool
	}{
		{"same stat, same row", result{job: job{cand: cand, old: old}}, old, true},
		{"new file both times", result{job: job{cand: cand}}, nil, true},
		{"changed again: mtime", result{job: job{cand: candidate{rel: "a.go", size: 10, mtime: 99}, old: old}}, old, false},
		{"changed again: size", result{job: job{cand: candidate{rel: "a.go", size: 9, mtime: 100}, old: old}}, old, false},
		{"another stored row", result{job: job{cand: cand, old: &store.File{ID: 1, Path: "a.go", Hash: "h0"}}}, old, false},
		{"stored since", result{job: job{cand: cand}}, old, false},
		{"deleted since", result{job: job{cand: cand, old: old}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.early
			work := []job{{cand: cand, old: tt.old}, {cand: candidate{rel: "b.go", size: 10, mtime: 100}}}
			useEarly(work, map[string]*result{"a.go": &r})
			if got := work[0].parsed == &r; got != tt.applies {
				t.Errorf("early result used: %v, want %v", got, tt.applies)
			}
			if work[1].parsed != nil {
				t.Errorf("a result for b.go, which has none")
			}
		})
	}
}
