package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/analyzer"
)

// indexDump returns every memories row and the full-text vocabulary
// (term, documents, occurrences) of an index, in a stable order.
func indexDump(t *testing.T, s *Store) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	rows, err := s.index.DB().QueryContext(ctx, `SELECT id, path, size, mtime, skip, scope, slug, type, title, tags, severity, files, created, updated, terms FROM memories ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, size, mtime, created, updated int64
		var path, skip, scope, slug, typ, title, tags, severity, files, terms string
		if err := rows.Scan(&id, &path, &size, &mtime, &skip, &scope, &slug, &typ, &title, &tags, &severity, &files, &created, &updated, &terms); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(id, path, size, mtime, skip, scope, slug, typ, title, tags, severity, files, created, updated, terms))
	}
	rows.Close()
	rows, err = s.index.DB().QueryContext(ctx, `SELECT term, doc, cnt FROM fts_memories_vocab ORDER BY term`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var doc, cnt int
		if err := rows.Scan(&term, &doc, &cnt); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint("vocab ", term, doc, cnt))
	}
	return out
}

// TestRebuildIndexesLikeSync: a rebuild (one transaction, the scan's parse
// and stats) writes the same rows and full-text documents as an incremental
// sync (batches, its own walk and parse), skipped files included, across
// more rows than one multi-row insert holds.
func TestRebuildIndexesLikeSync(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".claude", "memory")
	os.MkdirAll(filepath.Join(dir, "archive"), 0o755)
	// More than two of the store's multi-row inserts (32 rows each).
	const n = 69
	for i := range n {
		m := newMem(fmt.Sprintf("gotcha-note-%03d", i), Gotcha, "tag-a", fmt.Sprintf("tag%d", i%7))
		m.Content = fmt.Sprintf("Word%d and parseConfigFile %d, repeated repeated.\n", i, i%5)
		m.Files = []string{fmt.Sprintf("pkg/file%d.go", i%3)}
		if i%4 == 0 {
			m.Severity = "high"
		}
		data, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sub := dir
		if i%10 == 0 {
			sub = filepath.Join(dir, "archive")
		}
		os.WriteFile(filepath.Join(sub, m.Slug+".md"), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# not a memory\n"), 0o644)
	s := openStore(t, root)
	ctx := context.Background()
	st, err := s.Sync(ctx)
	if err != nil || st.Indexed != n || st.Files != n+1 {
		t.Fatalf("sync: %+v %v", st, err)
	}
	want := indexDump(t, s)
	if _, err := s.index.DB().ExecContext(ctx, `DELETE FROM memories; DELETE FROM fts_memories;`); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(ctx, Project)
	if err != nil || rep.Memories != n || len(rep.Skipped) != 1 {
		t.Fatalf("rebuild: %+v %v", rep, err)
	}
	got := indexDump(t, s)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rebuild and sync differ:\nrebuild %d rows: %q\nsync %d rows: %q", len(got), got, len(want), want)
	}
	hits, err := s.Search(ctx, Query{Text: "word7"})
	if err != nil || len(hits) != 1 || hits[0].Slug != "gotcha-note-007" {
		t.Errorf("search after rebuild: %+v %v", hits, err)
	}
	// Nothing changed on disk since: a sync has nothing to do.
	if st, err := s.Sync(ctx); err != nil || st.Indexed != 0 || st.Removed != 0 {
		t.Errorf("sync after rebuild: %+v %v", st, err)
	}
}

func TestRowAnalyzerDistinct(t *testing.T) {
	ra := newRowAnalyzer()
	for _, lists := range [][][]string{
		nil,
		{{"a"}},
		{{"b", "a", "b"}, {}, {"a", "c"}, {"c", "d"}},
		{analyzer.Terms("parseConfigFile parse config"), analyzer.Terms("file files parsing")},
	} {
		if got, want := ra.distinct(lists...), strings.Join(distinctTerms(lists...), " "); got != want {
			t.Errorf("distinct(%q) = %q, want %q", lists, got, want)
		}
	}
}
