package team

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// fixtureDir finds the TypeScript memory plugin's real store beside the
// repository (as package memory's tests do).
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

// fixtureProject imports the plugin's store into a new workspace's project
// scope (normalised, as `ctxls memory import` does) with a full-text index.
func fixtureProject(t testing.TB) *memory.Store {
	t.Helper()
	ctx := context.Background()
	ms := newFileStore(t)
	if _, err := ms.Import(ctx, fixtureDir(t), memory.Project); err != nil {
		t.Fatal(err)
	}
	if _, err := ms.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return ms
}

// newFileStore opens the memory store of a new workspace, with a
// full-text index.
func newFileStore(t testing.TB) *memory.Store {
	t.Helper()
	root := t.TempDir()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ms, err := memory.Open(memory.Options{Root: root, Home: filepath.Join(root, "home"), Index: st})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// A file scope moved into the database and exported back gives the same
// memory files, byte for byte, and the same graph.
func TestImportExportRoundTrip(t *testing.T) {
	pg.Need(t)
	ms := fixtureProject(t)
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	rep, err := s.Import(ctx, ms, memory.Project)
	if err != nil {
		t.Fatal(err)
	}
	mems, _, err := ms.Scan(ctx, memory.Project)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != len(mems) || len(rep.Skipped) != 0 {
		t.Fatalf("imported %d of %d memories, skipped %v", rep.Memories, len(mems), rep.Skipped)
	}
	// A second import skips every memory, saying why, and writes nothing.
	if rep2, err := s.Import(ctx, ms, memory.Project); err != nil || rep2.Memories != 0 || len(rep2.Skipped) != len(mems) {
		t.Fatalf("second import = %+v, %v", rep2, err)
	}
	out := t.TempDir()
	exp, err := s.Export(ctx, out, memory.Project)
	if err != nil {
		t.Fatal(err)
	}
	if exp.Memories != len(mems) || exp.Edges != rep.Edges {
		t.Fatalf("exported %d memories and %d edges, imported %d and %d", exp.Memories, exp.Edges, len(mems), rep.Edges)
	}
	for _, m := range mems {
		want, _ := os.ReadFile(m.Path)
		got, err := os.ReadFile(filepath.Join(out, m.Slug+".md"))
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s differs after the round trip:\n--- file scope\n%s\n--- exported\n%s", m.Slug, want, got)
		}
	}
	before, _ := ms.Graph(memory.Project)
	data, _ := os.ReadFile(filepath.Join(out, "graph.json"))
	after, err := memory.ParseGraph(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := edgeCount(before); n == 0 || n != edgeCount(after) {
		t.Fatalf("graph has %d edges before, %d after", n, edgeCount(after))
	}
	for src, edges := range before.Adj {
		for _, e := range edges {
			if !after.Has(src, e.Target, e.Label) {
				t.Fatalf("edge %s -[%s]-> %s lost", src, e.Label, e.Target)
			}
			a, _ := memory.ParseTime(e.Timestamp)
			i := slices.IndexFunc(after.Adj[src], func(x memory.Edge) bool { return x.Target == e.Target && x.Label == e.Label })
			b, _ := memory.ParseTime(after.Adj[src][i].Timestamp)
			if !a.Truncate(time.Millisecond).Equal(b) {
				t.Fatalf("edge %s -> %s time %s became %s", src, e.Target, e.Timestamp, after.Adj[src][i].Timestamp)
			}
		}
	}
}

func edgeCount(g *memory.Graph) int {
	n := 0
	for _, es := range g.Adj {
		n += len(es)
	}
	return n
}

// The database's search ranks like the file scopes' SQLite index: same
// analyzer terms, same BM25F weights and parameters.
func TestSearchRanksLikeTheFileScopes(t *testing.T) {
	pg.Need(t)
	ms := fixtureProject(t)
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	if _, err := s.Import(ctx, ms, memory.Project); err != nil {
		t.Fatal(err)
	}
	queries := []string{"sqlite locking", "hook timeout", "graph links", "embedding provider", "token budget",
		"memory health", "typescript plugin", "session", "test fixture", "error handling"}
	compared := 0
	var all []memory.Query
	for _, q := range queries {
		all = append(all, memory.Query{Text: q, Limit: 10})
	}
	// Filters: a type, and a tag every fixture memory of the project has.
	all = append(all, memory.Query{Text: "hook timeout", Types: []memory.Type{memory.Gotcha}, Limit: 10},
		memory.Query{Text: "memory graph", Tags: []string{"project"}, Types: []memory.Type{memory.Learning, memory.Decision}, Limit: 10})
	for _, qq := range all {
		q := qq.Text
		file, err := ms.Search(ctx, qq)
		if err != nil {
			t.Fatal(err)
		}
		team, err := s.Search(ctx, qq)
		if err != nil {
			t.Fatal(err)
		}
		if len(file) != len(team) {
			t.Fatalf("%q: %d hits in the file scope, %d in the database", q, len(file), len(team))
		}
		for i := range file {
			f, d := file[i], team[i]
			// Scores agree to float32 precision (the database keeps
			// weighted frequencies as real); equal scores may swap.
			if diff := f.Score - d.Score; diff > 1e-3*f.Score || diff < -1e-3*f.Score {
				t.Fatalf("%q hit %d: file %s %.5f, database %s %.5f", q, i, f.Slug, f.Score, d.Slug, d.Score)
			}
			if d := f.Relevance - d.Relevance; d > 1e-9 || d < -1e-9 {
				t.Fatalf("%q hit %d: relevance %v vs %v", q, i, f.Relevance, team[i].Relevance)
			}
			if qq.Types != nil && !slices.Contains(qq.Types, d.Type) || len(qq.Tags) > 0 && !slices.Contains(d.Tags, qq.Tags[0]) {
				t.Fatalf("%q: hit %s (%s %v) does not pass the filters", q, d.Slug, d.Type, d.Tags)
			}
			compared++
		}
	}
	if compared < 30 {
		t.Fatalf("only %d hits compared: the queries miss the fixture", compared)
	}
}

// An imported memory that links to a memory the database already holds
// gets the edge in both directions, and that memory's links name it back,
// as a Write of the same memory would; a link to no memory stays a
// dangling link of the frontmatter.
func TestImportLinksToExistingMemories(t *testing.T) {
	s := openTeam(t, schemaFor(t))
	ctx := context.Background()
	if _, err := s.Write(ctx, newMem("decision-existing", memory.Decision, "db")); err != nil {
		t.Fatal(err)
	}
	ms := newFileStore(t)
	m := newMem("learning-new", memory.Learning, "db")
	m.Scope, m.Links = memory.Project, []string{"decision-existing", "gotcha-nowhere"}
	if err := ms.Write(ctx, m); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Import(ctx, ms, memory.Project)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memories != 1 || rep.Edges != 2 {
		t.Fatalf("import: %+v, want 1 memory and one edge pair", rep)
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(g.Adj["learning-new"], func(e memory.Edge) bool { return e.Target == "decision-existing" }) ||
		!slices.ContainsFunc(g.Adj["decision-existing"], func(e memory.Edge) bool { return e.Target == "learning-new" }) {
		t.Fatalf("no edge pair between the imported and the existing memory: %v", g.Adj)
	}
	existing, err := s.Get(ctx, "decision-existing")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(existing.Memory.Links, "learning-new") {
		t.Errorf("the existing memory's links do not name the imported one: %v", existing.Memory.Links)
	}
	imported, err := s.Get(ctx, "learning-new")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(imported.Memory.Links, "gotcha-nowhere") {
		t.Errorf("the dangling link was dropped: %v", imported.Memory.Links)
	}
}
