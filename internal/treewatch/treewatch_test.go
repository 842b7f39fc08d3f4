package treewatch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	if tree.Dirs() != 5 { // root, a, .hidden, b, b/c
		t.Fatalf("watched %d directories, want 5", tree.Dirs())
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
	if !tree.Full() || tree.Dirs() != 2 {
		t.Fatalf("full %v with %d directories, want full at 2", tree.Full(), tree.Dirs())
	}
	if why := tree.FullBecause(); !strings.Contains(why, "bound of 2") {
		t.Errorf("FullBecause = %q, want the bound named", why)
	}
}

// TestTreeFollowsARenamedDirectory: files created in a directory renamed
// while watched, and in its subdirectories, are named by their new paths.
// fsnotify dropped the renamed directory's watch once the move reached it,
// which left the new path unwatched.
func TestTreeFollowsARenamedDirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "auth", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tree, err := New(root, 0, index.NewScope(root, config.Index{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	// settle returns the files named by the events of the next quiet moment.
	settle := func() map[string]bool {
		got := map[string]bool{}
		for {
			select {
			case ev := <-tree.Events():
				for _, f := range tree.Files(ev) {
					got[f] = true
				}
			case <-time.After(200 * time.Millisecond):
				return got
			}
		}
	}
	if err := os.Rename(filepath.Join(root, "auth"), filepath.Join(root, "login")); err != nil {
		t.Fatal(err)
	}
	settle()
	if tree.Dirs() != 3 {
		t.Errorf("watching %d directories after the rename, want 3 (root, login, login/sub)", tree.Dirs())
	}
	for _, f := range []string{"login/a.go", "login/sub/b.go"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := settle(); !got["login/a.go"] || !got["login/sub/b.go"] || len(got) != 2 {
		t.Errorf("files named after creating two in the renamed directory: %v", got)
	}
}
