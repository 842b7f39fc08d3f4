package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestReferencesAreFoundByTheirEntitysRange: the references of a file, of
// an entity and of a name are read through the entities' seq ranges
// (decision 0133), not by a scan of every reference.
func TestReferencesAreFoundByTheirEntitysRange(t *testing.T) {
	s := openTest(t, t.TempDir())
	for _, c := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"a file's", refsQuery + `e.file_id IN (?)`, []any{10}, []string{"INDEX entities_file", "INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"a name's", refsNamedQuery(1), []any{"Serve", "Serve"}, []string{"INDEX refs_name", "INTEGER PRIMARY KEY (rowid=?)"}},
		{"an entity's edges", edgesSQL(`src_id`, 2, 10), []any{11, 12}, []string{"sqlite_autoindex_entities_1 (id=?)", "INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
	} {
		got := queryPlan(t, s, c.query, c.args...)
		t.Logf("%s references: %s", c.name, got)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s references: plan %q, want %q", c.name, got, w)
			}
		}
		if strings.Contains(got, "SCAN") {
			t.Errorf("%s references: plan %q scans a table", c.name, got)
		}
	}
}

// refsFromTo returns n references of src named name0, name1, … on lines
// from line.
func refsFromTo(src int64, prefix string, n, line int) []Ref {
	out := make([]Ref, n)
	for i := range out {
		out[i] = Ref{SrcID: src, Kind: RefCalls, Name: fmt.Sprintf("%s%d", prefix, i), Line: line + i}
	}
	return out
}

func refNames(t *testing.T, s *Store, id int64) []string {
	t.Helper()
	refs, err := s.RefsFrom(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

func seqOf(t *testing.T, s *Store, id int64) string {
	t.Helper()
	got := queryStrings(t, s, `SELECT seq FROM entities WHERE id = ?`, id)
	if len(got) != 1 {
		t.Fatalf("entity %d: seqs %q", id, got)
	}
	return got[0]
}

// TestEntityKeepsItsReferencesWhenItsFileIsIndexedAgain: an entity
// written again keeps its seq, so the rows of its references that
// ReplaceRefs keeps stay its own, new ones go after them, and a new
// entity's go in a range of their own.
func TestEntityKeepsItsReferencesWhenItsFileIsIndexedAgain(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("a.go", 10)
	fd.Entities = append(fd.Entities, Entity{ID: 12, FileID: 10, ParentID: 10, Kind: "function", Name: "Gone", QName: "Gone", StartLine: 6, EndLine: 8})
	fd.Refs = append(fd.Refs, Ref{SrcID: 11, Kind: RefCalls, Name: "Close", Line: 4}, Ref{SrcID: 12, Kind: RefCalls, Name: "Exit", Line: 7})
	putFile(t, s, fd)
	before := seqOf(t, s, 11)

	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	old, err := w.Refs(ctx, []int64{10}, nil)
	if err != nil || len(old) != 3 {
		t.Fatalf("stored references %+v (%v)", old, err)
	}
	next := sampleFile("a.go", 10)
	next.Entities = append(next.Entities, Entity{ID: 13, FileID: 10, ParentID: 10, Kind: "function", Name: "New", QName: "New", StartLine: 9, EndLine: 9})
	next.Refs = []Ref{
		{SrcID: 11, Kind: RefCalls, Name: "Serve", Qualifier: "srv", Line: 5},
		{SrcID: 11, Kind: RefCalls, Name: "Listen", Line: 6},
		{SrcID: 13, Kind: RefCalls, Name: "Open", Line: 9},
	}
	if err := w.ReplaceEntities(ctx, 10, next.Entities, next.Docs); err != nil {
		t.Fatal(err)
	}
	if err := w.ReplaceRefs(ctx, old, next.Refs); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if after := seqOf(t, s, 11); after != before {
		t.Errorf("entity 11 renumbered from %s to %s", before, after)
	}
	for id, want := range map[int64]string{11: "Serve Listen", 12: "", 13: "Open"} {
		if got := strings.Join(refNames(t, s, id), " "); got != want {
			t.Errorf("references of %d: %q, want %q", id, got, want)
		}
	}
	if n := queryStrings(t, s, `SELECT count(*) FROM refs`); n[0] != "3" {
		t.Errorf("%s reference rows, want 3", n[0])
	}
}

// TestReferencesPastAnEntitysPlaces: an entity's references past
// MaxRefsPerEntity are not stored, and one whose new references would run
// past its last place has all of them written again from its first.
func TestReferencesPastAnEntitysPlaces(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("a.go", 10)
	fd.Refs = refsFromTo(11, "old", MaxRefsPerEntity+100, 10)
	putFile(t, s, fd)
	names := refNames(t, s, 11)
	if len(names) != MaxRefsPerEntity || names[0] != "old0" || names[len(names)-1] != fmt.Sprintf("old%d", MaxRefsPerEntity-1) {
		t.Fatalf("stored %d references %q … %q, want the first %d", len(names), names[0], names[len(names)-1], MaxRefsPerEntity)
	}

	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	old, err := w.Refs(ctx, []int64{10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ReplaceEntities(ctx, 10, fd.Entities, fd.Docs); err != nil {
		t.Fatal(err)
	}
	refs := append(refsFromTo(11, "new", 1, 1), refsFromTo(11, "old", MaxRefsPerEntity+100, 10)...)
	if err := w.ReplaceRefs(ctx, old, refs); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	names = refNames(t, s, 11)
	if len(names) != MaxRefsPerEntity || names[0] != "new0" || names[len(names)-1] != fmt.Sprintf("old%d", MaxRefsPerEntity-2) {
		t.Errorf("after the replace: %d references %q … %q, want new0 and the first %d old", len(names), names[0], names[len(names)-1], MaxRefsPerEntity-1)
	}
}

// TestFullTextHitsLeadTheirJoin: a search of a file's range of row numbers
// reads the postings once and finds each hit's entity by its key; it does
// not probe the full-text index once per entity of the range.
func TestFullTextHitsLeadTheirJoin(t *testing.T) {
	s := openTest(t, t.TempDir())
	putFile(t, s, sampleFile("a.go", 10))
	got := queryPlan(t, s, bestInFileSQL(FieldWeights{1, 1, 1, 1, 1, 1}.score(), 1), "serv", 1, 2, 10)
	if !strings.HasPrefix(got, "SCAN fts") || !strings.Contains(got, "SEARCH e USING INTEGER PRIMARY KEY (rowid=?)") {
		t.Errorf("plan %q: want the full-text hits first, each entity by its seq", got)
	}
}
