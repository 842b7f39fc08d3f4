// Package treewatch follows a workspace's source files with fsnotify, for
// the processes that keep its index current: the language server and the
// hook daemon. It watches the directories a whole index walk enters
// (index.Scope: ignore files, configured patterns, vendor and build-output
// directories and the state directory left out), names the changed files
// that walk would index, follows no symbolic link, and stops adding watches
// at a bound: past it, what is rendered is still checked against the disk
// (decision 0092), only the early re-index is lost.
package treewatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/symbols"
)

// DefaultMaxDirs bounds the directories one tree watches: an inotify watch
// costs about 1 KiB of kernel memory, and Linux's default per-user limit
// (fs.inotify.max_user_watches) is 8,192 on older kernels.
const DefaultMaxDirs = 8000

// Tree watches the directories below a root.
type Tree struct {
	root    string
	scope   *index.Scope
	maxDirs int
	watched map[string]bool // the directories watched
	full    bool            // some directories are not watched: see fullWhy
	fullWhy string
	fsw     *fsnotify.Watcher
}

// New watches root and the directories below it that scope enters, at most
// maxDirs (0 means DefaultMaxDirs). It also watches the state directory
// itself, so that the caller sees the index deleted; events in it are for
// the caller to judge. The tree keeps scope and asks it from the goroutine
// that calls Files.
func New(root string, maxDirs int, scope *index.Scope) (*Tree, error) {
	if maxDirs <= 0 {
		maxDirs = DefaultMaxDirs
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	t := &Tree{root: root, scope: scope, maxDirs: maxDirs, fsw: fsw, watched: map[string]bool{}}
	if err := t.add(root); err != nil {
		fsw.Close()
		return nil, err
	}
	t.WatchStateDir()
	return t, nil
}

// WatchStateDir watches the state directory itself (again, after it was
// deleted and recreated), so that the caller sees the index deleted;
// events in it are for the caller to judge (InStateDir).
func (t *Tree) WatchStateDir() { _ = t.fsw.Add(workspace.Dir(t.root)) }

// Events are fsnotify's events; pass each to Files.
func (t *Tree) Events() <-chan fsnotify.Event { return t.fsw.Events }

// Errors are fsnotify's errors (an overflow of the kernel's queue among
// them: events were lost).
func (t *Tree) Errors() <-chan error { return t.fsw.Errors }

// Full reports whether the bound on watched directories was reached.
func (t *Tree) Full() bool { return t.full }

// Dirs returns how many directories are watched.
func (t *Tree) Dirs() int { return len(t.watched) }

// FullBecause says why some directories are not watched: the tree's own
// bound, or the system's (inotify's fs.inotify.max_user_watches); "" when
// every directory is watched.
func (t *Tree) FullBecause() string { return t.fullWhy }

// Close stops watching; Events and Errors are then closed.
func (t *Tree) Close() error { return t.fsw.Close() }

// InStateDir reports whether ev concerns the state directory or a file
// directly in it.
func (t *Tree) InStateDir(ev fsnotify.Event) bool {
	dir := workspace.Dir(t.root)
	return ev.Name == dir || filepath.Dir(ev.Name) == dir
}

// Files returns the source files an event says changed, as paths relative
// to the root (slash-separated), and watches a new directory: a checkout
// or `mkdir -p` creates directories whose files no event will name, so
// those are returned too. Files no supported language claims, files outside
// the root and in the state directory are left out. Call it from one
// goroutine: it adds watches.
func (t *Tree) Files(ev fsnotify.Event) []string {
	if t.InStateDir(ev) {
		return nil
	}
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		t.forget(ev.Name)
	}
	if ev.Has(fsnotify.Create) {
		// Lstat: a new link to a directory is a file to the index (which
		// records it and never follows it), not a directory to watch.
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			_ = t.add(ev.Name)
			var out []string
			_ = filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if d.IsDir() && p != ev.Name && !t.entered(p) {
					return filepath.SkipDir
				}
				if !d.IsDir() {
					if rel, ok := t.source(p); ok {
						out = append(out, rel)
					}
				}
				return nil
			})
			return out
		}
	}
	if rel, ok := t.source(ev.Name); ok {
		return []string{rel}
	}
	return nil
}

// source returns abs relative to the root if it is a source file there
// that the walk would index.
func (t *Tree) source(abs string) (string, bool) {
	if _, ok := symbols.LanguageFor(abs); !ok {
		return "", false
	}
	rel, ok := t.Rel(abs)
	if !ok || !t.scope.File(rel) {
		return "", false
	}
	return rel, true
}

// Rel returns abs relative to the root (slash-separated), if it is below
// the root and outside the state directory.
func (t *Tree) Rel(abs string) (string, bool) {
	rel, err := filepath.Rel(t.root, abs)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || workspace.InDir(rel) {
		return "", false
	}
	return rel, true
}

// entered reports whether the walk enters the directory abs (below the
// root).
func (t *Tree) entered(abs string) bool {
	rel, ok := t.Rel(abs)
	return ok && t.scope.Dir(rel)
}

// add watches dir and its subdirectories. WalkDir follows no link below
// dir, and dir itself must resolve inside the root: inotify follows a link
// it is given, and a watch through a link to ~ or /etc would feed the index
// paths outside the workspace.
func (t *Tree) add(dir string) error {
	if dir != t.root && !wspath.Inside(t.root, dir) {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != t.root && !t.entered(p) {
			return filepath.SkipDir
		}
		if t.watched[p] {
			return nil
		}
		if len(t.watched) >= t.maxDirs {
			t.full, t.fullWhy = true, fmt.Sprintf("the bound of %d watched directories was reached", t.maxDirs)
			return filepath.SkipAll
		}
		if err := t.fsw.Add(p); err != nil {
			// Out of watches (ENOSPC) or the directory went away.
			t.full = true
			if errors.Is(err, syscall.ENOSPC) {
				t.fullWhy = fmt.Sprintf("the system's limit of watches was reached after %d directories (raise fs.inotify.max_user_watches)", len(t.watched))
			} else {
				t.fullWhy = fmt.Sprintf("watching %s: %v", p, err)
			}
			return filepath.SkipAll
		}
		t.watched[p] = true
		return nil
	})
}

// forget stops watching dir and the directories below it, after dir was
// renamed or removed. fsnotify keeps a moved directory's watch under its
// old path, and drops it once the move reaches that watch: the new path,
// watched again on its Create event, shared the watch and went unwatched
// (a file created in a renamed directory was never indexed). Forgotten
// first, the new path gets a watch of its own.
func (t *Tree) forget(dir string) {
	if !t.watched[dir] {
		return
	}
	prefix := dir + string(filepath.Separator)
	for p := range t.watched {
		if p == dir || strings.HasPrefix(p, prefix) {
			_ = t.fsw.Remove(p) // gone already when the directory was removed
			delete(t.watched, p)
		}
	}
}
