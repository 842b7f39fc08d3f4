package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{
		{"WriteFileAtomic", WriteFileAtomic},
		{"ReplaceFile", ReplaceFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.md")
			if err := tc.write(p, []byte("one"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(p, []byte("two"), 0o600); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			info, _ := os.Stat(p)
			entries, _ := os.ReadDir(dir)
			if string(data) != "two" || info.Mode().Perm() != 0o600 || len(entries) != 1 {
				t.Fatalf("content %q mode %v entries %d", data, info.Mode(), len(entries))
			}
			// A write that fails leaves the old content and no temporary file.
			if err := tc.write(filepath.Join(dir, "missing", "f.md"), []byte("x"), 0o644); err == nil {
				t.Fatal("write into a missing directory succeeded")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("entries after a failed write: %d", len(entries))
			}
		})
	}
}

// Files written outside the state directory keep the person's umask: the
// memory store is shared through git.
func TestWriteFileAtomicKeepsUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "memory.md")
	if err := WriteFileAtomic(p, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o644 {
		t.Errorf("WriteFileAtomic with 0o666 under umask 022: %v", info.Mode())
	}
}
