package rules

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

func TestLoad(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	wstest.Write(t, root, map[string]string{
		".cursor/rules/go.mdc":                      "---\ndescription: Go style\nglobs: \"**/*.go\"\nalwaysApply: false\n---\nWrap errors with %w.\n",
		".cursor/rules/always.mdc":                  "---\nalwaysApply: true\n---\nBritish English.\n",
		".cursor/rules/sub/unquoted.mdc":            "---\nglobs: *.ts, web/**/*.tsx\n---\nUse strict mode.\n",
		".cursor/rules/described.mdc":               "---\ndescription: Database migrations and schema changes\n---\nNever edit an applied migration.\n",
		".cursor/rules/manual.mdc":                  "---\ndescription:\nglobs:\n---\nOnly when referenced.\n",
		".cursor/rules/broken.mdc":                  "---\ndescription: [unclosed\n  globs: x\n---\nBroken.\n",
		".cursor/rules/notes.txt":                   "not a rule",
		".cursorrules":                              "Legacy rules: keep functions short.\n",
		".github/copilot-instructions.md":           "Copilot: prefer table-driven tests.\n",
		".github/instructions/py.instructions.md":   "---\napplyTo: \"**/*.py,**/*.pyi\"\n---\nType-annotate everything.\n",
		".github/instructions/all.instructions.md":  "---\napplyTo: \"**\"\n---\nCopilot everywhere.\n",
		".github/instructions/copy.instructions.md": "---\napplyTo: \"docs/**\"\n---\nBritish English.\n",
		".claude/rules/api.md":                      "---\npaths:\n  - \"api/**/*.go\"\n---\nAPI handlers validate input.\n",
		".claude/rules/general.md":                  "Small commits.\n",
		".claude/rules/empty.md":                    "---\npaths: [\"x\"]\n---\n\n",
		"docs/kord/rules/kord.md":                   "---\nglobs: [\"**/*.sql\"]\n---\nSQL is formatted with sqlfmt.\n",
		"docs/kord/rules/plain.md":                  "Kord plain rule.\n",
	})
	wstest.Write(t, home, map[string]string{".claude/rules/mine.md": "---\npaths: \"**/*_test.go\"\n---\nTests use t.Helper.\n"})
	// The same file reached twice (a symbolic link) is loaded once.
	if err := os.Symlink(filepath.Join(root, ".claude/rules/general.md"), filepath.Join(root, ".claude/rules/link.md")); err != nil {
		t.Fatal(err)
	}

	set := Load(context.Background(), root, home)
	got := map[string]Rule{}
	for _, r := range set.Rules {
		got[r.Path] = r
	}
	tests := []struct {
		path   string
		format string
		kind   Kind
		globs  string
	}{
		{".cursor/rules/go.mdc", FormatCursor, Glob, "**/*.go"},
		{".cursor/rules/always.mdc", FormatCursor, Always, ""},
		{".cursor/rules/sub/unquoted.mdc", FormatCursor, Glob, "**/*.ts web/**/*.tsx"},
		{".cursor/rules/described.mdc", FormatCursor, Description, ""},
		{".cursor/rules/manual.mdc", FormatCursor, Manual, ""},
		{".cursorrules", FormatCursorLegacy, Always, ""},
		{".github/copilot-instructions.md", FormatCopilot, Always, ""},
		{".github/instructions/py.instructions.md", FormatCopilotScoped, Glob, "**/*.py **/*.pyi"},
		{".github/instructions/all.instructions.md", FormatCopilotScoped, Always, ""},
		{".claude/rules/api.md", FormatClaude, Glob, "api/**/*.go"},
		{".claude/rules/general.md", FormatClaude, Always, ""},
		{"~/.claude/rules/mine.md", FormatClaude, Glob, "**/*_test.go"},
		{"docs/kord/rules/kord.md", FormatKord, Glob, "**/*.sql"},
		{"docs/kord/rules/plain.md", FormatKord, Always, ""},
	}
	for _, tt := range tests {
		r, ok := got[tt.path]
		if !ok {
			t.Errorf("%s not loaded", tt.path)
			continue
		}
		if r.Format != tt.format || r.Kind != tt.kind || strings.Join(r.Globs, " ") != tt.globs {
			t.Errorf("%s = format %s kind %s globs %q; want %s %s %q", tt.path, r.Format, r.Kind, r.Globs, tt.format, tt.kind, tt.globs)
		}
	}
	if len(set.Rules) != len(tests) {
		var paths []string
		for p := range got {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		t.Errorf("loaded %d rules, want %d: %v", len(set.Rules), len(tests), paths)
	}
	skipped := map[string]string{}
	for _, s := range set.Skipped {
		skipped[s.Path] = s.Reason
	}
	for path, reason := range map[string]string{
		".cursor/rules/broken.mdc":                  "malformed frontmatter",
		".claude/rules/empty.md":                    "empty rule",
		".claude/rules/link.md":                     "same file as .claude/rules/general.md",
		".github/instructions/copy.instructions.md": "same text as .cursor/rules/always.mdc",
	} {
		if !strings.Contains(skipped[path], reason) {
			t.Errorf("%s skipped for %q, want %q", path, skipped[path], reason)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		globs []string
		file  string
		want  bool
	}{
		{[]string{"**/*.go"}, "pkg/a.go", true},
		{[]string{"**/*.go"}, "main.go", true},
		{[]string{"**/*.go"}, "README.md", false},
		{[]string{"*.ts"}, "web/src/app.ts", true}, // no slash: any depth
		{[]string{"src/*.ts"}, "src/app.ts", true},
		{[]string{"src/*.ts"}, "src/deep/app.ts", false},
		{[]string{"./api/"}, "api/v1/users.go", true},
		{[]string{"/docs/**"}, "docs/guide.md", true},
		{[]string{"**/*.{ts,tsx}"}, "ui/button.tsx", true},
		{[]string{"api/**/*.go", "cmd/**"}, "cmd/x/main.go", true},
	}
	for _, tt := range tests {
		r := Rule{}
		for _, g := range tt.globs {
			r.Globs = append(r.Globs, normalize(g))
		}
		if _, ok := r.Match(tt.file); ok != tt.want {
			t.Errorf("globs %v match %s = %v, want %v", tt.globs, tt.file, ok, tt.want)
		}
	}
}

func TestLoadBadGlobAndCancel(t *testing.T) {
	root := t.TempDir()
	wstest.Write(t, root, map[string]string{
		".claude/rules/bad.md": "---\npaths: [\"src/[a-\"]\n---\nBad glob.\n",
		".claude/rules/ok.md":  "Fine.\n",
	})
	set := Load(context.Background(), root, "")
	if len(set.Rules) != 1 || set.Rules[0].Path != ".claude/rules/ok.md" {
		t.Fatalf("rules = %+v", set.Rules)
	}
	if len(set.Skipped) != 1 || !strings.Contains(set.Skipped[0].Reason, "invalid glob") {
		t.Fatalf("skipped = %+v", set.Skipped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if set := Load(ctx, root, ""); len(set.Rules) != 0 {
		t.Fatalf("a cancelled load read %d rules", len(set.Rules))
	}
}

// A workspace's rule files must be the workspace's: one linked outside it
// (a cloned repository's) is not read. The user's own rules are read where
// they link, as people keep them in a dotfiles repository.
func TestLoadWorkspaceBoundary(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, home, outside := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "outside")
	wstest.Write(t, outside, map[string]string{
		"secret.md":        "AWS_SECRET_ACCESS_KEY=zqxfakesecret\n",
		"rules/leak.md":    "Leaked rule zqxfakesecret.\n",
		"rules/leak.mdc":   "---\nalwaysApply: true\n---\nLeaked zqxfakesecret.\n",
		"dotfiles/mine.md": "Dotfile rule.\n",
	})
	wstest.Write(t, root, map[string]string{".claude/rules/own.md": "Own rule.\n"})
	links := map[string]string{
		filepath.Join(root, ".cursorrules"):                    filepath.Join(outside, "secret.md"),
		filepath.Join(root, ".claude/rules/secret.md"):         filepath.Join(outside, "secret.md"),
		filepath.Join(root, ".claude/rules/up.md"):             "../../../outside/secret.md",
		filepath.Join(root, ".cursor"):                         outside, // .cursor/rules is outside
		filepath.Join(root, ".claude/rules/inside.md"):         "own.md",
		filepath.Join(home, ".claude/rules/mine.md"):           filepath.Join(outside, "dotfiles", "mine.md"),
		filepath.Join(root, ".github/copilot-instructions.md"): filepath.Join(outside, "rules", "leak.md"),
	}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	set := Load(context.Background(), root, home)
	var bodies []string
	for _, r := range set.Rules {
		bodies = append(bodies, r.Path+": "+r.Body)
		if strings.Contains(r.Body, "zqxfakesecret") {
			t.Errorf("rule %s holds the secret", r.Path)
		}
	}
	sort.Strings(bodies)
	// A link inside the workspace is read (once: own.md is the same file).
	want := []string{".claude/rules/inside.md: Own rule.", "~/.claude/rules/mine.md: Dotfile rule."}
	if strings.Join(bodies, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(want, "\n"))
	}
	outsideSkips := 0
	for _, s := range set.Skipped {
		if strings.Contains(s.Reason, "outside the workspace") {
			outsideSkips++
		}
	}
	// .cursorrules, secret.md, up.md, the Copilot file and .cursor/rules/leak.mdc
	if outsideSkips != 5 {
		t.Errorf("%d skipped as outside, want 5: %+v", outsideSkips, set.Skipped)
	}
}
