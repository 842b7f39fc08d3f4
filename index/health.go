package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// metaComplete is the meta key a whole-tree run (Run) sets in its last
// transaction (store.MetaComplete). Update does not set it: a hook
// re-indexing the one file it touched into an empty index does not make
// the index whole.
const metaComplete = store.MetaComplete

// Health is what a reader must know of an index before it trusts an empty
// or thin answer from it.
type Health struct {
	// Indexing: a process holds the index lock (an index run, an update,
	// a background rebuild); what it has committed is readable.
	Indexing bool `json:"indexing"`
	// Partial: an index run was interrupted after it had written part of
	// its files (its dirty mark is still set) and none runs now.
	Partial bool `json:"partial"`
	// Incomplete: no whole-tree run has finished into this file, and none
	// runs now.
	Incomplete bool `json:"incomplete"`
}

// NeedsRebuild says whether the index should be brought up to date by a
// whole-tree run: it is partial or incomplete and no indexer is at work.
func (h Health) NeedsRebuild() bool { return h.Partial || h.Incomplete }

// String says what h means for the person reading `ctxls stats` or
// `ctxls doctor`.
func (h Health) String() string {
	switch {
	case h.Indexing:
		return "indexing (another process holds the index lock)"
	case h.Partial:
		return "partial (an index run was interrupted)"
	case h.Incomplete:
		return "incomplete (no index run has finished into this file)"
	}
	return "complete"
}

// CheckHealth reports the state of root's index st.
func CheckHealth(ctx context.Context, st *store.Store, root string) (Health, error) {
	locked, err := Locked(root)
	if err != nil {
		return Health{}, err
	}
	if locked {
		return Health{Indexing: true}, nil
	}
	dirty, err := st.Meta(ctx, "dirty")
	if err != nil {
		return Health{}, fmt.Errorf("index state: %w", err)
	}
	complete, err := st.Meta(ctx, metaComplete)
	if err != nil {
		return Health{}, fmt.Errorf("index state: %w", err)
	}
	return Health{Partial: dirty == "1", Incomplete: complete == ""}, nil
}

// lockPath is the file whose lock serialises index writers across
// processes.
func lockPath(root string) string { return filepath.Join(workspace.Dir(root), "index.lock") }

// RebuildingError returns the error of a read-only command (`ctxls query`,
// `ctxls mcp`) that found root's index written by an older ctxls and a
// rebuild of it under way: it wraps store.ErrOutdated.
func RebuildingError(root string) error {
	return fmt.Errorf("%s: %w; it is being rebuilt in the background: ask again when that is done", root, store.ErrOutdated)
}

// Locked says whether a process holds root's index lock now.
func Locked(root string) (bool, error) {
	f, ok, err := TryLock(root)
	if err != nil {
		return false, err
	}
	if ok {
		f.Close()
	}
	return !ok, nil
}

// TryLock takes root's index lock without waiting; ok is false when
// another process holds it. The lock lives as long as the returned file is
// open in any process: a child that inherits it (exec.Cmd.ExtraFiles)
// holds it after the caller closes its copy, so that a background index run
// takes the lock over with no moment in which another could take it.
func TryLock(root string) (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(lockPath(root), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("index lock: %w", err)
	}
	// flock(2), as gofrs/flock takes it in lock: the two exclude each
	// other.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("index lock: %w", err)
	}
	return f, true, nil
}

// HeldLock says whether f holds root's index lock: it is the lock file and
// a lock on it is held through f (an inherited TryLock file). A process
// given such a file runs with Options.LockHeld.
func HeldLock(root string, f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	li, err := os.Stat(lockPath(root))
	if err != nil || !os.SameFile(fi, li) {
		return false
	}
	// Taking the lock again through the same open file description
	// succeeds only if it is ours (or free, which then makes it ours).
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// RebuildReason checks root's open index st and says why it should be
// rebuilt by a whole-tree run in the background, or "" when it need not:
// it is complete, or an indexer is at work on it. The empty index Open
// starts after moving a damaged file aside (Store.Recovered) is
// incomplete; the reason then says where the damaged file went.
func RebuildReason(ctx context.Context, st *store.Store, root string) (string, Health, error) {
	h, err := CheckHealth(ctx, st, root)
	switch {
	case err != nil || !h.NeedsRebuild():
		return "", h, err
	case st.Recovered != "" && h.Incomplete:
		return "the index was corrupt or not a ctxls index; moved to " + st.Recovered, h, nil
	}
	return "the index is " + h.String(), h, nil
}
