package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFileAtomic writes data to path so that readers see either the old or
// the new content, never a partial file: it writes a temporary file in the
// same directory, syncs it and renames it over path. The file is created
// with perm less the process's umask, as os.WriteFile creates one: files
// shared through git (the memory store) keep the person's umask, and files
// private to ctxls pass 0o600.
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
	f, err := createTemp(path, perm)
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
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}

// createTemp creates a new file beside path with perm less the umask
// (os.CreateTemp creates 0o600 whatever the umask, and a chmod afterwards
// cannot apply the umask, which Go cannot read without changing it).
func createTemp(path string, perm os.FileMode) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	for range 100 {
		f, err := os.OpenFile(prefix+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name beside %s", path)
}
