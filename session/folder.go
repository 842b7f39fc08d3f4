package session

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/overlay"
	"github.com/ctxls/ctxls/store"
)

// Folder is one workspace folder: its own index (store), queue of changes
// for the index, watcher and context engine.
type Folder struct {
	sess *Session
	root string
	cfg  config.Config
	log  *zap.Logger
	eng  *engine.Engine

	stMu sync.RWMutex
	st   *store.Store

	// indexMu serialises this process's index writes to the folder (the
	// index's file lock serialises them across processes), and guards
	// resident, the parser and trees those writes keep between them.
	indexMu  sync.Mutex
	resident index.Resident
	// reopenMu serialises replacing a deleted index (ensureStore).
	reopenMu sync.Mutex
	// repairMu serialises checks for damaged pages; checked is when the
	// last one ran (repairIfCorrupt).
	repairMu sync.Mutex
	checked  time.Time

	// pendingMu guards the files and buffers waiting to reach the index.
	pendingMu  sync.Mutex
	pending    map[string]*[]byte // rel → buffer content, or nil for "from disk"
	flushTimer *time.Timer

	// statusMu orders the ready notifications; see sendReady.
	statusMu sync.Mutex

	// buffers are the folder's open documents as the engine reads them.
	buffers *overlay.View

	watcher  *watcher
	memories memories
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func openFolder(ctx context.Context, sess *Session, root string) (*Folder, error) {
	cfg, err := config.Load(root)
	if err != nil {
		// A malformed config must not cost the person their editor
		// features: log it and use the defaults.
		sess.log.Warn("config", zap.String("root", root), zap.Error(err))
		cfg = config.Default()
	}
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		return nil, err
	}
	if st.Recovered != "" {
		sess.log.Warn("index was corrupt; moved aside and rebuilding", zap.String("moved", st.Recovered))
	}
	fctx, cancel := context.WithCancel(sess.ctx)
	f := &Folder{sess: sess, root: root, cfg: cfg, log: sess.log.With(zap.String("root", root)), st: st, pending: map[string]*[]byte{}, ctx: fctx, cancel: cancel}
	f.memories.f = f
	f.buffers = sess.docs.View(root)
	debounce := cfg.ServeDebounce()
	if sess.opts.Debounce != nil {
		debounce = *sess.opts.Debounce
	}
	set := sess.currentSettings()
	f.eng = engine.New(engine.Options{
		Root: root, Store: st, Config: cfg, Debounce: debounce, Buffers: f.buffers, Log: f.log, Settings: &set,
		OnWrite: f.written, OnError: func(err error) { f.repairIfCorrupt(f.ctx, err) },
	})
	if err := f.eng.Restore(ctx); err != nil {
		f.log.Debug("restore engine memory", zap.Error(err))
	}
	if n, err := st.EntityCount(ctx); err == nil {
		f.eng.SetEntities(n)
	}
	return f, nil
}

// store returns the folder's current store.
func (f *Folder) store() *store.Store {
	f.stMu.RLock()
	defer f.stMu.RUnlock()
	return f.st
}

// Root is the folder's root directory.
func (f *Folder) Root() string { return f.root }

// Start begins the initial index run and the watcher.
func (f *Folder) Start() {
	if !f.sess.opts.NoWatch {
		w, err := newWatcher(f)
		if err != nil {
			f.log.Warn("file watcher unavailable; relying on the client's didChangeWatchedFiles", zap.Error(err))
		} else {
			f.watcher = w
		}
	}
	if f.sess.opts.NoIndex {
		f.memories.store() // the first hover finds the memories synced
		return
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		if _, err := f.Reindex(f.ctx); err != nil && f.ctx.Err() == nil {
			f.log.Error("index", zap.Error(err))
		}
		f.memories.store()
	}()
}

// Reindex runs a full index update, reporting progress to the client. A
// run that meets damaged pages sets the file aside and starts another.
func (f *Folder) Reindex(ctx context.Context) (index.Summary, error) {
	sum, err := f.indexAll(ctx)
	if err != nil {
		f.repairIfCorrupt(ctx, err)
	}
	return sum, err
}

func (f *Folder) indexAll(ctx context.Context) (index.Summary, error) {
	if err := f.ensureStore(ctx); err != nil {
		return index.Summary{}, err
	}
	f.indexMu.Lock()
	defer f.indexMu.Unlock()
	f.sess.status(Status{Root: f.root, State: "indexing"})
	var last time.Time
	sum, err := index.Run(ctx, f.store(), index.Options{
		Root: f.root, Config: f.cfg, Log: f.log,
		Progress: func(done, total int) {
			if time.Since(last) >= 250*time.Millisecond {
				last = time.Now()
				f.sess.status(Status{Root: f.root, State: "indexing", FilesDone: done, FilesTotal: total})
			}
		},
	})
	if err != nil {
		f.sess.status(Status{Root: f.root, State: "error", Message: err.Error()})
		return sum, err
	}
	f.log.Info("indexed", zap.Int("files", sum.Files), zap.Int("parsed", sum.Parsed), zap.Float64("seconds", sum.Seconds))
	if sum.Parsed > 0 || sum.Deleted > 0 {
		f.eng.IndexChanged()
	}
	if sum.Parsed > 1000 {
		// A large run leaves hundreds of MB of parse garbage the runtime
		// would return to the OS only slowly; the server lives on for
		// hours, so give it back now.
		debug.FreeOSMemory()
	}
	f.readyStatus(ctx)
	return sum, nil
}

// readyStatus refreshes the entity count and tells the client.
func (f *Folder) readyStatus(ctx context.Context) {
	if n, err := f.store().EntityCount(ctx); err == nil {
		f.eng.SetEntities(n)
	}
	f.sendReady()
}

// written is the engine's OnWrite: the auto-context changed size.
func (f *Folder) written(*engine.Snapshot) { f.sendReady() }

// sendReady tells the client the folder's entity count and auto-context
// size as they are now. An auto-context write that began before an index
// update can end after it: had it sent the count it started with, the
// status bar would keep the old count until the next write. Reading the
// values under statusMu makes the last notification the client gets carry
// the newest ones, whichever goroutine sends it.
func (f *Folder) sendReady() {
	f.statusMu.Lock()
	defer f.statusMu.Unlock()
	st := Status{Root: f.root, State: "ready", Entities: f.eng.Entities(), ContextFile: engine.MarkdownFile(f.root)}
	if snap := f.eng.Last(); snap != nil {
		st.ContextTokens, st.ContextBytes = snap.Tokens, snap.Bytes
	}
	f.sess.status(st)
}

// storeDisplaced says whether the index or the state file the folder's
// store opened is gone from its path or replaced there (store.Displaced).
func (f *Folder) storeDisplaced() bool { return f.store().Displaced() }

// ensureStore reopens the index when its file or the state file was
// deleted or replaced under the running server (rm -rf .ctxls, git clean
// -fdx): the open handle would otherwise keep writing into an unlinked file
// no other process sees.
func (f *Folder) ensureStore(ctx context.Context) error {
	if !f.storeDisplaced() {
		return nil
	}
	// Not indexMu: a long index run holds it, and the watcher calling this
	// must not stall behind it.
	f.reopenMu.Lock()
	defer f.reopenMu.Unlock()
	if !f.storeDisplaced() {
		return nil
	}
	f.log.Warn("index or state file deleted or replaced under the server; reopening")
	st, err := store.Open(ctx, f.root, store.Options{})
	if err != nil {
		return fmt.Errorf("recreate index: %w", err)
	}
	f.stMu.Lock()
	old := f.st
	f.st = st
	f.stMu.Unlock()
	f.eng.SetStore(st)
	// Readers that took the old store may still be running: close it later.
	time.AfterFunc(30*time.Second, func() { old.Close() })
	if !f.sess.opts.NoIndex {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			if _, err := f.Reindex(f.ctx); err != nil && f.ctx.Err() == nil {
				f.log.Error("index", zap.Error(err))
			}
		}()
	}
	return nil
}

// repairCheckInterval bounds how often errors that say the index is
// corrupt lead to a check of every page (store.Repair reads the whole
// file): a damaged file is set aside at the first, and an error the check
// does not confirm would otherwise repeat it on every rewrite.
const repairCheckInterval = time.Minute

// repairIfCorrupt sets a damaged index or state file aside when err says a
// query met damaged pages (Open reads only the headers, so nothing else
// would notice), then opens new files and indexes again (ensureStore).
func (f *Folder) repairIfCorrupt(ctx context.Context, err error) {
	if !store.IsCorrupt(err) || ctx.Err() != nil {
		return
	}
	f.repairMu.Lock()
	defer f.repairMu.Unlock()
	if time.Since(f.checked) < repairCheckInterval {
		return
	}
	f.checked = time.Now()
	r, rerr := store.Repair(ctx, f.root)
	if rerr != nil {
		f.log.Warn("check index and state files", zap.Error(rerr))
		return
	}
	if r == (store.Repaired{}) {
		return
	}
	f.log.Warn("damaged files moved aside; reopening", zap.String("index", r.Index), zap.String("state", r.State))
	if err := f.ensureStore(ctx); err != nil {
		f.log.Error("reopen after repair", zap.Error(err))
	}
}

// queueUpdate schedules files (content nil: read from disk) or buffers for
// the index; they are written together after BufferFlush of quiet.
func (f *Folder) queueUpdate(rel string, content []byte) {
	f.pendingMu.Lock()
	defer f.pendingMu.Unlock()
	if content != nil {
		c := content
		f.pending[rel] = &c
	} else {
		f.pending[rel] = nil
	}
	if f.flushTimer == nil {
		f.flushTimer = time.AfterFunc(f.sess.opts.BufferFlush, f.flush)
	} else {
		f.flushTimer.Reset(f.sess.opts.BufferFlush)
	}
}

// flush writes the queued files and buffers to the index.
func (f *Folder) flush() {
	f.pendingMu.Lock()
	pending := f.pending
	f.pending = map[string]*[]byte{}
	f.pendingMu.Unlock()
	if len(pending) == 0 || f.ctx.Err() != nil {
		return
	}
	f.wg.Add(1)
	defer f.wg.Done()
	if err := f.ensureStore(f.ctx); err != nil {
		f.log.Error("index update", zap.Error(err))
		return
	}
	f.update(f.ctx, pending)
}

// update writes files (nil: from disk) and buffers to the index.
func (f *Folder) update(ctx context.Context, pending map[string]*[]byte) {
	changes := make([]index.Change, 0, len(pending))
	for rel, c := range pending {
		ch := index.Change{Path: rel}
		if c != nil {
			ch.Content = *c
		}
		changes = append(changes, ch)
	}
	f.indexMu.Lock()
	sum, err := index.Update(ctx, f.store(), index.Options{Root: f.root, Config: f.cfg, Log: f.log, LockTimeout: 10 * time.Second, Resident: &f.resident}, changes)
	f.indexMu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("index update", zap.Int("files", len(changes)), zap.Error(err))
			f.repairIfCorrupt(ctx, err)
		}
		return
	}
	f.log.Debug("index update", zap.Int("files", len(changes)), zap.Int("parsed", sum.Parsed), zap.Int("deleted", sum.Deleted))
	if sum.Parsed > 0 || sum.Deleted > 0 {
		f.eng.IndexChanged()
		// The status bar counts entities: tell the client now, not at the
		// next auto-context write, which may be a long time coming.
		f.readyStatus(ctx)
	}
}

// shutdownFlush bounds the index writes and the last auto-context rewrite
// of a closing folder.
const shutdownFlush = 5 * time.Second

// close stops the folder's work and releases its index. What is queued
// still reaches the index, and the editor's unsaved buffers are discarded
// with the session: the index goes back to the disk for them, and the
// auto-context is rewritten without them, so that neither the hooks nor
// ctxls://context/auto keep an edit nobody saved (decision 0095).
func (f *Folder) close() {
	unsaved := f.sess.docs.UnsavedIn(f.root)
	for _, rel := range unsaved {
		f.changed(rel, bufferDiscarded, nil)
	}
	f.buffers.Close() // the engine sees no buffers from now on
	f.cancel()
	f.pendingMu.Lock()
	if f.flushTimer != nil {
		f.flushTimer.Stop()
	}
	pending := f.pending
	f.pending = map[string]*[]byte{}
	f.pendingMu.Unlock()
	if f.watcher != nil {
		f.watcher.close()
	}
	f.wg.Wait()
	if len(pending) > 0 && !f.storeDisplaced() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownFlush)
		f.update(ctx, pending)
		if len(unsaved) > 0 {
			if _, err := f.eng.Refresh(ctx); err != nil {
				f.log.Warn("auto-context without the unsaved buffers", zap.Error(err))
			}
		}
		cancel()
	}
	f.eng.Close()
	f.indexMu.Lock()
	f.resident.Close()
	f.indexMu.Unlock()
	f.store().Close()
}
