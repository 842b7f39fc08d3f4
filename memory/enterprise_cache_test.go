package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// With the enterprise scope in PostgreSQL, the store reads it from the
// local cache and refuses to write there.
func TestEnterpriseScopeIsTheReadOnlyCache(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ctxls"), 0o755)
	os.WriteFile(config.File(root), []byte("memory:\n  enterprise:\n    backend: postgres\n"), 0o644)
	s := openStore(t, root)
	dir, err := s.Dir(Enterprise)
	if err != nil || dir != config.EnterpriseCacheDir(root) {
		t.Fatalf("Dir(enterprise) = %q, %v", dir, err)
	}
	m := newMem("decision-x", Decision, "x")
	m.Scope = Enterprise
	if err := s.Write(context.Background(), m); !errors.Is(err, ErrEnterpriseCache) {
		t.Fatalf("write to the cache: %v", err)
	}
	if err := s.Link(context.Background(), Enterprise, "decision-a", "decision-b", ""); !errors.Is(err, ErrEnterpriseCache) {
		t.Fatalf("link in the cache: %v", err)
	}
}
