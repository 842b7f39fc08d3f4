package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/store"
)

// errInProcess means the daemon could not serve a call: the caller answers
// it in its own process.
var errInProcess = errors.New("answer in-process")

// workspaceDaemon is how one process (a hook, a query) uses the workspace's
// daemon (decision 0082).
type workspaceDaemon struct {
	root, exe, identity string
	log                 *zap.Logger
	// use: ask the daemon first; spawn: start one once the call is
	// answered in-process (none could serve it).
	use, spawn bool
	// wait bounds a call.
	wait time.Duration
}

// daemonFor decides whether calls for root go through its daemon: only for
// an indexed workspace whose configuration does not turn it off
// (hooks.daemon), and not with CTXLS_HOOK_DAEMON=0 in the environment. It
// returns the workspace's configuration (the defaults when it is broken:
// the in-process answer reports that).
func daemonFor(root string, log *zap.Logger) (*workspaceDaemon, config.Config) {
	d := &workspaceDaemon{root: root, log: log, wait: 30 * time.Second}
	if hookcall.Off() {
		return d, config.Default()
	}
	if _, err := os.Stat(store.Path(root)); err != nil {
		return d, config.Default()
	}
	cfg, err := config.Load(root)
	if err != nil || !cfg.HookDaemon() {
		return d, cfg
	}
	exe, err := hookcall.Executable()
	if err != nil {
		return d, cfg
	}
	d.use, d.exe, d.identity = true, exe, hookcall.Identity(exe)
	return d, cfg
}

// call sends req (its identity, home and root filled in here) to the
// daemon. errInProcess means the caller must answer itself; any other error
// means the daemon took the call but did not answer within d.wait.
func (d *workspaceDaemon) call(ctx context.Context, req *hookcall.Request) (hookcall.Response, error) {
	req.Identity, req.Root = d.identity, d.root
	req.Home, _ = os.UserHomeDir()
	what := req.Event
	if req.Query != nil {
		what = "query"
	}
	ctx, cancel := context.WithTimeout(ctx, d.wait)
	defer cancel()
	resp, err := hookcall.Call(ctx, req)
	switch {
	case errors.Is(err, hookcall.ErrNoDaemon):
		d.spawn = true
		return resp, errInProcess
	case err != nil && ctx.Err() != nil:
		d.log.Warn("daemon did not answer in time", zap.String("call", what), zap.Error(err))
		return resp, fmt.Errorf("the workspace daemon did not answer within %v: %w", d.wait, err)
	case err != nil:
		d.log.Warn("daemon failed; answering in-process", zap.String("call", what), zap.Error(err))
		return resp, errInProcess
	case resp.Refused != "":
		d.log.Info("daemon refused the call; answering in-process", zap.String("call", what), zap.String("reason", resp.Refused))
		// A daemon of another build is on its way out: start ours.
		d.spawn = true
		return resp, errInProcess
	}
	return resp, nil
}

// startIfNeeded launches the daemon in the background when no daemon of
// this build could serve the call, so that the next call finds one.
func (d *workspaceDaemon) startIfNeeded() {
	if !d.spawn {
		return
	}
	if err := hookcall.Spawn(d.exe, d.root); err != nil {
		d.log.Warn("daemon not started", zap.Error(err))
	}
}
