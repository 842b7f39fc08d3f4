package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// TestResidentFollowsEveryWriter checks the path set a long-running writer
// keeps between updates: reused while no one else commits, brought up to
// date by the writer's own runs, and reloaded after another process's.
func TestResidentFollowsEveryWriter(t *testing.T) {
	ctx := context.Background()
	const main = "from lib.util import helper_fn\nfrom lib.other import other_fn\n\ndef run_app():\n    return helper_fn() + other_fn()\n"
	root := testWorkspace(t, map[string]string{"app/main.py": main})
	_, cold := run(t, root, config.Default())
	cold.Close()

	st, err := store.Open(ctx, root, store.Options{SingleConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var resident Resident
	defer resident.Close()
	update := func(st *store.Store, tr *Resident, rel, content string) {
		t.Helper()
		write(t, root, rel, content)
		mtimeLater(t, filepath.Join(root, filepath.FromSlash(rel)))
		if _, err := Update(ctx, st, Options{Root: root, Config: config.Default(), Workers: 1, Resident: tr}, []Change{{Path: rel}}); err != nil {
			t.Fatalf("Update %s: %v", rel, err)
		}
	}

	if err := resident.Warm(ctx, st); err != nil {
		t.Fatal(err)
	}
	kept := resident.files
	if kept == nil || resident.worker == nil {
		t.Fatal("Warm left no path set or no worker")
	}
	update(st, &resident, "app/main.py", main+"\n")
	update(st, &resident, "app/main.py", main+"\n\n")
	if resident.files != kept {
		t.Fatal("the path set was loaded again with no other commit in between")
	}

	// The writer's own new file joins the kept set.
	update(st, &resident, "lib/other.py", "def other_fn():\n    return 2\n")
	update(st, &resident, "app/main.py", main)
	if got := target(t, st, "run_app", "other_fn"); got != "other_fn" {
		t.Fatalf("after the writer added lib/other.py, other_fn resolved to %q", got)
	}

	// Another process adds a file: the kept set no longer holds every path.
	other, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	update(other, nil, "lib/util.py", "def helper_fn():\n    return 1\n")
	other.Close()
	update(st, &resident, "app/main.py", main+"\n")
	if resident.files == kept {
		t.Fatal("the path set was reused after another process's commit")
	}
	if got := target(t, st, "run_app", "helper_fn"); got != "helper_fn" {
		t.Fatalf("after another process added lib/util.py, helper_fn resolved to %q", got)
	}
}

// TestResidentParsesAsFromScratch checks that a resident worker, which
// re-parses a file it kept the tree of incrementally from the difference
// between the texts, turns each version of a file into the same rows as a
// parse from scratch.
func TestResidentParsesAsFromScratch(t *testing.T) {
	ctx := context.Background()
	seed, err := os.ReadFile("index.go") // a real file of some size
	if err != nil {
		t.Fatal(err)
	}
	src := string(seed)
	fn := "func process("
	if !strings.Contains(src, fn) {
		t.Fatalf("index.go has no %q", fn)
	}
	versions := []struct{ name, text string }{
		{"original", src},
		{"function appended", src + "\nfunc appendedLater(x int) int { return x + 1 }\n"},
		{"same text again", src + "\nfunc appendedLater(x int) int { return x + 1 }\n"},
		{"function inserted mid-file", strings.Replace(src, fn, "// inserted documents it.\nfunc inserted() error { return nil }\n\n"+fn, 1)},
		{"declaration renamed", strings.Replace(src, fn, "func processRenamed(", 1)},
		{"syntax broken", strings.Replace(src, fn, "func process{{(", 1)},
		{"syntax mended", src},
		{"emptied", ""},
		{"refilled", src},
	}
	opts := Options{Root: t.TempDir(), Config: config.Default()}
	var resident Resident
	defer resident.Close()
	w, giveBack := resident.takeWorker()
	defer giveBack()
	fresh := newWorker(false)
	defer fresh.close()
	for _, v := range versions {
		j := job{cand: candidate{rel: "index/index.go", lang: "go", size: int64(len(v.text))}, content: []byte(v.text)}
		// The worker keeps the previous version's tree, the first excepted.
		if kept := len(w.trees.kept) == 1 && w.trees.kept[0].rel == j.cand.rel; kept != (v.name != "original") {
			t.Fatalf("%s: a kept tree = %v", v.name, kept)
		}
		got, want := process(ctx, opts, w, j), process(ctx, opts, fresh, j)
		got.fd.File.IndexedAt, want.fd.File.IndexedAt = 0, 0
		if !reflect.DeepEqual(got.fd, want.fd) {
			t.Errorf("%s: the incremental parse's rows differ from a parse from scratch", v.name)
		}
	}
}

// TestFileGoneBeforeItIsRead: a file deleted between the walk's (or the
// watcher's) stat and its read is recorded as unreadable, not parsed from
// nothing and not an error of the run; the next run finds it gone.
func TestFileGoneBeforeItIsRead(t *testing.T) {
	root := t.TempDir()
	opts := Options{Root: root, Config: config.Default()}
	w := newWorker(false)
	defer w.close()
	r := process(context.Background(), opts, w, job{cand: candidate{rel: "gone.go", abs: filepath.Join(root, "gone.go"), lang: "go", size: 10}})
	if r.fd.File.Skip != SkipUnreadable || len(r.fd.Entities) != 0 {
		t.Fatalf("a file gone before its read: skip %q, %d entities", r.fd.File.Skip, len(r.fd.Entities))
	}
}

// TestBundledLibraryIsThirdParty: a library's release copied into a
// project (a Python project's jQuery) is stored as third-party code, so
// ranking sets it aside; the project's own script is not.
func TestBundledLibraryIsThirdParty(t *testing.T) {
	root := testWorkspace(t, map[string]string{
		"app/views.py":                  "def render_page(request):\n    return None\n",
		"app/static/js/jquery-3.5.1.js": "(function(window){ function ajax(url){ return url } })(this);\n",
		"app/static/js/vendor.js":       "/*! Widget v1.2.0 | MIT */\nfunction widget(){}\n",
		"app/static/js/app.js":          "function renderPage(){ return null }\n",
	})
	_, st := run(t, root, config.Default())
	for rel, want := range map[string]bool{"app/static/js/jquery-3.5.1.js": true, "app/static/js/vendor.js": true, "app/static/js/app.js": false, "app/views.py": false} {
		f, ok, err := st.FileByPath(context.Background(), rel)
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", rel, ok, err)
		}
		if got := f.Class.Has(workspace.ThirdParty); got != want {
			t.Errorf("%s: third-party %v, want %v (class %v)", rel, got, want, f.Class)
		}
	}
}
