// Package server is ctxls's language server (`ctxls serve`): LSP over stdio
// with go.lsp.dev/jsonrpc2. It owns the connection: the ordered dispatch,
// the lifecycle, and the protocol's vocabulary. The editor's state (open
// documents, each folder's index, change queue, watcher and context engine)
// is package session's; each handler decodes its message, makes one call
// into the session and encodes the answer.
//
// One file per protocol feature. The protocol is documented in
// docs/protocol.md.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/session"
)

// Options configure a Server.
type Options struct {
	Version string
	Log     *zap.Logger
	// Debounce overrides the workspace's serve.debounce when set (>= 0).
	Debounce *time.Duration
	// NoWatch disables the server's own file watcher.
	NoWatch bool
	// NoIndex skips the initial index run of each folder.
	NoIndex bool
	// BufferFlush is the quiet time after the last change before an unsaved
	// buffer is written to the index; 0 means session.DefaultBufferFlush.
	BufferFlush time.Duration
}

// LSP error codes not in go.lsp.dev/jsonrpc2.
const codeServerNotInitialized jsonrpc2.Code = -32002

// Lifecycle states.
const (
	stateNew int32 = iota
	stateRunning
	stateShutdown
)

// Server is one language server session.
type Server struct {
	opts  Options
	log   *zap.Logger
	conn  jsonrpc2.Conn
	state atomic.Int32
	// exitCode is the process status after the session: 0 after shutdown
	// and exit or a disconnect, 1 for exit without shutdown.
	exitCode atomic.Int32
	exited   chan struct{}
	exitOnce sync.Once

	// queue serialises messages in arrival order (see dispatch).
	queue chan queued

	// sess is the editor's state: open documents and workspace folders.
	sess *session.Session

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type queued struct {
	ctx   context.Context
	reply jsonrpc2.Replier
	req   jsonrpc2.Request
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, log: opts.Log, exited: make(chan struct{}), queue: make(chan queued, 256), ctx: ctx, cancel: cancel}
	s.sess = session.New(session.Options{
		Log: opts.Log, Debounce: opts.Debounce, NoWatch: opts.NoWatch, NoIndex: opts.NoIndex, BufferFlush: opts.BufferFlush,
		OnStatus: func(st session.Status) { s.notify("ctxls/status", statusOf(st)) },
	})
	return s
}

// Serve runs the session over in and out until the client sends exit or
// disconnects, and returns the process exit status.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer, closer io.Closer) int {
	s.conn = jsonrpc2.NewConn(newStream(in, out, closer, s.log))
	s.conn.Go(ctx, s.receive)
	go s.worker()
	select {
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") {
			s.log.Info("connection closed", zap.Error(err))
		} else {
			s.log.Info("client disconnected")
		}
	case <-s.exited:
		s.conn.Close()
	case <-ctx.Done():
		s.conn.Close()
	}
	s.close()
	return int(s.exitCode.Load())
}

// receive runs on jsonrpc2's read loop. It must not block on work: it hands
// every message to the ordered worker. Handlers that send requests to the
// client or wait on the client would deadlock the read loop (see the
// toolchain notes), which is why nothing runs here.
func (s *Server) receive(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() == "exit" {
		if s.state.Load() != stateShutdown {
			s.exitCode.Store(1)
		}
		s.exitOnce.Do(func() { close(s.exited) })
		return reply(ctx, nil, nil)
	}
	select {
	case s.queue <- queued{ctx, reply, req}:
	case <-s.exited:
	}
	return nil
}

// worker handles messages one at a time in arrival order, so a hover sees
// every change sent before it. Requests that may take long (indexing,
// queries over all folders) are started here, in order, and finish on their
// own goroutine.
func (s *Server) worker() {
	var next *queued
	for {
		var q queued
		if next != nil {
			q, next = *next, nil
		} else {
			select {
			case <-s.exited:
				return
			case <-s.ctx.Done():
				return
			case q = <-s.queue:
			}
		}
		if q.req.Method() == "textDocument/didChange" {
			q, next = s.coalesce(q)
		}
		s.handle(q.ctx, q.reply, q.req)
	}
}

// maxCoalesced bounds the didChange notifications merged into one.
const maxCoalesced = 4096

// coalesce merges into q the didChange notifications of the same document
// already queued right behind it: one didChange with all their changes in
// order, so that a burst (a paste, a macro, an editor catching up) is
// parsed once instead of once per change, and a request behind it waits
// for one parse, not hundreds. Changes apply in sequence either way, so
// the document ends the same. It returns the merged message and the first
// queued message that is not one of them, if one was taken.
func (s *Server) coalesce(q queued) (queued, *queued) {
	var p didChangeParams
	if json.Unmarshal(q.req.Params(), &p) != nil {
		return q, nil
	}
	merged := 0
	var next *queued
drain:
	for merged < maxCoalesced {
		select {
		case n := <-s.queue:
			var np didChangeParams
			if n.req.Method() != "textDocument/didChange" || json.Unmarshal(n.req.Params(), &np) != nil || np.TextDocument.URI != p.TextDocument.URI {
				next = &n
				break drain
			}
			p.TextDocument = np.TextDocument
			p.ContentChanges = append(p.ContentChanges, np.ContentChanges...)
			q.ctx = n.ctx
			merged++
		default:
			break drain // nothing more is waiting
		}
	}
	if merged == 0 {
		return q, next
	}
	s.log.Debug("didChange notifications coalesced", zap.String("uri", string(p.TextDocument.URI)), zap.Int("merged", merged+1))
	n, err := jsonrpc2.NewNotification("textDocument/didChange", p)
	if err != nil {
		return q, next
	}
	q.req = n
	return q, next
}

// handler answers one request; params are raw JSON. For notifications the
// result is ignored.
type handler func(ctx context.Context, params json.RawMessage) (any, error)

// slow marks methods run on their own goroutine after being dequeued.
var slow = map[string]bool{
	"workspace/executeCommand": true,
	"workspace/symbol":         true,
	"ctxls/context":            true,
}

func (s *Server) handlers() map[string]handler {
	return map[string]handler{
		"initialize":                          s.initialize,
		"initialized":                         s.initialized,
		"shutdown":                            s.shutdown,
		"textDocument/didOpen":                s.didOpen,
		"textDocument/didChange":              s.didChange,
		"textDocument/didSave":                s.didSave,
		"textDocument/didClose":               s.didClose,
		"textDocument/hover":                  s.hover,
		"textDocument/documentSymbol":         s.documentSymbol,
		"workspace/symbol":                    s.workspaceSymbol,
		"workspace/didChangeWatchedFiles":     s.didChangeWatchedFiles,
		"workspace/didChangeWorkspaceFolders": s.didChangeWorkspaceFolders,
		"workspace/didChangeConfiguration":    s.didChangeConfiguration,
		"workspace/executeCommand":            s.executeCommand,
		"ctxls/activity":                      s.activity,
		"ctxls/message":                       s.message,
		"ctxls/context":                       s.context,
	}
}

func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) {
	_, isCall := req.(*jsonrpc2.Call)
	method := req.Method()
	fail := func(code jsonrpc2.Code, format string, args ...any) {
		if isCall {
			_ = reply(ctx, nil, jsonrpc2.NewError(code, fmt.Sprintf(format, args...)))
		} else {
			_ = reply(ctx, nil, nil)
		}
	}
	switch st := s.state.Load(); {
	case method == "initialize" && st != stateNew:
		fail(jsonrpc2.InvalidRequest, "initialize: the server is already initialized")
		return
	case st == stateNew && method != "initialize":
		fail(codeServerNotInitialized, "%s: the server is not initialized", method)
		return
	case st == stateShutdown:
		fail(jsonrpc2.InvalidRequest, "%s: the server is shutting down", method)
		return
	}
	h, ok := s.handlers()[method]
	if !ok {
		if isCall {
			_ = reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+method))
		} else {
			_ = reply(ctx, nil, nil)
		}
		return
	}
	run := func() {
		start := time.Now()
		res, err := s.safely(ctx, method, h, req.Params())
		if err != nil && !isCall {
			s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
		}
		if isCall && err != nil {
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) {
				err = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
			}
		}
		if rerr := reply(ctx, res, err); rerr != nil {
			s.log.Debug("reply", zap.String("method", method), zap.Error(rerr))
		}
		s.log.Debug("handled", zap.String("method", method), zap.Duration("took", time.Since(start)))
	}
	if slow[method] {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); run() }()
		return
	}
	run()
}

// safely runs a handler, turning a panic into an internal error so that one
// bad message never ends the editor's session.
func (s *Server) safely(ctx context.Context, method string, h handler, params json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panic", zap.String("method", method), zap.Any("panic", r), zap.Stack("stack"))
			res, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s: internal error", method))
		}
	}()
	return h(ctx, params)
}

// decode unmarshals params, answering InvalidParams when they do not fit.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

func (s *Server) shutdown(ctx context.Context, _ json.RawMessage) (any, error) {
	s.state.Store(stateShutdown)
	s.sess.CloseFolders()
	return nil, nil
}

// notify sends a notification to the client, logging failures.
func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.conn.Notify(ctx, method, params); err != nil {
		s.log.Debug("notify", zap.String("method", method), zap.Error(err))
	}
}

// close ends the session's work: pending index runs are cancelled, the
// requests being answered finish, then engines flush their activity and
// stores close.
func (s *Server) close() {
	s.cancel()
	s.sess.Cancel()
	s.wg.Wait()
	s.sess.Close()
}

// pathOf turns a document URI, a file:// URI or a plain path into a clean
// absolute path.
func pathOf(u string) string {
	if strings.HasPrefix(u, "file:") {
		return filepath.Clean(uri.URI(u).Filename())
	}
	p, err := filepath.Abs(u)
	if err != nil {
		return filepath.Clean(u)
	}
	return p
}

// status is the ctxls/status notification.
type status struct {
	Root          string `json:"root"`
	State         string `json:"state"`
	FilesDone     int    `json:"filesDone"`
	FilesTotal    int    `json:"filesTotal"`
	Entities      int    `json:"entities"`
	ContextTokens int    `json:"contextTokens"`
	ContextBytes  int    `json:"contextBytes"`
	ContextFile   string `json:"contextFile,omitempty"`
	Message       string `json:"message,omitempty"`
}

func statusOf(st session.Status) status {
	return status{Root: st.Root, State: st.State, FilesDone: st.FilesDone, FilesTotal: st.FilesTotal, Entities: st.Entities,
		ContextTokens: st.ContextTokens, ContextBytes: st.ContextBytes, ContextFile: st.ContextFile, Message: st.Message}
}
