package sources

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// relatedAll is what related computed before it looked entities up in
// batches: every edge's far end loaded at once, then the same selection.
func relatedAll(byID map[int64]store.Entity, edges []store.Edge, self string, pick func(store.Edge) int64) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range edges {
		ent, ok := byID[pick(e)]
		if !ok || ent.Path == self {
			continue
		}
		s := fmt.Sprintf("%s (%s:%d)", ent.QName, ent.Path, ent.StartLine)
		if !seen[s] && len(out) < 10 {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestRelatedMatchesLoadingAll checks the batched neighbour lookup against
// loading every neighbour, on a file with more edges than a batch, most of
// them to itself, and repeated neighbours in other files.
// hubWorkspace indexes a workspace whose hub.go has more edges than a
// batch of related, most of them to itself, and repeated neighbours in
// other files.
func hubWorkspace(tb testing.TB) *store.Store {
	tb.Helper()
	ctx := context.Background()
	root := tb.TempDir()
	var hub, other, user strings.Builder
	hub.WriteString("package hub\n\n")
	for i := range 60 {
		// A chain of calls inside the file, and every third function also
		// calls out to other.go (often the same function again).
		fmt.Fprintf(&hub, "func H%d() {\n\tH%d()\n", i, i+1)
		if i%3 == 0 {
			fmt.Fprintf(&hub, "\tE%d()\n", i%7)
		}
		hub.WriteString("}\n\n")
	}
	hub.WriteString("func H60() {}\n")
	other.WriteString("package hub\n\n")
	for i := range 7 {
		fmt.Fprintf(&other, "func E%d() {}\n\n", i)
	}
	user.WriteString("package hub\n\n")
	for i := range 25 {
		fmt.Fprintf(&user, "func U%d() { H%d() }\n\n", i, i*2)
	}
	for name, src := range map[string]string{"hub.go": hub.String(), "other.go": other.String(), "user.go": user.String()} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := index.Run(ctx, st, index.Options{Root: root, Config: config.Default()}); err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkAfterTool is the code source's work after a tool call on hub.go
// (post-tool-use): the file's entity ids, its edges both ways, and the
// neighbours in other files.
func BenchmarkAfterTool(b *testing.B) {
	ctx := context.Background()
	st := hubWorkspace(b)
	ev := &Event{Name: hookevent.PostToolUse, Store: st, Files: []string{"hub.go"}}
	b.ReportAllocs()
	for b.Loop() {
		es, err := (Code{}).afterTool(ctx, ev)
		if err != nil || len(es) != 1 {
			b.Fatalf("afterTool = %d entries, %v", len(es), err)
		}
	}
}

func TestRelatedMatchesLoadingAll(t *testing.T) {
	ctx := context.Background()
	st := hubWorkspace(t)

	ids, err := st.EntityIDsInFile(ctx, "hub.go", store.MaxEdgeIDs)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := st.EdgesFrom(ctx, ids, 200)
	to, _ := st.EdgesTo(ctx, ids, 200)
	// The edges do not depend on the order of the ids (SQLite visits an IN
	// list in sorted order), so an unordered id list gives what the rows
	// in source order gave.
	ents, err := st.EntitiesInFile(ctx, "hub.go")
	if err != nil {
		t.Fatal(err)
	}
	var ordered []int64
	for _, e := range ents {
		ordered = append(ordered, e.ID)
	}
	fromOrdered, _ := st.EdgesFrom(ctx, ordered, 200)
	toOrdered, _ := st.EdgesTo(ctx, ordered, 200)
	if !reflect.DeepEqual(from, fromOrdered) || !reflect.DeepEqual(to, toOrdered) {
		t.Fatalf("edges depend on the order of the ids")
	}
	if len(from) <= relatedBatch || len(to) == 0 {
		t.Fatalf("fixture has %d outgoing and %d incoming edges; want more than a batch (%d) out", len(from), len(to), relatedBatch)
	}
	var all []int64
	for _, e := range from {
		all = append(all, e.Dst)
	}
	for _, e := range to {
		all = append(all, e.Src)
	}
	byID, err := st.EntitiesByID(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edges []store.Edge
		pick  func(store.Edge) int64
	}{
		{"uses", from, func(e store.Edge) int64 { return e.Dst }},
		{"used by", to, func(e store.Edge) int64 { return e.Src }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := related(ctx, st, tc.edges, "hub.go", tc.pick)
			want := relatedAll(byID, tc.edges, "hub.go", tc.pick)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("related = %q, %v\nloading all gives %q", got, err, want)
			}
			if len(want) == 0 {
				t.Fatal("no neighbours in other files: the fixture does not test anything")
			}
		})
	}
}
