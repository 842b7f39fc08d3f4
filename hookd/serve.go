// Package hookd answers Claude Code hooks (and `ctxls query`) from one
// long-lived process per workspace. A hook call is a new process each time; on its own it pays for
// opening the index and for the first touch of every page it reads, which
// was most of its time (docs/decisions/0082). Through hookd it pays for a
// connection instead: the hook client sends the call over a unix socket
// (package hookcall) to `ctxls daemon`, which keeps the index open, and
// answers in-process whenever no daemon can serve it.
package hookd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/store"
)

// DefaultIdle is how long a daemon waits for the next call before it exits.
const DefaultIdle = 30 * time.Minute

// checkEvery is how often a daemon checks that its workspace still wants it:
// the index still exists and is the one it opened, and the configuration
// still enables it.
const checkEvery = 2 * time.Second

// maxRequest bounds a request: the largest hook input, base64-encoded, and
// its envelope.
const maxRequest = 2*hookcall.MaxInput + 1<<16

// ErrRunning is returned by Serve when another daemon serves the workspace.
var ErrRunning = errors.New("a hook daemon already serves this workspace")

// ServeOptions configure Serve.
type ServeOptions struct {
	// Root is the workspace; it must have an index.
	Root string
	// Identity is hookcall.Identity of this executable; calls naming
	// another are refused.
	Identity string
	// Idle is how long to wait for a call before exiting; zero means
	// DefaultIdle.
	Idle time.Duration
	Log  *zap.Logger
	// Query, if set, answers `ctxls query` calls on the daemon's store:
	// the command's output for q, and a note for its stderr.
	Query func(ctx context.Context, st *store.Store, q *hookcall.Query) (out []byte, note string, err error)
	// FormatIndex, if set, prints `ctxls index` output (as JSON with
	// asJSON) for an index call the daemon answers without a walk.
	FormatIndex func(sum index.Summary, asJSON bool) ([]byte, error)
	// Heal, if set, starts a rebuild of the index in the background for
	// the reason given. The daemon calls it when the index it opened was
	// recovered empty, and whenever its checks find the index partial or
	// incomplete with no indexer at work (index.RebuildReason); it answers
	// from what is ready meanwhile.
	Heal func(root, reason string)
	// MaxWatchedDirs bounds the directories the daemon watches; 0 means
	// treewatch.DefaultMaxDirs.
	MaxWatchedDirs int
}

// Serve answers hook and query calls for opts.Root until ctx ends, the
// daemon has been idle for opts.Idle, the index is deleted, replaced or
// found corrupt, its socket is removed, the workspace's configuration
// disables the daemon, or a client of another build calls.
func Serve(ctx context.Context, opts ServeOptions) error {
	if opts.Idle <= 0 {
		opts.Idle = DefaultIdle
	}
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	sock, err := hookcall.SocketPath(opts.Root)
	if err != nil {
		return err
	}
	// The lock, held for the daemon's life, makes it the only one for the
	// workspace; a stale socket file left by a killed daemon can then be
	// removed without taking a live daemon's place.
	lock := flock.New(hookcall.LockPath(sock))
	ok, err := lock.TryLock()
	if err != nil {
		return fmt.Errorf("hook daemon lock: %w", err)
	}
	if !ok {
		return ErrRunning
	}
	defer lock.Unlock()

	if _, err := os.Stat(store.Path(opts.Root)); err != nil {
		return fmt.Errorf("%w at %s", hooks.ErrNoIndex, opts.Root)
	}
	// One connection: its own writes (a re-index after an Edit, the
	// collector) then leave its page cache warm for the next prompt
	// (docs/decisions/0085).
	st, err := store.Open(ctx, opts.Root, store.Options{BusyTimeout: hooks.DefaultDeadline, SingleConnection: true, Existing: true})
	if err != nil {
		return err
	}
	defer st.Close()

	ln, sockInfo, err := listen(sock)
	if err != nil {
		return err
	}
	defer func() {
		// Only its own socket: a daemon that stops because its socket was
		// replaced must leave the new one in place.
		if now, err := os.Stat(sock); err == nil && os.SameFile(now, sockInfo) {
			os.Remove(sock)
		}
	}()

	// Each call's log lines say they were answered here.
	d := &daemon{opts: opts, log: log.With(zap.Bool("daemon", true)), st: st, home: homeDir(), started: time.Now(),
		sources: sources.All(),
		walked:  make(chan time.Time, 8), syncs: make(chan syncCall), updates: make(chan updateCall)}
	d.last.Store(time.Now().UnixNano())
	ctx, d.stop = context.WithCancelCause(ctx)
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	if st.Recovered != "" {
		log.Warn("index was corrupt or not a ctxls index; moved aside for a new one", zap.String("moved", st.Recovered))
	}
	d.heal(ctx)
	go d.watch(ctx, sock, sockInfo)
	go d.follow(ctx)
	log.Info("hook daemon listening", zap.String("root", opts.Root), zap.String("socket", sock))

	var wg sync.WaitGroup
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				d.stop(fmt.Errorf("accept: %w", err))
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.serve(ctx, conn)
		}()
	}
	wg.Wait()
	log.Info("hook daemon stopped", zap.String("root", opts.Root), zap.Error(context.Cause(ctx)))
	return nil
}

// listen listens on the unix socket sock, which appears only once the
// daemon listens: net.Listen binds (creating the file) before it listens,
// and a client connecting in between is refused, taking it for a stale
// socket. The caller holds the workspace's lock, so the temporary name is
// its own; the rename also replaces a stale socket left by a killed daemon.
func listen(sock string) (net.Listener, os.FileInfo, error) {
	// ".new" is no longer than ".sock": a socket path holds 107 bytes.
	tmp := strings.TrimSuffix(sock, ".sock") + ".new"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("remove stale hook socket: %w", err)
	}
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("hook daemon listen: %w", err)
	}
	// Closing must not unlink tmp, a name a later daemon may hold.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	// The socket's directory is private already (hookcall.SocketPath);
	// the socket is too, whatever the umask.
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("hook daemon socket: %w", err)
	}
	if err := os.Rename(tmp, sock); err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("hook daemon socket: %w", err)
	}
	info, err := os.Stat(sock)
	if err != nil {
		ln.Close()
		return nil, nil, fmt.Errorf("hook daemon socket: %w", err)
	}
	return ln, info, nil
}

// daemon is one Serve's state.
type daemon struct {
	opts ServeOptions
	log  *zap.Logger
	st   *store.Store
	home string
	// sources serve every hook call: the discovery source keeps what it
	// parsed and reads and writes its cache file once, not on every prompt.
	sources []sources.Source
	stop    context.CancelCauseFunc
	last    atomic.Int64 // UnixNano of the last call
	// started is when the daemon began to serve, for Info requests.
	started time.Time
	// walked and syncs reach the follow loop: notices of whole walks
	// (hookcall.Walked) and index calls.
	walked chan time.Time
	syncs  chan syncCall
	// updates are hooks' re-indexes, done by the follow loop (update).
	updates chan updateCall
	// following is what the follow loop last published of its state,
	// for Info requests.
	following atomic.Pointer[hookcall.Following]
}

// errIdle, errIndexGone and the others are why a daemon stopped, for its log.
var (
	errIdle      = errors.New("idle")
	errIndexGone = errors.New("the index or state file was deleted or replaced")
	errDisabled  = errors.New("hooks.daemon is off in the configuration")
	errOtherMake = errors.New("a client of another build called")
	errCorrupt   = errors.New("the index file is corrupt")
	errSocket    = errors.New("the socket was removed or replaced")
	errStopped   = errors.New("asked to stop")
)

// watch stops the daemon when it is no longer wanted.
func (d *daemon) watch(ctx context.Context, sock string, sockInfo os.FileInfo) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, d.last.Load())) > d.opts.Idle {
			d.stop(errIdle)
			return
		}
		// Its connections would go on writing into files no other process
		// reads.
		if d.st.Displaced() {
			d.stop(errIndexGone)
			return
		}
		// Nobody can reach a daemon whose socket is gone (its directory
		// was cleaned up): it would only wait out its idle time.
		if now, err := os.Stat(sock); err != nil || !os.SameFile(now, sockInfo) {
			d.stop(errSocket)
			return
		}
		if cfg, err := config.Load(d.opts.Root); err == nil && !cfg.HookDaemon() {
			d.stop(errDisabled)
			return
		}
		d.heal(ctx)
	}
}

// heal has the index rebuilt in the background when it needs it
// (ServeOptions.Heal).
func (d *daemon) heal(ctx context.Context) {
	if d.opts.Heal == nil {
		return
	}
	reason, _, err := index.RebuildReason(ctx, d.st, d.opts.Root)
	if err != nil {
		d.log.Warn("index state unknown", zap.Error(err))
		return
	}
	if reason != "" {
		d.opts.Heal(d.opts.Root, reason)
	}
}

// serve answers the one request a connection carries.
func (d *daemon) serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	// A client that connects and sends nothing must not hold a goroutine
	// for ever; the answer itself is bounded by the hook's deadline.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var req hookcall.Request
	if err := json.NewDecoder(io.LimitReader(conn, maxRequest)).Decode(&req); err != nil {
		d.log.Warn("hook daemon: unreadable request", zap.Error(err))
		return
	}
	if !req.Info {
		// Listing the daemons neither keeps one alive nor counts as
		// its last call.
		d.last.Store(time.Now().UnixNano())
	}
	resp := d.answer(ctx, &req)
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewEncoder(conn).Encode(resp); err != nil {
		d.log.Warn("hook daemon: reply", zap.String("event", req.Event), zap.Error(err))
	}
}

// answer runs one hook call, or refuses it.
func (d *daemon) answer(ctx context.Context, req *hookcall.Request) hookcall.Response {
	_, known := hookevent.FromArg(req.Event)
	switch {
	case req.Stop:
		// Once the calls in flight are answered.
		d.stop(errStopped)
		return hookcall.Response{}
	case req.Info:
		return hookcall.Response{Daemon: &hookcall.DaemonInfo{Root: d.opts.Root, PID: os.Getpid(), Identity: d.opts.Identity,
			Started: d.started, LastCall: time.Unix(0, d.last.Load()), Following: d.following.Load()}}
	case req.Event == "" && req.Query == nil && req.Index == nil && req.Walked == nil:
		return hookcall.Response{} // a Ping
	case req.Identity != d.opts.Identity:
		// The binary was upgraded or rebuilt: make way for a daemon of the
		// caller's build once the calls in flight are answered.
		d.stop(errOtherMake)
		return hookcall.Response{Refused: "the daemon is another build of ctxls"}
	case req.Root != d.opts.Root:
		return hookcall.Response{Refused: "the daemon serves another workspace"}
	case req.Home != d.home:
		return hookcall.Response{Refused: "the daemon runs with another home directory"}
	case req.Query != nil:
		return d.query(ctx, req.Query)
	case req.Walked != nil:
		select {
		case d.walked <- req.Walked.Started:
		default: // the loop is busy with earlier notices: one is enough
		}
		return hookcall.Response{}
	case req.Index != nil:
		return d.index(ctx, req.Index)
	case !known:
		// The full binary explains the mistake to the person.
		return hookcall.Response{Refused: "unknown hook event"}
	}
	start := time.Now()
	// The call outlives neither the daemon's shutdown nor its own deadline
	// (hooks.Run applies that); cancelling on shutdown would lose answers
	// the client is waiting for, so only the hook's deadline applies.
	out, err := hooks.Run(context.WithoutCancel(ctx), req.Event, req.Input, hooks.Options{
		Root: req.Root, Budget: req.Budget, Deadline: req.Deadline,
		BudgetSet: req.BudgetSet, DeadlineSet: req.DeadlineSet,
		Log: d.log, Store: d.st, Sources: d.sources, Heal: d.opts.Heal, Update: d.update,
	})
	if store.IsCorrupt(err) {
		// The index file was damaged under the daemon: the caller's own
		// process moves it aside and starts a new one (store.Open), then a
		// new daemon opens that.
		d.stop(errCorrupt)
		return hookcall.Response{Refused: "the index is corrupt"}
	}
	if err != nil {
		d.log.Info("hook answered nothing", zap.String("event", req.Event), zap.Error(err), zap.Duration("took", time.Since(start)))
		return hookcall.Response{}
	}
	d.log.Debug("hook done", zap.String("event", req.Event), zap.Duration("took", time.Since(start)))
	return hookcall.Response{Output: out}
}

// index answers a `ctxls index` call without a walk when the follow loop
// has kept the index current since a whole walk; otherwise it refuses, and
// the caller walks.
func (d *daemon) index(ctx context.Context, q *hookcall.Index) hookcall.Response {
	if d.opts.FormatIndex == nil {
		return hookcall.Response{Refused: "this daemon does not answer index calls"}
	}
	start := time.Now()
	c := syncCall{reply: make(chan syncResult, 1)}
	timeout := time.NewTimer(barrierWait)
	defer timeout.Stop()
	select {
	case d.syncs <- c:
	case <-timeout.C:
		return hookcall.Response{Refused: "the file watcher is busy"}
	case <-ctx.Done():
		return hookcall.Response{Refused: "the daemon is stopping"}
	}
	var r syncResult
	select {
	case r = <-c.reply:
	case <-timeout.C:
		return hookcall.Response{Refused: "the file watcher did not catch up in time"}
	}
	if r.err != nil {
		return hookcall.Response{Refused: r.err.Error()}
	}
	files, err := d.st.FileCount(ctx)
	if err != nil {
		return hookcall.Response{Refused: err.Error()}
	}
	sum := r.sum
	sum.Root, sum.Files, sum.Followed = d.opts.Root, files, true
	sum.Unchanged = max(0, files-sum.Parsed)
	if sum.Skipped == nil {
		sum.Skipped = map[string]int{} // as a walk's summary prints it
	}
	sum.Seconds = time.Since(start).Seconds()
	out, err := d.opts.FormatIndex(sum, q.JSON)
	if err != nil {
		return hookcall.Response{Error: err.Error()}
	}
	d.log.Info("index answered from the followed files", zap.Int("parsed", sum.Parsed), zap.Int("deleted", sum.Deleted), zap.Duration("took", time.Since(start)))
	return hookcall.Response{Output: out}
}

// queryTimeout bounds a query the daemon answers.
const queryTimeout = 30 * time.Second

// query answers a `ctxls query` call with ServeOptions.Query.
func (d *daemon) query(ctx context.Context, q *hookcall.Query) hookcall.Response {
	if d.opts.Query == nil {
		return hookcall.Response{Refused: "this daemon does not answer queries"}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
	defer cancel()
	start := time.Now()
	out, note, err := d.opts.Query(ctx, d.st, q)
	if store.IsCorrupt(err) {
		d.stop(errCorrupt)
		return hookcall.Response{Refused: "the index is corrupt"}
	}
	if err != nil {
		d.log.Warn("query failed", zap.Error(err))
		return hookcall.Response{Error: err.Error()}
	}
	d.log.Info("query answered", zap.Duration("took", time.Since(start)))
	return hookcall.Response{Output: out, Note: note}
}

// homeDir is the process's home directory, "" when it has none.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
