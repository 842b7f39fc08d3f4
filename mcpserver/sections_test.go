package mcpserver

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// rulesWorkspace is the fixture with a Cursor rule for Go files, an
// always-apply rule, a description-only rule, a root AGENTS.md and a
// Markdown file, indexed, with memories attached to auth/auth.go (a gotcha
// by a pattern, a decision by path) written through package memory. It
// returns the root and the home directory to pass as Options.Home.
func rulesWorkspace(t testing.TB) (root, home string) {
	t.Helper()
	files := maps.Clone(fixture)
	maps.Copy(files, map[string]string{
		".cursor/rules/go-style.mdc": "---\nglobs: **/*.go\nalwaysApply: false\n---\nWrap errors with fmt.Errorf and %w.\n",
		".cursor/rules/always.mdc":   "---\nalwaysApply: true\n---\nAnswer in British English.\n",
		".cursor/rules/sql.mdc":      "---\ndescription: writing SQL migrations\n---\nNever drop a column in a migration.\n",
		"AGENTS.md":                  "# Agents\n\nRun make test before committing.\n",
		"docs/guide.md":              "# Guide\n\n## Login\n\nHow users log in.\n",
	})
	root, home = testWorkspace(t, files), t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ms, err := memory.Open(memory.Options{Root: root, Home: home, Index: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*memory.Memory{
		{Type: memory.Decision, Title: "Auth code stays in package auth", Tags: []string{"auth"}, Files: []string{"auth/auth.go"},
			Content: "Every password check goes through auth.Login."},
		{Type: memory.Gotcha, Title: "check must compare in constant time", Tags: []string{"auth", "security"}, Severity: "high",
			Files: []string{"auth/*.go"}, Content: "Use subtle.ConstantTimeCompare in check, never ==."},
	} {
		m.Slug = memory.SlugFor(m.Type, m.Title)
		if err := ms.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	return root, home
}

func TestFileRulesAndMemories(t *testing.T) {
	root, home := rulesWorkspace(t)
	c := connect(t, Options{Root: root, Home: home})

	goFile := readText(t, c, "ctxls://context/file/auth/auth.go")
	for _, want := range []string{
		"function `auth.Login`", // the outline is still there
		"## Rules that apply to this file",
		".cursor/rules/go-style.mdc (cursor rule, `**/*.go` matches)", "Wrap errors with fmt.Errorf and %w.",
		".cursor/rules/always.mdc (cursor rule, always applies)", "Answer in British English.",
		"## Instructions for agents (AGENTS.md, the nearest AGENTS.md)", "Run make test before committing.",
		"## Memories attached to this file",
		"- gotcha `gotcha-check-must-compare-in-constant-time` (project, severity high, attached by a pattern): check must compare in constant time",
		"Use subtle.ConstantTimeCompare in check, never ==.",
		"- decision `decision-auth-code-stays-in-package-auth` (project, attached by path)",
	} {
		if !strings.Contains(goFile, want) {
			t.Errorf("Go file resource lacks %q:\n%s", want, goFile)
		}
	}
	if strings.Contains(goFile, "Never drop a column") {
		t.Errorf("a description-only rule is listed as applying to the file:\n%s", goFile)
	}
	// Gotchas come first, though the decision is attached by its exact
	// path and its slug sorts before.
	if g, d := strings.Index(goFile, "- gotcha `"), strings.Index(goFile, "- decision `"); g < 0 || d < 0 || g > d {
		t.Errorf("gotcha at %d, decision at %d: the gotcha must come first", g, d)
	}

	md := readText(t, c, "ctxls://context/file/docs/guide.md")
	if strings.Contains(md, "go-style.mdc") || strings.Contains(md, "Wrap errors") {
		t.Errorf("the Go rule is listed for a Markdown file:\n%s", md)
	}
	if !strings.Contains(md, "always.mdc") || !strings.Contains(md, "Run make test before committing.") {
		t.Errorf("the always-apply rule or AGENTS.md is missing for the Markdown file:\n%s", md)
	}
	if strings.Contains(md, "Memories attached") {
		t.Errorf("memories of auth/ listed for docs/guide.md:\n%s", md)
	}

	// A memory written while the server runs (through its tool) shows at
	// the next read: the memory directory changed.
	if text, isErr := call(t, c, "memory_write", map[string]any{"type": "gotcha", "title": "The guide is generated",
		"content": "Edit docs/src instead.", "tags": []string{"docs"}, "files": []string{"docs/guide.md"}}, nil); isErr {
		t.Fatal(text)
	}
	if md := readText(t, c, "ctxls://context/file/docs/guide.md"); !strings.Contains(md, "gotcha-the-guide-is-generated") {
		t.Errorf("new memory not shown:\n%s", md)
	}
}

// TestFileSectionsKeepUnderCap: with a small cap the outline is cut and the
// rules and memories survive.
func TestFileSectionsKeepUnderCap(t *testing.T) {
	root, home := rulesWorkspace(t)
	c := connect(t, Options{Root: root, Home: home, MaxOutputBytes: 1200})
	got := readText(t, c, "ctxls://context/file/auth/auth.go")
	if len(got) > 1200 {
		t.Errorf("resource of %d bytes over the 1200-byte cap", len(got))
	}
	for _, want := range []string{"… (cut at", "go-style.mdc", "gotcha-check-must-compare-in-constant-time"} {
		if !strings.Contains(got, want) {
			t.Errorf("capped resource lacks %q:\n%s", want, got)
		}
	}
}

// BenchmarkFileResource measures one read of a file resource over the
// in-memory transport, with its rules and memories, next to its parts: the
// outline and relations alone (the resource before the sections existed),
// the rules section and the memories section.
func BenchmarkFileResource(b *testing.B) {
	root, home := rulesWorkspace(b)
	ctx := context.Background()
	srv, err := New(Options{Root: root, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	const rel = "auth/auth.go"
	b.Run("resource", func(b *testing.B) {
		for b.Loop() {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fileURI(rel)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("outline", func(b *testing.B) {
		idx, err := srv.store(ctx)
		if err != nil {
			b.Fatal(err)
		}
		f, _, err := idx.FileByPath(ctx, rel)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := fileMarkdown(ctx, idx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, section := range map[string]FileSection{"rules": srv.rulesSection, "memories": srv.memoriesSection} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if md, err := section(ctx, root, rel); err != nil || md == "" {
					b.Fatalf("%q %v", md, err)
				}
			}
		})
	}
}
