package mcpserver

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ctxls/ctxls/store"
)

// The server reads sessions and activity from the state file that exists
// now: after it was deleted and recreated, or created after the server
// first opened the index without one.
func TestStoreFollowsTheStateFile(t *testing.T) {
	ctx := context.Background()
	root := testWorkspace(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n\nfunc B() {}\n"})
	srv, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	record := func(path string) {
		t.Helper()
		w, err := store.Open(ctx, root, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.RecordActivity(ctx, store.Activity{Origin: "editor", Type: "file_open", Path: path}); err != nil {
			t.Fatal(err)
		}
	}
	workingSet := func() []string {
		t.Helper()
		st, err := srv.store(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := st.WorkingSet(ctx, time.Now().Add(-time.Hour), 5)
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	for _, p := range []string{store.StatePath(root), store.StatePath(root) + "-wal", store.StatePath(root) + "-shm"} {
		os.Remove(p)
	}
	if ws := workingSet(); len(ws) != 0 {
		t.Fatalf("without a state file: %v", ws)
	}
	record("a.go") // creates the state file
	if ws := workingSet(); len(ws) != 1 || ws[0] != "a.go" {
		t.Fatalf("after the state file appeared: %v", ws)
	}
	if err := os.Remove(store.StatePath(root)); err != nil {
		t.Fatal(err)
	}
	record("b.go")
	if ws := workingSet(); len(ws) != 1 || ws[0] != "b.go" {
		t.Fatalf("after the state file was replaced: %v", ws)
	}
}
