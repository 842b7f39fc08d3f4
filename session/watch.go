package session

import (
	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/treewatch"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// watcher follows a folder's files (treewatch), so that edits made outside
// the editor (the assistant's tools, git, formatters) reach the index.
type watcher struct {
	f    *Folder
	tree *treewatch.Tree
	done chan struct{}
}

func newWatcher(f *Folder) (*watcher, error) {
	tree, err := treewatch.New(f.root, 0, index.NewScope(f.root, f.cfg.Index))
	if err != nil {
		return nil, err
	}
	if tree.Full() {
		f.log.Warn("watch: not every directory is watched; files outside the watches are re-indexed when shown or by the next run", zap.Int("max", treewatch.DefaultMaxDirs))
	}
	w := &watcher{f: f, tree: tree, done: make(chan struct{})}
	go w.run()
	return w, nil
}

func (w *watcher) run() {
	defer close(w.done)
	stateDir := workspace.Dir(w.f.root)
	for {
		select {
		case ev, ok := <-w.tree.Events():
			if !ok {
				return
			}
			if w.tree.InStateDir(ev) {
				// Create too: a file moved over the index or state file
				// replaces it without a Remove (store.Displaced).
				if ev.Has(fsnotify.Remove|fsnotify.Create) && (ev.Name == store.Path(w.f.root) || ev.Name == store.StatePath(w.f.root) || ev.Name == stateDir) {
					if err := w.f.ensureStore(w.f.ctx); err != nil {
						w.f.log.Error("recreate index", zap.Error(err))
					}
					w.tree.WatchStateDir()
				}
				continue
			}
			for _, rel := range w.tree.Files(ev) {
				w.f.changed(rel, diskChanged, nil)
			}
		case err, ok := <-w.tree.Errors():
			if !ok {
				return
			}
			w.f.log.Warn("file watcher", zap.Error(err))
		}
	}
}

func (w *watcher) close() {
	w.tree.Close()
	<-w.done
}
