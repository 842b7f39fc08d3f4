package hookd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/treewatch"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// How the daemon follows the workspace's files (decision 0092's amendment).
const (
	// followQuiet and followDelay coalesce a burst of writes (an editor's
	// save is a write and a rename, a formatter or git writes many) into
	// one re-index: it starts once no change came for followQuiet, or
	// followDelay after the burst's first change if it goes on. A save's
	// events arrive within a millisecond of each other, so it is re-indexed
	// about followQuiet after it, not followDelay (issue 19 asks for the
	// saved file in the index within 100 ms at p95).
	followQuiet = 10 * time.Millisecond
	followDelay = 50 * time.Millisecond
	// followBatch is the most files the daemon re-indexes itself: its one
	// connection is busy while it writes, and a hook waiting behind a
	// checkout of thousands of files would miss its deadline. A larger
	// burst goes to a background index run (Heal), a process of its own.
	followBatch = 200
	// sharedWriteMax is the most files the daemon re-indexes on the
	// connection its hooks query through (decision 0085 keeps that one
	// warm for the prompt after an Edit). Writing a file holds it for
	// about 1.4 ms (150 files: 210 ms on an idle machine, more than the
	// hook deadline on a loaded one), so a larger batch writes through a
	// connection of its own while hooks go on reading.
	sharedWriteMax = 8
	// followLockWait bounds the wait for another process's index run; the
	// freshness check on render covers what a skipped update leaves behind.
	followLockWait = 2 * time.Second
	// barrierWait bounds how long an index call waits for the watcher to
	// catch up with the moment it asked (see syncCall).
	barrierWait = 2 * time.Second
	// updateMargin is the time before a hook's deadline at which it stops
	// waiting for the follow loop to re-index its files: enough to query
	// again and render (retrieval's minRefreshTime leaves 250 ms).
	updateMargin = 150 * time.Millisecond
)

// barrierPrefix names the files in the state directory that index calls
// create, one each, to learn that the watcher has read every event before
// them: inotify reports a watch's events in order.
const barrierPrefix = "follow-barrier-"

// barrierSeq returns the sequence number of a barrier file's creation.
func barrierSeq(ev fsnotify.Event) (int, bool) {
	name := filepath.Base(ev.Name)
	if !ev.Has(fsnotify.Create) || !strings.HasPrefix(name, barrierPrefix) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, barrierPrefix))
	return n, err == nil
}

// errNotFollowed is why the daemon does not answer an index call itself.
var (
	errNotFollowed = errors.New("the daemon has not followed every change since a whole walk")
	errHeadMoved   = errors.New("the repository's HEAD moved since the last whole walk")
)

// syncCall is an index call waiting in the follow loop: it is answered
// once every change made before it is in the index.
type syncCall struct {
	reply chan syncResult
	seq   int // of its barrier file
}

// updateCall is a hook's re-index of files it is about to render or the
// assistant touched. The follow loop does it: the daemon's one connection
// and the index lock then have one writer, and a hook never waits out a
// lock its own daemon holds while it re-indexes the same files.
type updateCall struct {
	paths []string
	reply chan error
}

// update re-indexes paths (root-relative) for a hook, through the follow
// loop, waiting until updateMargin before the hook's deadline at most.
func (d *daemon) update(ctx context.Context, paths []string) error {
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-updateMargin))
		defer cancel()
	}
	u := updateCall{paths: paths, reply: make(chan error, 1)}
	select {
	case d.updates <- u:
	case <-ctx.Done():
		return fmt.Errorf("the file watcher is busy: %w", ctx.Err())
	}
	select {
	case err := <-u.reply:
		return err
	case <-ctx.Done():
		return fmt.Errorf("the file watcher did not re-index in time: %w", ctx.Err())
	}
}

type syncResult struct {
	sum index.Summary
	err error
}

// follower is the state of the follow loop: what is pending, and whether
// the index is known to match the tree (followed).
type follower struct {
	d    *daemon
	cfg  config.Config
	tree *treewatch.Tree
	// since is when the current watches were all in place; a whole walk
	// that started at or after it, with no event lost since, leaves an
	// index that the watches keep current.
	since    time.Time
	followed bool
	pending  map[string]bool
	due      <-chan time.Time // followDelay after the first pending change
	quiet    *time.Timer      // followQuiet after the latest, while armed
	armed    bool
	waiting  []syncCall
	seq      int
	// lostWhy is why the index was last found not to follow the tree.
	lostWhy string
	// resident keeps the tracked paths and a parser between re-indexes
	// (decision 0092).
	resident index.Resident
}

// follow re-indexes the files that change on disk while the daemon runs,
// so that a hook answers from the current code without checking it first:
// an edit in another editor, a formatter, a `git checkout`. Once a whole
// walk has run since its watches were in place, it also answers `ctxls
// index` without a walk (decision 0110). It runs until ctx ends.
func (d *daemon) follow(ctx context.Context) {
	f := &follower{d: d, pending: map[string]bool{}}
	if err := f.watch(); err != nil {
		d.log.Warn("follow files: no watcher; shown files are checked against the disk instead", zap.Error(err))
		d.following.Store(&hookcall.Following{NoWatcher: err.Error()})
		f.refuseAll(ctx)
		return
	}
	defer func() { f.tree.Close() }()
	defer f.resident.Close()
	// A daemon started on an index no walk has reported yet (the usual
	// start, from a hook) readies the first save as a walk's end does:
	// its path set, parsers and compiled queries took net/http/server.go's
	// first save from 143-191 ms to 115-150 (the rest is the full parse of
	// a file whose tree is not kept yet).
	if err := f.resident.Warm(ctx, d.st); err != nil {
		d.log.Debug("follow files: warm up", zap.Error(err))
	}
	f.quiet = time.NewTimer(followQuiet)
	f.quiet.Stop()
	for {
		var quiet <-chan time.Time
		if f.armed {
			quiet = f.quiet.C
		}
		select {
		case <-ctx.Done():
			f.answer(syncResult{err: ctx.Err()})
			return
		case ev, ok := <-f.tree.Events():
			if !ok {
				return
			}
			f.event(ctx, ev)
		case err, ok := <-f.tree.Errors():
			if !ok {
				return
			}
			// An overflow of the kernel's queue loses events: have the
			// whole tree compared with the index.
			d.log.Warn("follow files", zap.Error(err))
			f.lost(fmt.Sprintf("file watcher: %v", err))
		case w := <-d.walked:
			if !f.tree.Full() && !w.Before(f.since) {
				f.followed = true
				f.publish()
			}
			if err := f.resident.Warm(ctx, d.st); err != nil {
				d.log.Debug("follow files: warm up", zap.Error(err))
			}
		case c := <-d.syncs:
			f.call(ctx, c)
		case u := <-d.updates:
			f.update(ctx, u)
		case <-f.due:
			f.flush(ctx)
		case <-quiet:
			f.flush(ctx)
		}
	}
}

// watch (re)starts the watches with the current configuration and ignore
// files. Until a whole walk starts after it, the index is not known to
// match the tree.
func (f *follower) watch() error {
	cfg, err := config.Load(f.d.opts.Root)
	if err != nil {
		f.d.log.Warn("follow files: configuration", zap.Error(err))
		cfg = config.Default()
	}
	f.cfg = cfg // re-indexes use it even when no watch can be set
	tree, err := treewatch.New(f.d.opts.Root, f.d.opts.MaxWatchedDirs, index.NewScope(f.d.opts.Root, cfg.Index))
	if err != nil {
		return err
	}
	if f.tree != nil {
		f.tree.Close()
	}
	f.tree, f.since, f.followed = tree, time.Now(), false
	// Their barriers were written under the old watches.
	f.answer(syncResult{err: errNotFollowed})
	if tree.Full() {
		f.d.log.Warn("follow files: not every directory is watched", zap.String("why", tree.FullBecause()))
	}
	f.publish()
	return nil
}

// publish makes the loop's state what the daemon reports of it (Info).
func (f *follower) publish() {
	st := &hookcall.Following{Dirs: f.tree.Dirs(), Partial: f.tree.FullBecause(), Current: f.followed, Lost: f.lostWhy}
	f.d.following.Store(st)
}

// event takes one watcher event.
func (f *follower) event(ctx context.Context, ev fsnotify.Event) {
	if f.tree.InStateDir(ev) {
		if seq, ok := barrierSeq(ev); ok {
			f.barrier(ctx, seq, ev.Name)
		}
		if ev.Name == filepath.Join(workspace.Dir(f.d.opts.Root), "config.yaml") {
			f.rewatch("the configuration changed")
		}
		return
	}
	if index.IgnoreFile(filepath.Base(ev.Name)) {
		// What the walk indexes changed: new watches, and a walk.
		f.rewatch(fmt.Sprintf("%s changed", ev.Name))
		f.d.reindexAll("an ignore file changed")
		return
	}
	files := f.tree.Files(ev)
	if len(files) == 0 && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		// A directory removed or renamed away takes its files along, and
		// no event names them.
		if rel, ok := f.tree.Rel(ev.Name); ok {
			under, err := f.d.st.PathsUnder(ctx, rel)
			if err != nil {
				f.lost(fmt.Sprintf("files under %s: %v", rel, err))
			}
			files = under
		}
	}
	for _, rel := range files {
		f.pending[rel] = true
	}
	if len(f.pending) > 0 {
		if f.due == nil {
			f.due = time.After(followDelay)
		}
		f.quiet.Reset(followQuiet)
		f.armed = true
	}
}

// rewatch starts new watches after a change to what the walk indexes.
func (f *follower) rewatch(why string) {
	if err := f.watch(); err != nil {
		f.d.log.Warn("follow files: new watches", zap.String("why", why), zap.Error(err))
		f.followed = false
		f.lostWhy = fmt.Sprintf("new watches after %s: %v", why, err)
		f.publish()
	}
}

// lost records that the index may no longer match the tree, and has a
// background walk compare them.
func (f *follower) lost(reason string) {
	f.followed = false
	f.since = time.Now()
	f.lostWhy = reason
	f.publish()
	f.d.reindexAll(reason)
}

// flush brings the pending files into the index, or has a background run
// do it when they are many.
func (f *follower) flush(ctx context.Context) (index.Summary, error) {
	f.due, f.armed = nil, false
	f.quiet.Stop()
	paths := make([]string, 0, len(f.pending))
	for p := range f.pending {
		paths = append(paths, p)
	}
	clear(f.pending)
	if len(paths) == 0 {
		return index.Summary{}, nil
	}
	if len(paths) > followBatch {
		f.lost(fmt.Sprintf("%d files changed on disk", len(paths)))
		return index.Summary{}, errNotFollowed
	}
	slices.Sort(paths)
	changes := make([]index.Change, len(paths))
	for i, p := range paths {
		changes[i] = index.Change{Path: p}
	}
	start := time.Now()
	sum, err := f.reindex(ctx, changes)
	if err != nil {
		f.d.log.Warn("follow files: re-index", zap.Int("files", len(paths)), zap.Error(err))
		// Not lost for good: the next walk (or render) catches up; until
		// then the index is not known to be current.
		f.followed = false
		f.since = time.Now()
		return sum, err
	}
	f.d.log.Debug("follow files: re-indexed", zap.Int("files", len(paths)), zap.Int("parsed", sum.Parsed), zap.Int("deleted", sum.Deleted), zap.Duration("took", time.Since(start)))
	return sum, nil
}

// reindex brings changes into the index: on the daemon's own connection
// when they are few, else on one opened for them.
func (f *follower) reindex(ctx context.Context, changes []index.Change) (index.Summary, error) {
	opts := index.Options{Root: f.d.opts.Root, Config: f.cfg, Log: f.d.log, Workers: 1, LockTimeout: followLockWait}
	if len(changes) <= sharedWriteMax {
		opts.Resident = &f.resident
		return index.Update(ctx, f.d.st, opts, changes)
	}
	st, err := store.Open(ctx, f.d.opts.Root, store.Options{BusyTimeout: followLockWait, Existing: true})
	if err != nil {
		return index.Summary{}, err
	}
	defer st.Close()
	return index.Update(ctx, st, opts, changes)
}

// update does a hook's re-index, with whatever else is pending: a hook
// that renders files the watcher saw change waits for them once.
func (f *follower) update(ctx context.Context, u updateCall) {
	for _, p := range u.paths {
		f.pending[p] = true
	}
	_, err := f.flush(ctx)
	u.reply <- err
}

// call takes an index call: it is answered once the watcher has read every
// event up to now, which its barrier file's own event proves.
func (f *follower) call(ctx context.Context, c syncCall) {
	if !f.followed {
		c.reply <- syncResult{err: errNotFollowed}
		return
	}
	// A checkout, pull or commit: the files follow, the history in the
	// index does not; a walk records it.
	if moved, err := index.HeadMoved(ctx, f.d.st, f.d.opts.Root); err != nil || moved {
		c.reply <- syncResult{err: errHeadMoved}
		return
	}
	f.seq++
	c.seq = f.seq
	name := filepath.Join(workspace.Dir(f.d.opts.Root), barrierPrefix+strconv.Itoa(c.seq))
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		c.reply <- syncResult{err: fmt.Errorf("follow barrier: %w", err)}
		return
	}
	f.waiting = append(f.waiting, c)
}

// barrier answers the index calls up to the one whose barrier file the
// watcher has reached, once the changes before it are in the index.
func (f *follower) barrier(ctx context.Context, seq int, name string) {
	os.Remove(name)
	n := 0
	for n < len(f.waiting) && f.waiting[n].seq <= seq {
		n++
	}
	if n == 0 {
		return
	}
	sum, err := f.flush(ctx)
	if err == nil && !f.followed {
		err = errNotFollowed
	}
	for _, c := range f.waiting[:n] {
		c.reply <- syncResult{sum: sum, err: err}
	}
	f.waiting = slices.Delete(f.waiting, 0, n)
}

// answer replies to every waiting index call.
func (f *follower) answer(r syncResult) {
	for _, c := range f.waiting {
		c.reply <- r
	}
	f.waiting = nil
}

// refuseAll answers index calls when the daemon cannot watch at all.
func (f *follower) refuseAll(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-f.d.syncs:
			c.reply <- syncResult{err: errNotFollowed}
		case u := <-f.d.updates:
			f.update(ctx, u)
		case <-f.d.walked:
		}
	}
}

// reindexAll has the whole tree compared with the index in the background.
func (d *daemon) reindexAll(reason string) {
	if d.opts.Heal != nil {
		d.opts.Heal(d.opts.Root, reason)
	}
}
