package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/store"
)

func TestIgnoreRulesExplainEmptyIndex(t *testing.T) {
	tests := []struct {
		name      string
		gitignore string
		exclude   []string
		want      string // in the first explanation; "" for none
	}{
		{"debian packaging", "*.o\n# from the package\n/*\n!/debian/\n", nil, ".gitignore:3: /* excludes 3 of 4 entries at the root"},
		{"configured pattern", "", []string{"*.go", "src"}, "config index.exclude[0]: *.go excludes 1 of 3"},
		{"a later rule includes again", "/*\n!/src/\n!*.go\n", nil, ".gitignore:1: /* excludes 2 of 4"},
		{"nothing excluded", "*.o\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range map[string]string{"main.go": "package main\n", "src/lib.go": "package src\n", "debian/rules.c": "int x;\n"} {
				os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
				os.WriteFile(filepath.Join(root, name), []byte(body), 0o644)
			}
			if tt.gitignore != "" {
				os.WriteFile(filepath.Join(root, ".gitignore"), []byte(tt.gitignore), 0o644)
			}
			got, err := IgnoreRules(root, tt.exclude)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %q, want nothing", got)
				}
				return
			}
			if len(got) == 0 || !strings.HasPrefix(got[0], tt.want) {
				t.Fatalf("got %q, want first %q", got, tt.want)
			}
		})
	}
}

// TestEmptyIndexSaysWhy runs the indexer on a tree whose .gitignore
// excludes every file: the summary names the rule.
func TestEmptyIndexSaysWhy(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/*\n"), 0o644)
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Run(context.Background(), st, Options{Root: root, Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 0 || len(sum.IgnoredBy) == 0 || !strings.Contains(sum.IgnoredBy[0], ".gitignore:1: /*") {
		t.Fatalf("files %d, ignored by %q", sum.Files, sum.IgnoredBy)
	}
}
