package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

func newMem(slug string, typ Type, tags ...string) *Memory {
	return &Memory{Slug: slug, Type: typ, Title: "About " + slug, Tags: tags, Content: "Content of " + slug + ".\n"}
}

// snapshot returns every file of a directory tree with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) != ".lock" {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

func TestCRUDAndLinks(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	for _, m := range []*Memory{newMem("decision-oauth2", Decision, "auth"), newMem("learning-token-refresh", Learning, "auth"), newMem("hub-auth", Hub, "auth")} {
		if err := s.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Write(ctx, newMem("hub-auth", Hub, "auth")); !errors.Is(err, ErrExists) {
		t.Errorf("second write of a slug: %v", err)
	}
	if err := s.Link(ctx, Project, "decision-oauth2", "learning-token-refresh", "implements"); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, Project, "decision-oauth2", "hub-auth", "part-of"); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, Project, "decision-oauth2", "nowhere", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("link to a missing memory: %v", err)
	}
	g, _ := s.Graph(Project)
	if !g.Has("learning-token-refresh", "decision-oauth2", "implemented-by") || !g.Has("hub-auth", "decision-oauth2", "contains") {
		t.Errorf("graph %v", g.Adj)
	}
	// Frontmatter links mirror the graph on both sides.
	m, err := s.Get(ctx, "", "learning-token-refresh")
	if err != nil || !slices.Contains(m.Links, "decision-oauth2") {
		t.Fatalf("links of the target: %v %v", m, err)
	}
	m, err = s.Update(ctx, Project, "hub-auth", func(m *Memory) error { m.Title = "Authentication hub"; m.Tags = []string{"auth", "hub"}; return nil })
	if err != nil || m.Title != "Authentication hub" || m.Updated.Before(m.Created) {
		t.Fatalf("update: %v %v", m, err)
	}
	list, _ := s.List(ctx, Project)
	if len(list) != 3 || list[1].Title != "Authentication hub" {
		t.Errorf("index after update: %+v", list)
	}
	if err := s.Unlink(ctx, Project, "hub-auth", "decision-oauth2", ""); err != nil {
		t.Fatal(err)
	}
	// Delete cascades: edges in both directions and the links that named it.
	if err := s.Delete(ctx, Project, "decision-oauth2"); err != nil {
		t.Fatal(err)
	}
	g, _ = s.Graph(Project)
	if len(g.Adj) != 0 {
		t.Errorf("edges left after delete: %v", g.Adj)
	}
	m, _ = s.Get(ctx, Project, "learning-token-refresh")
	if len(m.Links) != 0 {
		t.Errorf("links left after delete: %v", m.Links)
	}
	if _, err := s.Get(ctx, Project, "decision-oauth2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	hits, err := s.Search(ctx, Query{Text: "oauth2"})
	if err != nil || len(hits) != 0 {
		t.Errorf("deleted memory still found: %v %v", hits, err)
	}
	hits, _ = s.Search(ctx, Query{Text: "authentication hub"})
	if len(hits) == 0 || hits[0].Slug != "hub-auth" || hits[0].Relevance != 1 {
		t.Errorf("search after update: %+v", hits)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	if err := s.Write(ctx, newMem("learning-ok", Learning, "ok")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(root, ".claude"))
	future := time.Now().Add(48 * time.Hour)
	for _, c := range []struct {
		name string
		m    *Memory
		want string
	}{
		{"invalid slug", newMem("Not A Slug", Learning, "x"), "slug"},
		{"../ in slug", newMem("../../outside", Learning, "x"), "slug"},
		{"future created", &Memory{Slug: "learning-f", Type: Learning, Title: "F", Tags: []string{"x"}, Created: future}, "in the future"},
		{"no tags", newMem("learning-no-tags", Learning), "tags must not be empty"},
		{"bad scope", &Memory{Slug: "learning-s", Type: Learning, Title: "S", Tags: []string{"x"}, Scope: "../x"}, "invalid scope"},
	} {
		err := s.Write(ctx, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := s.Update(ctx, Project, "learning-ok", func(m *Memory) error { m.Tags = []string{"Bad Tag"}; return nil }); err == nil {
		t.Error("update to an invalid tag accepted")
	}
	if _, err := s.Update(ctx, Project, "../learning-ok", func(*Memory) error { return nil }); err == nil {
		t.Error("update of ../ slug accepted")
	}
	if err := s.Delete(ctx, Project, "../../etc"); err == nil {
		t.Error("delete of ../ slug accepted")
	}
	after := snapshot(t, filepath.Join(root, ".claude"))
	if len(before) != len(after) {
		t.Errorf("files changed: %d before, %d after", len(before), len(after))
	}
	for p, c := range before {
		if after[p] != c {
			t.Errorf("%s changed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "outside.md")); err == nil {
		t.Error("a file was written outside the scope")
	}
}

func TestEnterpriseScopePath(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(home, ".claude", "memory"), 0o755)
	write := func(cfg string) error {
		os.WriteFile(filepath.Join(home, ".claude", "memory", "config.json"), []byte(cfg), 0o644)
		_, err := Open(Options{Root: root, Home: home})
		return err
	}
	if err := write(`{"scopes":{"enterprise":{"enabled":true,"path":"/srv/mem/../../etc"}}}`); err == nil || !strings.Contains(err.Error(), "no ..") {
		t.Errorf("enterprise path with ..: %v", err)
	}
	if err := write(`{"scopes":{"enterprise":{"enabled":true,"path":"relative/dir"}}}`); err == nil {
		t.Error("relative enterprise path accepted")
	}
	s, _ := Open(Options{Root: root, Home: filepath.Join(root, "nohome")})
	if _, err := s.Dir(Enterprise); err == nil || !strings.Contains(err.Error(), "off") {
		t.Errorf("enterprise scope off by default: %v", err)
	}
}

func TestConfigMergesGlobalThenProject(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for dir, cfg := range map[string]string{
		filepath.Join(home, ".claude", "memory"): `{"embedding":{"model":"nomic-embed-text","endpoint":"http://gpu:11434"},"quality":{"orphanThreshold":7}}`,
		filepath.Join(root, ".claude", "memory"): `{"embedding":{"model":"all-minilm"},"scopes":{"default":"local"}}`,
	} {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
	}
	s, err := Open(Options{Root: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config()
	if c.Embedding.Model != "all-minilm" || c.Embedding.Endpoint != "http://gpu:11434" || c.Quality.OrphanThreshold != 7 ||
		c.Quality.MinQualityScore != 50 || c.Scopes.Default != "local" || s.DefaultScope() != Local || len(c.Embedding.FallbackModels) != 2 {
		t.Errorf("merged config %+v", c)
	}
	os.WriteFile(filepath.Join(root, ".claude", "memory", "config.json"), []byte(`{"quality":{"minQualityScore":101}}`), 0o644)
	if _, err := Open(Options{Root: root, Home: home}); err == nil {
		t.Error("minQualityScore 101 accepted")
	}
}

func TestIndexRebuiltWhenMissingOrCorrupt(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	for i := range 3 {
		if err := s.Write(ctx, newMem(fmt.Sprintf("learning-%d", i), Learning, "x")); err != nil {
			t.Fatal(err)
		}
	}
	ixPath := filepath.Join(root, ".claude", "memory", "index.json")
	for name, corrupt := range map[string]func(){
		"missing":   func() { os.Remove(ixPath) },
		"malformed": func() { os.WriteFile(ixPath, []byte(`{"version": "1.0.0", "memories": {`), 0o644) },
		"stale":     func() { os.Remove(filepath.Join(root, ".claude", "memory", "learning-2.md")) },
	} {
		corrupt()
		// A write rebuilds the index from the files first.
		slug := "learning-after-" + name
		if err := s.Write(ctx, newMem(slug, Learning, "x")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, _ := os.ReadFile(ixPath)
		ix, err := ParseIndex(data, filepath.Dir(ixPath))
		if err != nil {
			t.Fatalf("%s: index not rebuilt: %v", name, err)
		}
		if _, ok := ix.Memories[slug]; !ok || !ix.consistent() {
			t.Errorf("%s: index %v", name, ix.Memories)
		}
		if _, ok := ix.Memories["learning-0"]; !ok {
			t.Errorf("%s: rebuilt index lost learning-0", name)
		}
	}
}

// TestConcurrentWriters runs two processes that write and link memories in
// the same scope at once: the lock must keep every update.
func TestConcurrentWriters(t *testing.T) {
	if os.Getenv("CTXLS_MEMORY_WRITER") != "" {
		return // the helper below, not the test
	}
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	if err := s.Write(ctx, newMem("hub-shared", Hub, "x")); err != nil {
		t.Fatal(err)
	}
	const perWriter = 25
	var wg sync.WaitGroup
	errs := make([]error, 2)
	out := make([][]byte, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentWriterHelper$")
			cmd.Env = append(os.Environ(), "CTXLS_MEMORY_WRITER="+strconv.Itoa(w), "CTXLS_MEMORY_ROOT="+root, "CTXLS_MEMORY_N="+strconv.Itoa(perWriter))
			out[w], errs[w] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for w := range 2 {
		if errs[w] != nil {
			t.Fatalf("writer %d: %v\n%s", w, errs[w], out[w])
		}
	}
	list, err := s.List(ctx, Project)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1+2*perWriter {
		t.Errorf("index has %d memories, want %d", len(list), 1+2*perWriter)
	}
	g, _ := s.Graph(Project)
	if n := len(g.Adj["hub-shared"]); n != 2*perWriter {
		t.Errorf("hub has %d edges, want %d", n, 2*perWriter)
	}
	if issues := g.Check(nil); len(issues) != 0 {
		t.Errorf("graph issues: %v", issues)
	}
	hub, _ := s.Get(ctx, Project, "hub-shared")
	if len(hub.Links) != 2*perWriter {
		t.Errorf("hub's frontmatter has %d links, want %d", len(hub.Links), 2*perWriter)
	}
}

// TestConcurrentWriterHelper is one writer process of TestConcurrentWriters.
func TestConcurrentWriterHelper(t *testing.T) {
	w := os.Getenv("CTXLS_MEMORY_WRITER")
	if w == "" {
		t.Skip("helper process of TestConcurrentWriters")
	}
	n, _ := strconv.Atoi(os.Getenv("CTXLS_MEMORY_N"))
	s, err := Open(Options{Root: os.Getenv("CTXLS_MEMORY_ROOT"), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range n {
		slug := fmt.Sprintf("learning-w%s-%d", w, i)
		if err := s.Write(ctx, newMem(slug, Learning, "x")); err != nil {
			t.Fatal(err)
		}
		if err := s.Link(ctx, Project, slug, "hub-shared", "part-of"); err != nil {
			t.Fatal(err)
		}
	}
}

// syncFixture is a store over a fresh workspace, its project memory
// directory (made), and the store's clock, which stands still until the
// test moves it.
func syncFixture(t *testing.T) (root string, s *Store, dir string, clock *time.Time) {
	t.Helper()
	root = t.TempDir()
	s = openStore(t, root)
	now := time.Now()
	clock = &now
	s.now = func() time.Time { return *clock }
	dir = filepath.Join(root, ".claude", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, s, dir, clock
}

func TestSyncIfChanged(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	now := time.Now()
	s.now = func() time.Time { return now }
	ctx := context.Background()
	dir := filepath.Join(root, ".claude", "memory")
	os.MkdirAll(dir, 0o755)
	put := func(slug, title string) {
		m := newMem(slug, Gotcha, "x")
		m.Title, m.Created, m.Updated = title, now.Add(-time.Hour), now.Add(-time.Hour)
		data, _ := Marshal(m)
		os.WriteFile(filepath.Join(dir, slug+".md"), data, 0o644)
	}
	put("gotcha-a", "zebra crossing")
	if st, err := s.SyncIfChanged(ctx, time.Minute); err != nil || st.Indexed != 1 {
		t.Fatalf("first sync: %+v %v", st, err)
	}
	// A new file changes the directory: seen at once.
	put("gotcha-b", "giraffe neck")
	if st, _ := s.SyncIfChanged(ctx, time.Minute); st.Indexed != 1 {
		t.Errorf("new file not seen: %+v", st)
	}
	// Nothing changed: no walk over the files.
	if st, _ := s.SyncIfChanged(ctx, time.Minute); st.Files != 0 {
		t.Errorf("idle call walked the files: %+v", st)
	}
	// An edit in place (same directory) is seen once maxAge has passed.
	put("gotcha-a", "okapi stripes")
	future := time.Now().Add(time.Hour) // mtime differs from the first write
	os.Chtimes(filepath.Join(dir, "gotcha-a.md"), future, future)
	os.Chtimes(dir, now, now)
	now = now.Add(2 * time.Minute)
	s.SyncIfChanged(ctx, time.Minute)
	if hits, _ := s.Search(ctx, Query{Text: "okapi"}); len(hits) != 1 {
		t.Errorf("in-place edit not seen after maxAge: %v", hits)
	}
}

// A sync that finds nothing new notes its time in the state file and writes
// nothing to the index, whose every write empties the other processes'
// caches of it: it succeeds while another process holds the index's write
// lock.
func TestIdleSyncLeavesTheIndexAlone(t *testing.T) {
	root, s, dir, clock := syncFixture(t)
	ctx := context.Background()
	data, _ := Marshal(newMem("gotcha-a", Gotcha, "x"))
	os.WriteFile(filepath.Join(dir, "gotcha-a.md"), data, 0o644)
	if _, err := s.SyncIfChanged(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}

	lock, err := sql.Open("sqlite3", "file:"+store.Path(root)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	tx, err := lock.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES('lock-test', '1')`); err != nil {
		t.Fatal(err)
	}
	*clock = clock.Add(2 * time.Minute) // past maxAge: a full sync
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if st, err := s.SyncIfChanged(sctx, time.Minute); err != nil || st.Files != 1 {
		t.Fatalf("idle full sync with the index locked: %+v, %v", st, err)
	}
	at, _ := s.index.StateValue(ctx, "memory_sync_at")
	if at != clock.Format(time.RFC3339Nano) {
		t.Errorf("sync time noted %q, want %q", at, clock.Format(time.RFC3339Nano))
	}
}

// Memories indexed by another analyzer are analyzed again, though their
// files did not change: a query analyzed by this build would miss terms
// whose analysis changed.
func TestSyncAnalyzesAgainAfterAnAnalyzerChange(t *testing.T) {
	_, s, dir, _ := syncFixture(t)
	ctx := context.Background()
	for _, slug := range []string{"gotcha-a", "gotcha-b"} {
		data, _ := Marshal(newMem(slug, Gotcha, "x"))
		os.WriteFile(filepath.Join(dir, slug+".md"), data, 0o644)
	}
	if st, err := s.SyncIfChanged(ctx, time.Minute); err != nil || st.Indexed != 2 {
		t.Fatalf("first sync: %+v %v", st, err)
	}
	if err := s.index.SetMeta(ctx, store.MetaMemoryAnalyzer, "an older analyzer"); err != nil {
		t.Fatal(err)
	}
	// Within maxAge and with no directory changed: synced all the same.
	if st, err := s.SyncIfChanged(ctx, time.Minute); err != nil || st.Indexed != 2 {
		t.Errorf("sync after an analyzer change: %+v %v, want both memories analyzed again", st, err)
	}
	if v, _ := s.index.Meta(ctx, store.MetaMemoryAnalyzer); v != analyzer.Version {
		t.Errorf("memory_analyzer = %q, want %q", v, analyzer.Version)
	}
	if hits, _ := s.Search(ctx, Query{Text: "gotcha"}); len(hits) != 2 {
		t.Errorf("search after the new analysis: %d hits", len(hits))
	}
	if st, _ := s.Sync(ctx); st.Indexed != 0 {
		t.Errorf("a sync after that analyzed again: %+v", st)
	}
}
