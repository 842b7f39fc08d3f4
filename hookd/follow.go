package hookd

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/treewatch"
)

// How the daemon follows the workspace's files (decision 0092's amendment).
const (
	// followDelay coalesces a burst of writes (an editor's save is a write
	// and a rename, a formatter or git writes many) into one re-index.
	followDelay = 50 * time.Millisecond
	// followBatch is the most files the daemon re-indexes itself: its one
	// connection is busy while it writes, and a hook waiting behind a
	// checkout of thousands of files would miss its deadline. A larger
	// burst goes to a background index run (Heal), a process of its own.
	followBatch = 200
	// followLockWait bounds the wait for another process's index run; the
	// freshness check on render covers what a skipped update leaves behind.
	followLockWait = 2 * time.Second
)

// follow re-indexes the files that change on disk while the daemon runs,
// so that a hook answers from the current code without checking it first:
// an edit in another editor, a formatter, a `git checkout`. It runs until
// ctx ends.
func (d *daemon) follow(ctx context.Context) {
	tree, err := treewatch.New(d.opts.Root, 0)
	if err != nil {
		d.log.Warn("follow files: no watcher; shown files are checked against the disk instead", zap.Error(err))
		return
	}
	defer tree.Close()
	if tree.Full() {
		d.log.Warn("follow files: not every directory is watched", zap.Int("max", treewatch.DefaultMaxDirs))
	}
	cfg, err := config.Load(d.opts.Root)
	if err != nil {
		d.log.Warn("follow files: configuration", zap.Error(err))
		cfg = config.Default()
	}
	pending := map[string]bool{}
	var due <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-tree.Events():
			if !ok {
				return
			}
			for _, rel := range tree.Files(ev) {
				pending[rel] = true
			}
			if len(pending) > 0 && due == nil {
				due = time.After(followDelay)
			}
		case err, ok := <-tree.Errors():
			if !ok {
				return
			}
			// An overflow of the kernel's queue loses events: have the
			// whole tree compared with the index.
			d.log.Warn("follow files", zap.Error(err))
			d.reindexAll(fmt.Sprintf("file watcher: %v", err))
		case <-due:
			due = nil
			paths := make([]string, 0, len(pending))
			for p := range pending {
				paths = append(paths, p)
			}
			clear(pending)
			d.reindex(ctx, cfg, paths)
		}
	}
}

// reindex brings changed files into the index, or has a background run do
// it when they are many.
func (d *daemon) reindex(ctx context.Context, cfg config.Config, paths []string) {
	if len(paths) > followBatch {
		d.reindexAll(fmt.Sprintf("%d files changed on disk", len(paths)))
		return
	}
	slices.Sort(paths)
	changes := make([]index.Change, len(paths))
	for i, p := range paths {
		changes[i] = index.Change{Path: p}
	}
	start := time.Now()
	sum, err := index.Update(ctx, d.st, index.Options{Root: d.opts.Root, Config: cfg, Log: d.log, Workers: 1, LockTimeout: followLockWait}, changes)
	if err != nil {
		d.log.Warn("follow files: re-index", zap.Int("files", len(paths)), zap.Error(err))
		return
	}
	d.log.Debug("follow files: re-indexed", zap.Int("files", len(paths)), zap.Int("parsed", sum.Parsed), zap.Int("deleted", sum.Deleted), zap.Duration("took", time.Since(start)))
}

// reindexAll has the whole tree compared with the index in the background.
func (d *daemon) reindexAll(reason string) {
	if d.opts.Heal != nil {
		d.opts.Heal(d.opts.Root, reason)
	}
}
