// Package wspath resolves a workspace's root and the paths given relative
// to it, the same way in the full program (cmd/ctxls-core) and in the thin
// client (cmd/ctxls), which must name files exactly as the full program
// would when it hands a call to a workspace's daemon. It imports only the
// standard library.
package wspath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotDir means a root is not a directory.
var ErrNotDir = errors.New("not a directory")

// Root returns dir as an absolute path with symbolic links resolved, after
// checking that it is a directory. A missing dir is an error that
// errors.Is(err, fs.ErrNotExist); a file, ErrNotDir.
func Root(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: %w", abs, ErrNotDir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// Rel returns p relative to root (slash-separated) and as an absolute
// path; p may be absolute or relative to the current directory. A path
// that is not under root from here is taken as relative to root.
func Rel(root, p string) (rel, abs string, err error) {
	abs, err = filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(filepath.Clean(p)), filepath.Join(root, p), nil
	}
	return filepath.ToSlash(r), abs, nil
}
