package index

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/store"
)

// metaGitHead is the meta key under which Run records the repository HEAD
// (GitHead) it saw when its walk began.
const metaGitHead = "git_head"

// GitHead returns the state of the HEAD of the git repository at root:
// .git/HEAD and, when it names a branch, the commit the branch points to.
// It changes with a checkout, a branch switch, a pull, a commit or a reset.
// It is "" when root has no .git directory (a worktree's or submodule's
// .git file points outside the workspace, which is not read; decision 90).
func GitHead(root string) string {
	head, err := wspath.ReadFile(root, filepath.Join(".git", "HEAD"))
	if err != nil {
		return ""
	}
	head = bytes.TrimSpace(head)
	ref, ok := bytes.CutPrefix(head, []byte("ref: "))
	if !ok {
		return string(head) // detached: HEAD holds the commit
	}
	name := string(bytes.TrimSpace(ref))
	if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") {
		return string(head)
	}
	commit, err := wspath.ReadFile(root, filepath.Join(".git", filepath.FromSlash(name)))
	if err != nil {
		commit = packedRef(root, name)
	}
	return string(head) + " " + string(bytes.TrimSpace(commit))
}

// packedRef returns the commit of ref in .git/packed-refs, or nil.
func packedRef(root, ref string) []byte {
	f, err := wspath.Open(root, filepath.Join(".git", "packed-refs"))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if commit, name, ok := bytes.Cut(line, []byte(" ")); ok && string(name) == ref {
			return bytes.Clone(commit)
		}
	}
	return nil
}

// recordHead stores head as the HEAD the index was built from.
func recordHead(ctx context.Context, st *store.Store, head string) error {
	if head == "" {
		return nil
	}
	if err := st.SetMeta(ctx, metaGitHead, head); err != nil {
		return fmt.Errorf("record git HEAD: %w", err)
	}
	return nil
}

// Busy reports whether another process (or another part of this one) holds
// root's index lock: an index run is under way.
func Busy(root string) bool {
	l := flock.New(filepath.Join(workspace.Dir(root), "index.lock"))
	ok, err := l.TryLock()
	if err != nil || !ok {
		return true
	}
	l.Unlock()
	return false
}

const (
	// ManyStale is how many of the files about to be rendered (at most
	// retrieval's MaxSections, 10 by default) must have changed for Fresh
	// to take the workspace as changed at large and start a whole index
	// run: a few changed files are an edit, re-indexed on the spot; half
	// of the best results' files are a checkout, a pull or a formatter.
	ManyStale = 5
	// refreshLockWait bounds Refresh's wait for the index lock: the
	// caller answers without the changed files rather than wait for a
	// whole index run.
	refreshLockWait = 100 * time.Millisecond
	// backgroundGrace is how long after starting a background run Fresh
	// starts no other for the same HEAD: the new process may not hold the
	// index lock yet.
	backgroundGrace = 2 * time.Minute
)

// Fresh re-indexes files found changed on disk before they are rendered,
// and starts a whole index run in the background when the workspace changed
// at large (decision 0092). It implements retrieval.Refresher.
type Fresh struct {
	// Store is the index to update; nil opens Options.Root's index for
	// each refresh (for a caller that holds it read-only).
	Store *store.Store
	// Options are those of the re-index: Root and Config at least.
	Options Options
	// Background starts `ctxls index` for Options.Root in another process;
	// nil starts none.
	Background func() error
	// Update, when set, re-indexes the paths in place of Update with a
	// short lock wait: the daemon's follow loop, which owns its writes.
	Update func(ctx context.Context, paths []string) error
}

// Refresh re-indexes paths (root-relative), removing the deleted ones, with
// one worker and a short wait for the index lock.
func (f *Fresh) Refresh(ctx context.Context, paths []string) error {
	if f.Update != nil {
		return f.Update(ctx, paths)
	}
	st := f.Store
	if st == nil {
		var err error
		if st, err = store.Open(ctx, f.Options.Root, store.Options{}); err != nil {
			return fmt.Errorf("open the index to refresh %d files: %w", len(paths), err)
		}
		defer st.Close()
	}
	opts := f.Options
	// Reread: some were found changed by their content alone.
	opts.Workers, opts.LockTimeout, opts.Reread = 1, refreshLockWait, true
	changes := make([]Change, len(paths))
	for i, p := range paths {
		changes[i] = Change{Path: p}
	}
	if _, err := Update(ctx, st, opts, changes); err != nil {
		return fmt.Errorf("refresh %d changed files: %w", len(paths), err)
	}
	return nil
}

// Behind starts a whole index run in the background when the repository's
// HEAD moved since the last one, or when stale (the files about to be
// rendered that had changed) reaches ManyStale; one at a time: not while a
// run holds the index lock, nor within backgroundGrace of starting one for
// the same HEAD.
func (f *Fresh) Behind(ctx context.Context, stale int) {
	if f.Background == nil {
		return
	}
	log := f.Options.Log
	if log == nil {
		log = zap.NewNop()
	}
	root := f.Options.Root
	head := GitHead(root)
	moved := false
	if head != "" {
		st := f.Store
		var recorded string
		var err error
		if st != nil {
			recorded, err = st.Meta(ctx, metaGitHead)
		} else {
			recorded, err = readMeta(ctx, root, metaGitHead)
		}
		if err != nil {
			log.Info("last indexed HEAD unknown", zap.Error(err))
			return
		}
		moved = recorded != head
	}
	if !moved && stale < ManyStale {
		return
	}
	if Busy(root) {
		return // a run is under way; it finds the changes
	}
	marker := filepath.Join(workspace.Dir(root), "reindex-started")
	if info, err := os.Stat(marker); err == nil && time.Since(info.ModTime()) < backgroundGrace {
		if b, err := os.ReadFile(marker); err == nil && string(b) == head {
			return // started moments ago, not yet holding the lock
		}
	}
	if err := workspace.WriteFileAtomic(marker, []byte(head), workspace.FilePerm); err != nil {
		log.Info("background index not started", zap.Error(err))
		return
	}
	if err := f.Background(); err != nil {
		log.Warn("background index not started; run 'ctxls index'", zap.Error(err))
		return
	}
	log.Info("workspace changed at large: indexing in the background",
		zap.Bool("headMoved", moved), zap.Int("staleFiles", stale))
}

// readMeta reads one meta value from root's index opened read-only.
func readMeta(ctx context.Context, root, key string) (string, error) {
	st, err := store.Open(ctx, root, store.Options{ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer st.Close()
	return st.Meta(ctx, key)
}

// HeadMoved reports whether the repository's HEAD (GitHead) differs from
// the one the last whole run recorded: a checkout, pull or commit since.
// Only a whole run (Run) records the history of the new HEAD, so an index
// that changed files alone have kept current is behind in its history.
func HeadMoved(ctx context.Context, st *store.Store, root string) (bool, error) {
	head := GitHead(root)
	if head == "" {
		return false, nil
	}
	recorded, err := st.Meta(ctx, metaGitHead)
	if err != nil {
		return false, err
	}
	return recorded != head, nil
}
