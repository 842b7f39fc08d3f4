package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path so that readers see either the old or
// the new content, never a partial file: it writes a temporary file in the
// same directory, syncs it and renames it over path.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the sync: readers still see the old
// or the new content, never a partial file, but after a power loss the file
// may be empty. It is for derived files that are rewritten continuously and
// regenerated on the next change (the auto-context), where an fsync per
// rewrite would put the disk's latency on the editor's critical path.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, false)
}

func replaceFile(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}
