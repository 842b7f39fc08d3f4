package treewatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
)

func TestTreeNamesChangedSources(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "node_modules/x", ".hidden", "b/c", "gen/x"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	// What the walk leaves out is neither watched nor named.
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gen/\n*.pb.go\n"), 0o644)
	tree, err := New(root, 0, index.NewScope(root, config.Index{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if tree.dirs != 5 { // root, a, .hidden, b, b/c
		t.Fatalf("watched %d directories, want 5", tree.dirs)
	}
	write := func(rel string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/x.go")
	write("a/x.pb.go")              // ignored
	write("a/notes.txt")            // no language claims it
	write("node_modules/x/y.go")    // not watched
	write(".ctxls/auto-context.md") // the state directory
	os.MkdirAll(filepath.Join(root, "new/deep"), 0o755)
	write("new/deep/z.go") // in a new directory
	got := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for !got["a/x.go"] || !got["new/deep/z.go"] {
		select {
		case ev := <-tree.Events():
			for _, f := range tree.Files(ev) {
				got[f] = true
			}
		case <-deadline:
			t.Fatalf("got %v, want a/x.go and new/deep/z.go", got)
		}
	}
	var files []string
	for f := range got {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if f != "a/x.go" && f != "new/deep/z.go" {
			t.Errorf("unexpected file %s", f)
		}
	}
}

func TestTreeStopsAtItsBound(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	tree, err := New(root, 2, index.NewScope(root, config.Index{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if !tree.Full() || tree.dirs != 2 {
		t.Fatalf("full %v with %d directories, want full at 2", tree.Full(), tree.dirs)
	}
}
