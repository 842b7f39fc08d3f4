// Package sourcestest holds test helpers for the context sources: building
// workspaces and home directories of rule, agent and skill files.
package sourcestest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles creates each slash-separated path of files under dir with its
// content, making directories as needed.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
