package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DirName is the per-workspace directory holding the index and ctxls's
// other state files.
const DirName = ".ctxls"

// DirPerm and FilePerm are the modes of the state directory and of every
// file in it, whatever the umask: the index holds the workspace's code and
// the state file the person's prompts, which others on the machine must not
// read.
const (
	DirPerm  os.FileMode = 0o700
	FilePerm os.FileMode = 0o600
)

// Dir returns the state directory of a workspace root.
func Dir(root string) string { return filepath.Join(root, DirName) }

// InDir reports whether rel, a slash-separated path relative to the root,
// is the state directory or lies in it: ctxls's own files are never a
// document, a change to index or activity.
func InDir(rel string) bool {
	return rel == DirName || strings.HasPrefix(rel, DirName+"/")
}

// EnsureDir creates root's state directory, private to the user, with a
// .gitignore that keeps all of it out of version control. A directory that
// others may read (made by an earlier ctxls, or under a wide umask) is
// made private, with everything in it.
func EnsureDir(root string) error {
	dir := Dir(root)
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	// MkdirAll applies the umask, and an existing directory keeps its mode.
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if info.Mode().Perm()&^DirPerm != 0 {
		if err := tighten(dir); err != nil {
			return err
		}
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		if err := WriteFileAtomic(gi, []byte("# Created by ctxls: everything here is derived state.\n*\n"), FilePerm); err != nil {
			return err
		}
	}
	return nil
}

// tighten makes dir and everything in it private to the user: directories
// DirPerm, files FilePerm less what they lacked (an executable stays so
// only for the user).
func tighten(dir string) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Chmod(p, DirPerm)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if mode := info.Mode().Perm(); mode&^DirPerm != 0 {
				return os.Chmod(p, mode&DirPerm)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("make %s private: %w", dir, err)
	}
	return nil
}
