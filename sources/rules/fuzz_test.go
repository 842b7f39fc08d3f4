package rules

import (
	"path"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// FuzzGlobMatch matches rule globs, as written in globs/applyTo/paths and
// normalised by the loader, against paths. Never a panic; a normalised
// glob is workspace-relative; Match answers with the rule's own glob;
// a literal glob matches its own path, a directory glob everything
// under it, and a slash-less glob the file name at any depth.
func FuzzGlobMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"**/*.go", "auth/auth.go"}, {"*.go", "cmd/ctxls/main.go"}, {"src/", "src/a/b.ts"}, {"./src/**/*.ts", "src/x.ts"},
		{"/docs/*.md", "docs/README.md"}, {"{a,b}/*.js", "a/x.js"}, {"[a-z]*.py", "lib/x.py"}, {"[", "["},
		{"\\", "a"}, {"a\\*b", "a*b"}, {"**/**/**/**/**/**/**/*", "a/b/c/d/e/f/g/h"}, {"src\\win\\*.cs", "src/win/a.cs"},
		{"*.{ts,tsx", "a.ts"}, {"", ""}, {"a/../b", "b"}, {"x", "../x"}, {"é/*", "é/ü"}, {"\xff", "\xff"},
		{"Makefile", "Makefile"}, {"  padded/*.go  ", "padded/a.go"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		g := normalize(pattern)
		if strings.HasPrefix(g, "/") || !strings.Contains(g, "/") {
			t.Fatalf("normalize(%q) = %q: not a workspace-relative path glob", pattern, g)
		}
		if !doublestar.ValidatePattern(g) {
			return // the loader refuses the rule
		}
		r := Rule{Kind: Glob, Globs: []string{g}}
		if got, ok := r.Match(rel); ok != (got != "") || ok && got != g {
			t.Fatalf("Match(%q) = %q, %v with glob %q", rel, got, ok, g)
		}
		// Literal globs: no metacharacters, no . or .. steps.
		lit := strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(pattern), "./"), "/")
		dir := strings.HasSuffix(lit, "/")
		lit = strings.TrimSuffix(lit, "/")
		if lit == "" || strings.ContainsAny(lit, "*?[]{}\\") || lit != path.Clean(lit) || strings.HasPrefix(lit, "../") || lit == ".." || lit == "." {
			return
		}
		if dir {
			if _, ok := r.Match(lit + "/sub/file"); !ok {
				t.Fatalf("directory glob %q (%q) does not match a file under it", pattern, g)
			}
			return
		}
		if _, ok := r.Match(lit); !ok {
			t.Fatalf("glob %q (%q) does not match its own path", pattern, g)
		}
		if !strings.Contains(lit, "/") {
			if _, ok := r.Match("deep/er/" + lit); !ok {
				t.Fatalf("slash-less glob %q (%q) does not match the name at depth", pattern, g)
			}
		}
	})
}
