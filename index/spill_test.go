package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/store"
)

// A killed cold run leaves its spill file behind; the next run, under the
// same lock, removes it, and its own spill file is gone once closed. The
// references read back are those written, in order.
func TestRefSpillReplacesAKilledRunsFile(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "refs-123.spill")
	if err := os.WriteFile(stale, []byte("left by a killed run"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := newRefSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale spill file is still there: %v", err)
	}
	want := [][]store.Ref{{{SrcID: 1, FileID: 2, Name: "a", Line: 3}}, nil, {{SrcID: 4, FileID: 5, Name: "b", Qualifier: "q", Line: 6}}}
	for _, refs := range want {
		if err := s.put(refs); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.rewind(); err != nil {
		t.Fatal(err)
	}
	for i, refs := range want {
		got, err := s.next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(refs) || len(refs) > 0 && (got[0].Name != refs[0].Name || got[0].SrcID != refs[0].SrcID || got[0].Qualifier != refs[0].Qualifier) {
			t.Fatalf("file %d: got %+v, want %+v", i, got, refs)
		}
	}
	s.close()
	if left, _ := filepath.Glob(filepath.Join(dir, spillPattern)); len(left) != 0 {
		t.Fatalf("spill files left after close: %v", left)
	}
}
