package memory

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/store"
)

// fixtureDir finds the real store of the TypeScript memory plugin in the
// shared/ directory beside the repository ($CTXLS_MEMORY_FIXTURE overrides).
func fixtureDir(t testing.TB) string {
	if d := os.Getenv("CTXLS_MEMORY_FIXTURE"); d != "" {
		return d
	}
	dir, _ := filepath.Abs(".")
	for ; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "fixtures", "claude-memory-plugin", ".claude", "memory")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skip("fixture corpus shared/fixtures/claude-memory-plugin not found beside the repository")
		}
	}
}

// copyTree copies src into dst (the fixture is read-only).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fixtureStore copies the plugin's store into a new workspace's project
// scope and opens it with a full-text index.
func fixtureStore(t testing.TB) (*Store, string) {
	t.Helper()
	src := fixtureDir(t)
	root := t.TempDir()
	copyTree(t, src, filepath.Join(root, ".claude", "memory"))
	return openStore(t, root), root
}

func openStore(t testing.TB, root string) *Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := Open(Options{Root: root, Home: filepath.Join(root, "home"), Index: st})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFixtureLoadsWithoutLoss(t *testing.T) {
	s, root := fixtureStore(t)
	ctx := context.Background()
	mems, skipped, err := s.Scan(ctx, Project)
	if err != nil {
		t.Fatal(err)
	}
	var mdFiles int
	filepath.WalkDir(filepath.Join(root, ".claude", "memory"), func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".md") {
			mdFiles++
		}
		return nil
	})
	// Every markdown file is either a memory or reported, never dropped.
	if len(mems)+len(skipped) != mdFiles {
		t.Fatalf("%d memories + %d skipped != %d markdown files", len(mems), len(skipped), mdFiles)
	}
	if len(mems) != 413 {
		t.Errorf("loaded %d memories, want 413", len(mems))
	}
	for _, sk := range skipped {
		if filepath.Base(sk.Path) != "graph.md" {
			t.Errorf("unexpectedly skipped %s: %s", sk.Path, sk.Reason)
		}
	}
	// The plugin's graph (nodes and edges) loads with every edge in both
	// directions.
	g, err := s.Graph(Project)
	if err != nil {
		t.Fatal(err)
	}
	if g.Format != FormatNodesEdges {
		t.Errorf("graph format %q", g.Format)
	}
	var edges int
	for _, es := range g.Adj {
		edges += len(es)
	}
	if edges/2+g.Merged != 483 {
		t.Errorf("%d edge pairs + %d merged duplicates, want the file's 483 edges", edges/2, g.Merged)
	}
	if issues := g.Check(nil); len(issues) != 0 {
		t.Errorf("graph issues after load: %v", issues[:min(5, len(issues))])
	}
	// index.json (the plugin's array) is read as it is.
	list, err := s.List(ctx, Project)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 403 {
		t.Errorf("index lists %d memories", len(list))
	}
}

func TestFixtureSearch(t *testing.T) {
	s, _ := fixtureStore(t)
	ctx := context.Background()
	st, err := s.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 413 {
		t.Errorf("indexed %d memories, want 413 (%+v)", st.Indexed, st)
	}
	for _, c := range []struct{ query, want string }{
		{"plugin agents copies rewrites", "gotcha-agents-should-be-copies-not-rewrites"},
		{"getScopePath signature", "gotcha-scope-resolver-params"},
		{"async functions with only sync operations", "gotcha-async-function-declarations-with-only-sync-operations-mislead-callers"},
		{"auto compaction session restore", "gotcha-auto-compaction-mid-task-is-safe-session-restore-rebuilds-context"},
	} {
		hits, err := s.Search(ctx, Query{Text: c.query, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range hits {
			found = found || h.Slug == c.want
		}
		if !found {
			var got []string
			for _, h := range hits {
				got = append(got, h.Slug)
			}
			t.Errorf("search %q: %s not in top 5 %v", c.query, c.want, got)
		}
	}
	// A second sync with nothing changed reads nothing.
	st, err = s.Sync(ctx)
	if err != nil || st.Indexed != 0 || st.Removed != 0 {
		t.Errorf("idle sync: %+v %v", st, err)
	}
}

func TestImportFixture(t *testing.T) {
	src := fixtureDir(t)
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	rep, err := s.Import(ctx, src, Project)
	if err != nil {
		t.Fatal(err)
	}
	// Every memory file is imported or reported; only graph.md is not a
	// memory.
	if rep.Imported != 413 || len(rep.Skipped) != 1 || filepath.Base(rep.Skipped[0].Path) != "graph.md" {
		t.Errorf("imported %d, skipped %v", rep.Imported, rep.Skipped)
	}
	if rep.Renamed["decision-defer-low-severity-security-issues-v1.1.0"] != "decision-defer-low-severity-security-issues-v1-1-0" {
		t.Errorf("renamed %v", rep.Renamed)
	}
	if rep.Edges+rep.MergedEdges+len(rep.SkippedEdges) != 483 {
		t.Errorf("%d edges + %d merged + %d skipped != 483 in the source", rep.Edges, rep.MergedEdges, len(rep.SkippedEdges))
	}
	if len(rep.SkippedEdges) != 0 {
		t.Errorf("edges not imported: %v", rep.SkippedEdges)
	}
	h, err := s.Health(ctx, Project)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Problems) != 0 || len(h.GraphIssues) != 0 || h.IndexStale || h.Memories != 413 {
		t.Errorf("after import: %d problems (%v), graph issues %v, index stale %v, %d memories",
			len(h.Problems), h.Problems, h.GraphIssues, h.IndexStale, h.Memories)
	}
	// The converted files are in the seed's format: graph.json adjacency,
	// index.json keyed by slug.
	g, _ := s.Graph(Project)
	if g.Format != FormatAdjacency {
		t.Errorf("graph format %s", g.Format)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".claude", "memory", "index.json"))
	if ix, err := ParseIndex(data, filepath.Join(root, ".claude", "memory")); err != nil || ix.Format != IndexSeed || len(ix.Memories) != 413 {
		t.Errorf("index.json after import: %v", err)
	}
	// Unknown frontmatter keys survive the conversion.
	m, err := s.Get(ctx, Project, "gotcha-agents-should-be-copies-not-rewrites")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := Marshal(m)
	if !strings.Contains(string(out), "project: claude-memory-plugin") {
		t.Errorf("unknown key lost:\n%s", out)
	}
}

func TestImportInPlace(t *testing.T) {
	s, root := fixtureStore(t)
	ctx := context.Background()
	dir := filepath.Join(root, ".claude", "memory")
	rep, err := s.Import(ctx, dir, Project)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 413 {
		t.Errorf("imported %d", rep.Imported)
	}
	if _, err := os.Stat(filepath.Join(dir, "graph.json.bak")); err != nil {
		t.Errorf("old graph.json not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "permanent", "decision-defer-low-severity-security-issues-v1.1.0.md")); err == nil {
		t.Error("renamed memory's old file left behind")
	}
	mems, _, _ := s.Scan(ctx, Project)
	if len(mems) != 413 {
		t.Errorf("%d memories after in-place import", len(mems))
	}
}
