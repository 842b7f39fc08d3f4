// Package wstest writes workspaces for tests and indexes them with the real
// indexer into the real SQLite file, so that every test of a package above
// the index starts from the same kind of workspace in one call.
package wstest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// Write writes files (slash-separated path relative to root → content)
// under root, creating directories as needed.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatalf("write workspace: %v", err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatalf("write workspace: %v", err)
		}
	}
}

// New writes files under a new temporary directory and returns it.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	Write(t, root, files)
	return root
}

// Open opens root's index (<root>/.ctxls/index.db, created when missing),
// runs a whole index over root with the default configuration, and
// returns the store, closed when the test ends.
func Open(t testing.TB, root string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatalf("open the index of %s: %v", root, err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := index.Run(context.Background(), st, index.Options{Root: root, Config: config.Default()}); err != nil {
		t.Fatalf("index %s: %v", root, err)
	}
	return st
}

// Index indexes root as Open does and closes the store at once, for tests
// that hand the workspace to another process or package to open.
func Index(t testing.TB, root string) {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatalf("open the index of %s: %v", root, err)
	}
	defer st.Close()
	if _, err := index.Run(context.Background(), st, index.Options{Root: root, Config: config.Default()}); err != nil {
		t.Fatalf("index %s: %v", root, err)
	}
}

// Indexed writes files under a new temporary directory, indexes it and
// returns the root with its open store (closed when the test ends).
func Indexed(t testing.TB, files map[string]string) (string, *store.Store) {
	t.Helper()
	root := New(t, files)
	return root, Open(t, root)
}
