package server

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// skippedDirs are never watched: they hold no source of the workspace, or
// change constantly (the same list the index walk skips; .gitignore'd
// directories elsewhere are watched, and a file the index would ignore is
// dropped again by the next full run).
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "bower_components": true,
	"__pycache__": true, ".venv": true, "venv": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".next": true, ".nuxt": true, ".gradle": true,
	".idea": true, ".terraform": true, ".cache": true,
}

// watcher follows a folder's files with fsnotify, so that edits made outside
// the editor (the assistant's tools, git, formatters) reach the index.
type watcher struct {
	f    *folder
	fsw  *fsnotify.Watcher
	done chan struct{}
}

func newWatcher(f *folder) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{f: f, fsw: fsw, done: make(chan struct{})}
	if err := w.addTree(f.root); err != nil {
		fsw.Close()
		return nil, err
	}
	// The state directory itself, to notice the index being deleted.
	_ = fsw.Add(store.Dir(f.root))
	go w.run()
	return w, nil
}

// addTree watches dir and its subdirectories. WalkDir follows no link below
// dir, and dir itself must resolve inside the root: inotify follows a link
// it is given, and a watch through a link to ~ or /etc would feed the index
// paths outside the workspace.
func (w *watcher) addTree(dir string) error {
	if dir != w.f.root && !wspath.Inside(w.f.root, dir) {
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
		if p != w.f.root && (skippedDirs[d.Name()] || d.Name() == store.DirName || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(p); err != nil {
			w.f.log.Warn("watch", zap.String("dir", p), zap.Error(err))
		}
		return nil
	})
}

func (w *watcher) run() {
	defer close(w.done)
	stateDir := store.Dir(w.f.root)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if filepath.Dir(ev.Name) == stateDir || ev.Name == stateDir {
				if ev.Has(fsnotify.Remove) && (ev.Name == store.Path(w.f.root) || ev.Name == store.StatePath(w.f.root) || ev.Name == stateDir) {
					if err := w.f.ensureStore(w.f.ctx); err != nil {
						w.f.log.Error("recreate index", zap.Error(err))
					}
					_ = w.fsw.Add(stateDir)
				}
				continue
			}
			w.event(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.f.log.Warn("file watcher", zap.Error(err))
		}
	}
}

func (w *watcher) event(ev fsnotify.Event) {
	rel, err := filepath.Rel(w.f.root, ev.Name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	if ev.Has(fsnotify.Create) {
		// Lstat: a new link to a directory is a file to the index (which
		// records it and never follows it), not a directory to watch.
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			// A new directory (git checkout, mkdir -p): watch it and index
			// what it already holds.
			if err := w.addTree(ev.Name); err != nil {
				w.f.log.Debug("watch new directory", zap.Error(err))
			}
			_ = filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					w.file(p)
				}
				return nil
			})
			return
		}
	}
	w.file(ev.Name)
}

// file queues one path for the index, if a supported language claims it.
func (w *watcher) file(abs string) {
	if _, ok := symbols.LanguageFor(abs); !ok {
		return
	}
	rel, err := filepath.Rel(w.f.root, abs)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, "..") || inStateDir(rel) {
		return
	}
	w.f.changed(rel, diskChanged, nil)
}

func (w *watcher) close() {
	w.fsw.Close()
	<-w.done
}

// didChangeWatchedFiles re-indexes what the client saw change on disk.
func (s *Server) didChangeWatchedFiles(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	for _, ch := range p.Changes {
		abs := pathOf(string(ch.URI))
		f, rel := s.sourceFolderFor(abs)
		if f == nil || rel == "" {
			continue
		}
		f.changed(rel, diskChanged, nil)
	}
	return nil, nil
}
