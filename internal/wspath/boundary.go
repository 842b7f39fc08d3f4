package wspath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside means a path's real location, with symbolic links resolved,
// is not within the workspace root. A repository can hold a link to
// ~/.ssh or /etc (git stores symbolic links), and nothing behind such a
// link is the workspace's to read.
var ErrOutside = errors.New("outside the workspace")

// This file is the workspace boundary: every reader of workspace files
// (the index, retrieval's excerpts, the hooks, the language server, the
// sources) asks it, so that one policy decides what is inside. root is a
// real path, as Root returns it, or another name for one.

// Resolve returns the real path of name (absolute, or relative to root):
// symbolic links resolved, and where the file does not exist, its nearest
// existing ancestor resolved (a dangling link by its target) and the rest
// joined to it, which is where the file would be created. A real path
// outside root is ErrOutside, wrapped with name. root is best real (Root
// returns it so); another name for it is resolved, and the answer named
// under root as given.
func Resolve(root, name string) (string, error) {
	abs := name
	if !filepath.IsAbs(abs) {
		// Not filepath.Join, which would take "link/.." away lexically
		// where the system takes it from the link's target.
		abs = root + string(filepath.Separator) + abs
	}
	links := 0
	real, err := evalExisting(abs, &links)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", name, err)
	}
	if Within(root, real) {
		return real, nil
	}
	// A root given by a name with links in it (an editor's folder) stands
	// for its real path; the answer is named under root as given.
	if rr, err := filepath.EvalSymlinks(root); err == nil && rr != root && Within(rr, real) {
		return root + real[len(rr):], nil
	}
	return "", fmt.Errorf("%s is %s, not in %s: %w", name, real, root, ErrOutside)
}

// maxLinks bounds the links followed to resolve a missing path's ancestors,
// as the system's own bound (40 on Linux) ends a loop.
const maxLinks = 40

// evalExisting resolves the symbolic links of an absolute path whose last
// elements may not exist.
func evalExisting(abs string, links *int) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	if info, lerr := os.Lstat(abs); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
		// A dangling link: where it points decides.
		if *links++; *links > maxLinks {
			return "", fmt.Errorf("%s: too many links", abs)
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Dir(abs) + string(filepath.Separator) + target
		}
		return evalExisting(target, links)
	}
	dir, base := filepath.Split(strings.TrimRight(abs, string(filepath.Separator)))
	if dir == "" || base == "" {
		return "", err // the volume root does not exist
	}
	if d := strings.TrimRight(dir, string(filepath.Separator)); d != "" {
		dir = d
	}
	real, err = evalExisting(dir, links)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, base), nil
}

// Inside reports whether path (absolute, or relative to root) resolves, as
// Resolve resolves it, to a location within root.
func Inside(root, path string) bool {
	_, err := Resolve(root, path)
	return err == nil
}

// Within reports whether the clean absolute path p is root or below it,
// by its name only: p is taken to be real already.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// Open opens the file name (absolute, or relative to root) for reading if
// its real path is within root, and fails with ErrOutside otherwise.
//
// The file is opened through an os.Root: each element of the path is
// opened relative to the directory opened before it, without the kernel
// following any symbolic link, and a link is followed only while it stays
// below root. No check precedes the open, so a link swapped in between a
// check and the open cannot redirect it. os.Root refuses absolute link
// targets even where they point inside root; such a name is opened again at
// its real path, through the os.Root too.
func Open(root, name string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return openIn(r, root, name)
}

// ReadFile reads the file name as Open opens it.
func ReadFile(root, name string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := openIn(r, root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// openIn opens name in r, which is root opened.
func openIn(r *os.Root, root, name string) (*os.File, error) {
	if rel, ok := relName(root, name); ok {
		f, err := r.Open(rel)
		if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return f, err
		}
	}
	// os.Root refused the name: it escapes root, or a link on its way has
	// an absolute target, or it is absolute under another name for root.
	// The real path decides.
	real, err := Resolve(root, name)
	if err != nil {
		return nil, err
	}
	rel, _ := relName(root, real)
	return r.Open(rel)
}

// relName returns name relative to root for an os.Root, and whether it is
// lexically below root (an absolute path under another name is not).
func relName(root, name string) (string, bool) {
	if !filepath.IsAbs(name) {
		return name, true
	}
	name = filepath.Clean(name)
	if !Within(root, name) {
		return "", false
	}
	rel, err := filepath.Rel(root, name)
	if err != nil {
		return "", false
	}
	return rel, true
}

// readAll reads an open file whole, sized by its stat as os.ReadFile does.
func readAll(f *os.File) ([]byte, error) {
	size := 512
	if info, err := f.Stat(); err == nil && info.Size() > 0 && int64(int(info.Size())) == info.Size() {
		size = int(info.Size()) + 1
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return data, nil
			}
			return nil, err
		}
		if len(data) >= cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
