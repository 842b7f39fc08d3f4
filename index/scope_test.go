package index

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// TestScopeAgreesWithWalk asks a Scope about every file and directory of a
// tree with every kind of rule and compares its answers with what a whole
// walk indexes: the file watchers must follow exactly the walk's files.
func TestScopeAgreesWithWalk(t *testing.T) {
	root := workspace(t, rulesTree())
	cfg := config.Index{Exclude: []string{"conf/skip.go"}}
	w := newWalker(root, cfg.Exclude, cfg.IncludeVendor)
	cands, err := w.walk(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var walked []string
	for _, c := range cands {
		walked = append(walked, c.rel)
	}
	scope := NewScope(root, cfg)
	var inScope []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.IsDir() && !scope.Dir(rel):
			return filepath.SkipDir
		case !d.IsDir() && languageOf(d.Name()) != "" && scope.File(rel):
			inScope = append(inScope, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(inScope)
	if !slices.Equal(inScope, walked) {
		t.Fatalf("scope: %v\nwalk:  %v", inScope, walked)
	}
	// Asked directly, without the directories above first.
	for rel, want := range map[string]bool{
		"sub/logs/l.go": false, "sub/deep/ok.go": true, "web/dist/bundle.js": false,
		"go/build/build.go": true, "vendor/v/v.go": false, "secret/s.go": false, ".github/tool.py": true,
	} {
		if got := NewScope(root, cfg).File(rel); got != want {
			t.Errorf("File(%s) = %v, want %v", rel, got, want)
		}
	}
}
