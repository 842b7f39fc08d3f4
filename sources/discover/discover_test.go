package discover

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fixture = "../../../shared/fixtures/claude-memory-plugin"

// fixtureDir returns the shared fixture, skipping when it is absent.
func fixtureDir(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "agents")); err != nil {
		t.Skipf("fixture %s not available", abs)
	}
	return abs
}

// copyDir copies the *.md files of src (recursively) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		os.MkdirAll(filepath.Dir(out), 0o755)
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// layout builds a home with the fixture's agents and styles, a project
// with a local override and a command, and the fixture installed as a
// plugin (commands, skill, styles declared in its manifest).
func layout(t *testing.T) (root, home string) {
	t.Helper()
	fx := fixtureDir(t)
	root, home = t.TempDir(), t.TempDir()
	copyDir(t, filepath.Join(fx, "agents"), filepath.Join(home, ".claude", "agents"))
	copyDir(t, filepath.Join(fx, "styles"), filepath.Join(home, ".claude", "output-styles"))
	copyDir(t, filepath.Join(fx, "skills"), filepath.Join(home, ".claude", "skills"))
	plugin := filepath.Join(home, ".claude", "plugins", "cache", "mkt", "memory", "1.2.0")
	copyDir(t, filepath.Join(fx, "commands"), filepath.Join(plugin, "commands"))
	copyDir(t, filepath.Join(fx, "styles"), filepath.Join(plugin, "styles"))
	os.MkdirAll(filepath.Join(plugin, ".claude-plugin"), 0o755)
	os.WriteFile(filepath.Join(plugin, ".claude-plugin", "plugin.json"), []byte(`{"name":"memory","outputStyles":"./styles/"}`), 0o644)
	reg, _ := json.Marshal(map[string]any{"version": 2, "plugins": map[string]any{
		"memory@mkt": []any{map[string]any{"scope": "user", "installPath": plugin, "version": "1.2.0"}},
	}})
	os.WriteFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), reg, 0o644)

	local := filepath.Join(root, ".claude")
	os.MkdirAll(filepath.Join(local, "agents"), 0o755)
	os.MkdirAll(filepath.Join(local, "commands", "db"), 0o755)
	os.WriteFile(filepath.Join(local, "agents", "curator.md"), []byte("---\nname: curator\ndescription: Project curator for the billing schema\nkeywords: [billing, invoices, schema]\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(local, "agents", "no-frontmatter.md"), []byte("Just text.\n"), 0o644)
	os.WriteFile(filepath.Join(local, "commands", "db", "migrate.md"), []byte("---\ndescription: Write and apply a database migration\n---\n"), 0o644)
	os.WriteFile(filepath.Join(local, "agents", "broken.md"), []byte("---\nname: [x\n  y: z\n---\n"), 0o644)
	return root, home
}

func TestDiscover(t *testing.T) {
	root, home := layout(t)
	d := New(0)
	res := d.Discover(context.Background(), Dirs(root, home), 2*time.Second)
	if res.SkipReason != "" || res.TimedOut {
		t.Fatalf("skip %q timedOut %v", res.SkipReason, res.TimedOut)
	}
	byName := map[string]Item{}
	for _, it := range res.Items {
		byName[string(it.Type)+"/"+it.Name] = it
	}
	tests := []struct {
		key      string
		scope    Scope
		kwSource KeywordSource
		desc     string
	}{
		{"agent/curator", Local, FromKeywords, "Project curator for the billing schema"},
		{"agent/recall", Global, FromDescription, "Advanced memory recall agent"},
		{"agent/no-frontmatter", Local, FromFilename, ""},
		{"agent/broken", Local, FromFilename, ""},
		{"command/db:migrate", Local, FromDescription, "Write and apply a database migration"},
		{"command/memory:check-health", Plugin, FromDescription, "Check memory system health"},
		{"skill/memory", Global, FromDescription, "Store and retrieve project knowledge"},
		{"outputStyle/Architect", Global, FromDescription, "Thinks in systems"},
	}
	for _, tt := range tests {
		it, ok := byName[tt.key]
		if !ok {
			t.Errorf("%s not discovered", tt.key)
			continue
		}
		if it.Scope != tt.scope || it.KeywordSource != tt.kwSource || !strings.HasPrefix(it.Description, tt.desc) || !filepath.IsAbs(it.Path) {
			t.Errorf("%s = %+v", tt.key, it)
		}
	}
	// The global curator and the plugin's styles are shadowed.
	var shadowedCurator, shadowedStyles int
	for _, s := range res.Shadowed {
		if s.Item.Name == "curator" && s.Item.Scope == Global && strings.HasPrefix(s.By, root) {
			shadowedCurator++
		}
		if s.Item.Type == OutputStyle && s.Item.Scope == Plugin {
			shadowedStyles++
		}
	}
	if shadowedCurator != 1 || shadowedStyles != 15 {
		t.Errorf("shadowed: curator %d, plugin styles %d (want 1, 15)", shadowedCurator, shadowedStyles)
	}
	// Parsed items are cached; an unchanged second run parses nothing new.
	if n := d.Cache().Len(); n == 0 || n > DefaultCacheSize {
		t.Errorf("cache holds %d items", n)
	}
}

func TestDiscoverSkipReasons(t *testing.T) {
	empty := t.TempDir()
	d := New(10)
	if res := d.Discover(context.Background(), Dirs(empty, filepath.Join(empty, "nohome")), time.Second); res.SkipReason != NoResourcesFound {
		t.Errorf("missing directories: skip %q, want no_resources_found (and no error)", res.SkipReason)
	} else {
		for _, dr := range res.Dirs {
			if dr.Error != "" || dr.Exists {
				t.Errorf("missing dir reported %+v", dr)
			}
		}
	}
	// A file where a directory should be is a file system error.
	os.MkdirAll(filepath.Join(empty, ".claude"), 0o755)
	os.WriteFile(filepath.Join(empty, ".claude", "agents"), []byte("x"), 0o644)
	if res := d.Discover(context.Background(), Dirs(empty, ""), time.Second); res.SkipReason != FilesystemError {
		t.Errorf("unreadable dir: skip %q, want filesystem_error", res.SkipReason)
	}
	// Scans that outlive the timeout: what finished is used.
	root, home := layout(t)
	slow := New(10)
	slow.beforeScan = func(ctx context.Context, dir Dir) {
		if dir.Type != Agent {
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond)
		}
	}
	res := slow.Discover(context.Background(), Dirs(root, home), 100*time.Millisecond)
	if !res.TimedOut || res.SkipReason != "" {
		t.Fatalf("timedOut %v skip %q", res.TimedOut, res.SkipReason)
	}
	for _, it := range res.Items {
		if it.Type != Agent {
			t.Errorf("item of an unfinished scan: %+v", it)
		}
	}
	all := New(10)
	all.beforeScan = func(ctx context.Context, _ Dir) { <-ctx.Done(); time.Sleep(50 * time.Millisecond) }
	if res := all.Discover(context.Background(), Dirs(root, home), 50*time.Millisecond); res.SkipReason != Timeout {
		t.Errorf("nothing in time: skip %q, want timeout", res.SkipReason)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(2)
	t0 := time.Unix(100, 0)
	c.Set("/a", Item{Name: "a"}, t0, 1)
	c.Set("/b", Item{Name: "b"}, t0, 1)
	if _, ok := c.Get("/a", t0, 1); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.Set("/c", Item{Name: "c"}, t0, 1) // evicts b, the least recently used
	if _, ok := c.Get("/b", t0, 1); ok {
		t.Error("b not evicted")
	}
	if _, ok := c.Get("/a", t0, 1); !ok {
		t.Error("a evicted although recently used")
	}
	if _, ok := c.Get("/a", t0.Add(time.Second), 1); ok {
		t.Error("a served after its mtime changed")
	}
	if _, ok := c.Get("/a", t0, 1); ok {
		t.Error("stale a kept")
	}
	c.Invalidate("/c")
	if c.Len() != 0 {
		t.Errorf("len %d after invalidating all", c.Len())
	}
}

// TestCacheFollowsEdits checks mtime invalidation end to end: an edited
// agent is re-parsed.
func TestCacheFollowsEdits(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".claude", "agents", "x.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("---\ndescription: first\n---\n"), 0o644)
	d := New(5)
	dirs := Dirs(root, "")
	if res := d.Discover(context.Background(), dirs, time.Second); len(res.Items) != 1 || res.Items[0].Description != "first" {
		t.Fatalf("items %+v", res.Items)
	}
	os.WriteFile(p, []byte("---\ndescription: second version\n---\n"), 0o644)
	os.Chtimes(p, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	if res := d.Discover(context.Background(), dirs, time.Second); len(res.Items) != 1 || res.Items[0].Description != "second version" {
		t.Fatalf("after edit: %+v", res.Items)
	}
}

// TestCacheFile checks that a saved cache serves the next process: same
// items, same matches, no re-parse; a corrupt file is reported and ignored.
func TestCacheFile(t *testing.T) {
	root, home := layout(t)
	file := filepath.Join(t.TempDir(), "cache.json")
	first := New(0)
	want := first.Discover(context.Background(), Dirs(root, home), 2*time.Second)
	if err := first.Cache().Save(file); err != nil {
		t.Fatal(err)
	}
	next := New(0)
	if err := next.Cache().Load(file); err != nil {
		t.Fatal(err)
	}
	if next.Cache().Len() != first.Cache().Len() {
		t.Fatalf("loaded %d entries, saved %d", next.Cache().Len(), first.Cache().Len())
	}
	got := next.Discover(context.Background(), Dirs(root, home), 2*time.Second)
	// Everything came from the cache: it did not change, so there is
	// nothing to save.
	again := filepath.Join(t.TempDir(), "again.json")
	if err := next.Cache().Save(again); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(again); err == nil {
		t.Error("a run served from the loaded cache changed it")
	}
	prompt := "check the memory graph health and integrity"
	if a, b := Format(MatchPrompt(want.Items, prompt, 2, 5)), Format(MatchPrompt(got.Items, prompt, 2, 5)); a != b || a == "" {
		t.Errorf("matches differ after a reload:\n%s\n---\n%s", a, b)
	}
	os.WriteFile(file, []byte("{not json"), 0o644)
	if err := New(0).Cache().Load(file); err == nil {
		t.Error("a corrupt cache file loaded without error")
	}
}
