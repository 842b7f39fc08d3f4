package inject

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

func writeConfig(t *testing.T, root, text string) {
	t.Helper()
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(root, ".claude", "memory.local.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfig(t *testing.T) {
	root := t.TempDir()
	c, err := LoadConfig(root)
	if err != nil || !c.Enabled || !c.TypeEnabled(memory.Gotcha) || c.TypeEnabled(memory.Decision) || c.TypeEnabled(memory.Learning) {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	writeConfig(t, root, "---\ninjection:\n  types:\n    decision:\n      enabled: true\n    learning:\n      threshold: 0.5\n  hook_multipliers:\n    Bash: 1.5\n---\n# notes\n")
	c, err = LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Types[memory.Decision]
	if !d.Enabled || d.Threshold != 0.35 || d.Limit != 3 {
		t.Errorf("decision merged over defaults: %+v", d)
	}
	if l := c.Types[memory.Learning]; l.Enabled || l.Threshold != 0.5 || l.Limit != 2 {
		t.Errorf("learning: %+v", l)
	}
	if c.Multiplier("Bash") != 1.5 || c.Multiplier("Read") != 1 || c.Multiplier("MultiEdit") != 0.8 || c.Multiplier("Grep") != 1 {
		t.Errorf("multipliers %v", c.HookMultipliers)
	}
	for name, text := range map[string]string{
		"threshold above 1":   "---\ninjection:\n  types:\n    gotcha:\n      threshold: 1.5\n---\n",
		"limit 0":             "---\ninjection:\n  types:\n    gotcha:\n      limit: 0\n---\n",
		"multiplier too high": "---\ninjection:\n  hook_multipliers:\n    Read: 3\n---\n",
		"invalid YAML":        "---\ninjection: [\n---\n",
		"unknown type":        "---\ninjection:\n  types:\n    hub:\n      enabled: true\n---\n",
	} {
		writeConfig(t, root, text)
		c, err := LoadConfig(root)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		// What could not be read keeps its default.
		if g := c.Types[memory.Gotcha]; !g.Enabled || g.Threshold != 0.2 || g.Limit != 5 || c.Multiplier("Read") != 1 {
			t.Errorf("%s: defaults not kept: %+v", name, c)
		}
	}
	writeConfig(t, root, "---\ninjection:\n  enabled: false\n---\n")
	if c, _ := LoadConfig(root); c.TypeEnabled(memory.Gotcha) {
		t.Error("master switch off still injects")
	}
}

func TestEffectiveThreshold(t *testing.T) {
	c := Defaults()
	for _, x := range []struct {
		typ  memory.Type
		tool string
		want float64
	}{
		{memory.Decision, "Bash", 0.42}, {memory.Decision, "Edit", 0.28}, {memory.Gotcha, "Read", 0.2},
		{memory.Gotcha, "Write", 0.16}, {memory.Learning, "Grep", 0.4},
	} {
		if got := c.EffectiveThreshold(x.typ, x.tool); math.Abs(got-x.want) > 1e-9 {
			t.Errorf("%s on %s: %g, want %g", x.typ, x.tool, got, x.want)
		}
	}
}

func testStore(t *testing.T) (*memory.Store, string) {
	t.Helper()
	root := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ms, err := memory.Open(memory.Options{Root: root, Home: filepath.Join(root, "home"), Index: st})
	if err != nil {
		t.Fatal(err)
	}
	return ms, root
}

func TestSelect(t *testing.T) {
	ms, _ := testStore(t)
	ctx := context.Background()
	write := func(slug string, typ memory.Type, content string, files ...string) {
		t.Helper()
		m := &memory.Memory{Slug: slug, Type: typ, Title: strings.ReplaceAll(slug, "-", " "), Tags: []string{"test"}, Content: content, Files: files}
		if err := ms.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	write("gotcha-attached", memory.Gotcha, "Unrelated words entirely.", "billing/invoice.go")
	write("gotcha-glob", memory.Gotcha, "Other words.", "billing/**")
	for i := range 6 {
		write(fmt.Sprintf("gotcha-invoice-rounding-%d", i), memory.Gotcha, "Invoice totals round half even in billing.")
	}
	write("decision-invoice-format", memory.Decision, "Invoices are PDF, billing decides.")
	write("learning-invoice-tests", memory.Learning, "Invoice tests need the billing clock.")
	write("gotcha-unrelated", memory.Gotcha, "Kubernetes pods restart.")

	cfg := Defaults()
	for _, typ := range Injectable {
		tc := cfg.Types[typ]
		tc.Enabled = true
		cfg.Types[typ] = tc
	}
	req := Request{Tool: "Read", Paths: []string{"billing/invoice.go"}}
	res, err := Select(ctx, ms, cfg, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Memories {
		got = append(got, fmt.Sprintf("%s:%.2f", m.Slug, m.Score))
	}
	if len(res.Memories) != 5+1+1 {
		t.Fatalf("want 5 gotchas (the limit), 1 decision, 1 learning; got %v", got)
	}
	if res.Memories[0].Slug != "gotcha-attached" || res.Memories[0].Score != 1 || res.Memories[1].Slug != "gotcha-glob" || res.Memories[1].Score != 0.9 {
		t.Errorf("attached memories first: %v", got)
	}
	if res.Memories[5].Type != memory.Decision || res.Memories[6].Type != memory.Learning {
		t.Errorf("order gotcha > decision > learning: %v", got)
	}
	for i := 1; i < 5; i++ {
		if res.Memories[i].Score > res.Memories[i-1].Score {
			t.Errorf("gotchas not by score: %v", got)
		}
	}
	for _, m := range res.Memories {
		if m.Slug == "gotcha-unrelated" {
			t.Errorf("unrelated memory injected: %v", got)
		}
	}
	// Session dedup: what was seen is skipped and counted, and the next
	// best takes its place.
	seen := map[string]bool{"project/gotcha-attached": true}
	res, _ = Select(ctx, ms, cfg, req, func(k string) bool { return seen[k] })
	if res.DedupHits != 1 || res.Memories[0].Slug != "gotcha-glob" || len(res.Memories) != 7 {
		t.Errorf("dedup: %d hits, %v", res.DedupHits, res.Memories)
	}
	// Thresholds: a learning needs 0.4 × 1.2 on Bash; a command that
	// shares one term of three with it falls short.
	res, _ = Select(ctx, ms, cfg, Request{Tool: "Bash", Text: "kubectl rollout clock"}, nil)
	for _, m := range res.Memories {
		if m.Type == memory.Learning {
			t.Errorf("learning under its threshold injected: %+v", m)
		}
	}
	// Defaults inject gotchas only.
	res, _ = Select(ctx, ms, Defaults(), req, nil)
	for _, m := range res.Memories {
		if m.Type != memory.Gotcha {
			t.Errorf("default config injected a %s", m.Type)
		}
	}
	// Never more than MaxTotal.
	for _, typ := range Injectable {
		tc := cfg.Types[typ]
		tc.Limit, tc.Threshold = 20, 0
		cfg.Types[typ] = tc
	}
	res, _ = Select(ctx, ms, cfg, req, nil)
	if len(res.Memories) != MaxTotal {
		t.Errorf("%d memories, want the cap of %d", len(res.Memories), MaxTotal)
	}
}

func TestFormat(t *testing.T) {
	m := Memory{Summary: memory.Summary{Slug: "gotcha-x", Type: memory.Gotcha, Title: "Race in cache", Severity: "high"}, Score: 0.854, Excerpt: "Lock first."}
	want := "🚨 **Race in cache** (gotcha-x)\n   Relevance: 85% · severity: high\n   Lock first."
	if got := Format(m); got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	m.Type, m.Severity, m.Excerpt = memory.Decision, "", ""
	if got := Format(m); !strings.HasPrefix(got, "📋 **") {
		t.Errorf("decision icon: %q", got)
	}
	m.Type = memory.Learning
	if got := Format(m); !strings.HasPrefix(got, "💡 **") {
		t.Errorf("learning icon: %q", got)
	}
}

func TestHints(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	for i := range 3 {
		ok, err := ShowHint(root, "sess-1", "memory-show", 2, now)
		if err != nil || ok != (i < 2) {
			t.Errorf("showing %d: %v %v", i+1, ok, err)
		}
	}
	hs, _ := LoadHints(root, "sess-1")
	if hs.Hints["memory-show"].Count != 2 || hs.SessionID != "sess-1" {
		t.Errorf("state %+v", hs)
	}
	// Corrupt: rebuilt empty, the hint shows again.
	p := filepath.Join(root, ".claude", "session-state", "sess-1", "hints.json")
	os.WriteFile(p, []byte("{corrupt"), 0o644)
	if hs, err := LoadHints(root, "sess-1"); err != nil || len(hs.Hints) != 0 {
		t.Errorf("corrupt state: %+v %v", hs, err)
	}
	if ok, err := ShowHint(root, "sess-1", "memory-show", 2, now); !ok || err != nil {
		t.Errorf("after corruption: %v %v", ok, err)
	}
	for _, bad := range []string{"", "..", "../escape", "a/b"} {
		if _, err := ShowHint(root, bad, "memory-show", 2, now); err == nil {
			t.Errorf("session id %q accepted", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "escape")); err == nil {
		t.Error("wrote outside session-state")
	}
}
