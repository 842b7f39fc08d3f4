package rules

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/wstest"
)

// TestCacheLoadsAsLoad: a load through a cache gives what a load without
// one gives after every kind of change, and a file that has not changed is
// not read again.
func TestCacheLoadsAsLoad(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	wstest.Write(t, outside, map[string]string{"secret.md": "zqxfakesecret\n"})
	wstest.Write(t, root, map[string]string{
		".claude/rules/a.md":   "Rule A.\n",
		".cursor/rules/b.mdc":  "---\nglobs: [\"*.go\"]\n---\nRule B.\n",
		".claude/rules/bad.md": "---\npaths: [\n---\nBroken.\n",
	})
	rule := func(rel string) string { return filepath.Join(root, rel) }
	write := func(rel, text string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(rule(rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(rule(rel), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	cache := NewCache()
	ctx := context.Background()
	past := time.Now().Add(-time.Hour)
	steps := []struct {
		name   string
		change func()
	}{
		{"first load", func() {}},
		{"unchanged", func() {}},
		{"new text, new size", func() { write(".claude/rules/a.md", "Rule A, longer now.\n", past) }},
		{"new text, same size, new time", func() { write(".claude/rules/a.md", "Rule Z, longer now.\n", past.Add(time.Second)) }},
		{"broken rule fixed", func() { write(".claude/rules/bad.md", "---\npaths: [\"x/**\"]\n---\nFixed.\n", past) }},
		{"glob changed", func() { write(".cursor/rules/b.mdc", "---\nglobs: [\"*.ts\"]\n---\nRule B.\n", past) }},
		{"rule removed", func() { os.Remove(rule(".claude/rules/bad.md")) }},
		{"replaced by a link outside", func() {
			os.Remove(rule(".claude/rules/a.md"))
			if err := os.Symlink(filepath.Join(outside, "secret.md"), rule(".claude/rules/a.md")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		st.change()
		got, want := cache.Load(ctx, root, ""), Load(ctx, root, "")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: through the cache\n%+v\nwithout\n%+v", st.name, got, want)
		}
		for _, r := range got.Rules {
			if strings.Contains(r.Body, "zqxfakesecret") {
				t.Errorf("%s: rule %s holds the secret", st.name, r.Path)
			}
		}
	}
	// An unchanged file is answered from the cache, not read again.
	cache.mu.Lock()
	for k, e := range cache.m {
		e.rule.Body = "from the cache"
		cache.m[k] = e
	}
	cache.mu.Unlock()
	for _, r := range cache.Load(ctx, root, "").Rules {
		if r.Body != "from the cache" {
			t.Errorf("%s was read again: %q", r.Path, r.Body)
		}
	}
}
