package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/logging"
	"github.com/ctxls/ctxls/store"
)

// healEvery bounds how often one workspace starts a background rebuild: a
// rebuild that fails at once (a full disk, an unreadable tree) must not be
// started again by every hook call.
const healEvery = 30 * time.Second

// healMark is the file whose modification time says when a background
// rebuild was last started.
func healMark(root string) string { return filepath.Join(workspace.Dir(root), "rebuild.started") }

// heal starts `ctxls-core index --background` for root, the one way every
// path that finds the index damaged, recovered empty or partial (a hook in
// its own process, the hook daemon, `ctxls query`, `ctxls context`) gets it
// rebuilt while it answers from what is ready. Rebuilds run one at a time:
// heal takes the index lock the indexer uses and hands it to the child,
// which holds it for its whole run, so that a second caller finds it taken
// and starts nothing; an index run already at work finishes the job
// itself. It reports whether it started one; the start is logged, once per
// rebuild, with why.
func heal(root, reason string, log *zap.Logger) bool {
	if info, err := os.Stat(healMark(root)); err == nil && time.Since(info.ModTime()) < healEvery {
		return false
	}
	lock, ok, err := index.TryLock(root)
	if err != nil {
		log.Warn("index not rebuilt; run 'ctxls index'", zap.String("reason", reason), zap.Error(err))
		return false
	}
	if !ok {
		return false // an indexer is at work
	}
	defer lock.Close() // the child's copy holds the lock from here on
	// Checked again under the lock: another caller may have started a
	// rebuild that has finished since this one looked.
	if info, err := os.Stat(healMark(root)); err == nil && time.Since(info.ModTime()) < healEvery {
		return false
	}
	exe, err := hookcall.Executable()
	if err != nil {
		log.Warn("index not rebuilt; run 'ctxls index'", zap.String("reason", reason), zap.Error(err))
		return false
	}
	cmd := exec.Command(exe, "index", "--root", root, "--background")
	cmd.Dir = root
	cmd.ExtraFiles = []*os.File{lock} // fd 3
	// Its own session and no standard streams: it outlives a hook process
	// and holds none of Claude Code's pipes open.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		log.Warn("index not rebuilt; run 'ctxls index'", zap.String("reason", reason), zap.Error(err))
		return false
	}
	cmd.Process.Release()
	if err := touch(healMark(root)); err != nil {
		log.Warn("rebuild mark", zap.Error(err))
	}
	log.Warn("rebuilding the index in the background", zap.String("root", root), zap.String("reason", reason))
	return true
}

// touch creates path or sets its modification time to now.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	now := time.Now()
	return os.Chtimes(path, now, now)
}

// healIfNeeded checks root's open index st and starts a background
// rebuild when it was recovered empty, is partial or incomplete with no
// indexer at work (see index.RebuildReason and heal). It returns why the
// index needs one ("" when it does not) and its health. A nil log is the
// workspace's, opened only if there is something to log.
func healIfNeeded(ctx context.Context, st *store.Store, root string, log *zap.Logger) (string, index.Health) {
	reason, h, err := index.RebuildReason(ctx, st, root)
	if err != nil {
		workspaceLog(root, &log).Warn("index state unknown", zap.Error(err))
		return "", h
	}
	if reason != "" {
		heal(root, reason, workspaceLog(root, &log))
	}
	return reason, h
}

// workspaceLog returns *log, or when it is nil the log of root's state
// directory (a no-op logger if it cannot be opened), which it keeps in *log.
func workspaceLog(root string, log **zap.Logger) *zap.Logger {
	if *log == nil {
		l, err := logging.File(filepath.Join(workspace.Dir(root), "ctxls.log"), "info")
		if err != nil {
			l = zap.NewNop()
		}
		*log = l
	}
	return *log
}

// inheritedLock is the index lock a background rebuild inherited from heal
// as fd 3, or nil when fd 3 is not that lock.
func inheritedLock(root string) *os.File {
	f := os.NewFile(3, "index.lock")
	if f == nil {
		return nil
	}
	if !index.HeldLock(root, f) {
		return nil
	}
	return f
}

// rebuildOutdated starts the rebuild of root's index when an older ctxls
// wrote it (store.ErrOutdated), which only a writer can migrate and the
// read-only commands (`ctxls query`, `ctxls mcp`) cannot, and reports
// whether a rebuild is under way: started now, or an indexer at work.
func rebuildOutdated(root, reason string, log *zap.Logger) bool {
	started := heal(root, reason, log)
	locked, _ := index.Locked(root)
	return started || locked
}
