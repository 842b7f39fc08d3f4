// Package mcpserver is ctxls's Model Context Protocol server (`ctxls mcp`):
// the auto-context and the working set as resources an MCP client can read,
// @-mention and subscribe to, and retrieval over the index as tools.
//
// It is a thin adapter over store and retrieval, built on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk):
//
//   - resources (resources.go): ctxls://context/auto (the language server's
//     .ctxls/auto-context.md, or one computed from recent activity),
//     ctxls://context/session (working set and recent activity), and the
//     template ctxls://context/file/{+path} (a file's entities and relations,
//     and the rules and memories that apply to it: sections.go), with the
//     working set's files listed as concrete file resources;
//   - tools (tools.go): context_query, symbol_lookup, related, each with
//     typed input and output and a size cap (cap.go);
//   - a watcher (watch.go) on <root>/.ctxls that turns a new auto-context
//     file or new activity into notifications/resources/updated and
//     notifications/resources/list_changed.
//   - a line filter (filter.go) in front of the SDK's stdio transport that
//     answers malformed input with JSON-RPC errors instead of ending the
//     session, and a middleware (errors.go) that keeps every error answer
//     encodable (docs/RELIABILITY.md).
//
// The index is opened read-only and lazily, and re-opened when the file is
// replaced (a rebuild after corruption), so the server starts, and says what
// is missing, before any index exists.
package mcpserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// Resource URIs.
const (
	AutoURI      = "ctxls://context/auto"
	SessionURI   = "ctxls://context/session"
	FileTemplate = "ctxls://context/file/{+path}"
	filePrefix   = "ctxls://context/file/"
)

// AutoContextFile is where the language server writes the live
// auto-context, relative to the workspace's state directory.
const AutoContextFile = "auto-context.md"

//go:embed instructions.md
var instructions string

// Options configure a Server.
type Options struct {
	// Root is the workspace root (absolute).
	Root string
	// Version is reported as serverInfo.version.
	Version string
	// Log receives the server's log; nil discards it. It must not write to
	// stdout, which carries the protocol.
	Log *zap.Logger
	// MaxOutputBytes caps each representation of a tool result (its text
	// and its structured content); 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// FileSections add sections to file resources after the built-in ones
	// (the rules and the memories that apply to the file); each is called
	// for every file read.
	FileSections []FileSection
	// Home is the user's home directory, where the global memory scope
	// (~/.claude/memory) and the user's rules (~/.claude/rules) live; ""
	// means the user's.
	Home string
	// Rebuild starts rebuilding an index an older ctxls wrote, which the
	// read-only server cannot migrate, in the background; it reports
	// whether a rebuild is under way (started now or before). nil: the
	// answer asks for 'ctxls index'.
	Rebuild func(reason string) bool
}

// FileSection contributes a markdown section to the resource of one file,
// for example the rules or memories that apply to it. It returns "" when it
// has nothing for the file.
type FileSection func(ctx context.Context, root, path string) (markdown string, err error)

// Server is an MCP server over one workspace.
type Server struct {
	opts Options
	log  *zap.Logger
	mcp  *mcp.Server

	mu     sync.Mutex
	st     *store.Store
	stFile os.FileInfo
	// stateFile is the state file st attached (nil: none existed).
	stateFile os.FileInfo
	listed    []string // working-set files listed as resources
	lastAct   string   // fingerprint of the latest activity seen
}

// New builds the server and registers its resources and tools.
func New(opts Options) (*Server, error) {
	if !filepath.IsAbs(opts.Root) {
		return nil, fmt.Errorf("mcp server root %q is not absolute", opts.Root)
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, log: opts.Log}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "ctxls", Title: "ctxls context engine", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:       instructions,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		// Explicit capabilities: no logging (logs go to a file), no
		// prompts; resources with subscriptions and list changes (the
		// working set's files come and go); tools with a fixed list.
		Capabilities: &mcp.ServerCapabilities{
			Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
			Tools:     &mcp.ToolCapabilities{ListChanged: false},
		},
	})
	// Every error answer must encode, or the SDK ends the session.
	s.mcp.AddReceivingMiddleware(validErrors)
	s.registerResources()
	s.registerTools()
	s.registerMemoryTools()
	return s, nil
}

// MCP returns the SDK server, for connecting transports in tests.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over t until it disconnects or ctx ends, watching
// the workspace's state directory for changes to announce.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.Watch(ctx)
	if err != nil {
		// Without a watcher the resources still answer; only the
		// notifications are lost. Say so and serve.
		s.log.Warn("mcp: no file watcher; resource notifications are off", zap.Error(err))
	} else {
		defer w.Close()
	}
	defer s.Close()
	return s.mcp.Run(ctx, t)
}

// Close releases the index.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	s.st, s.stFile = nil, nil
	return err
}

// errNoIndex explains a missing index in a tool or resource answer.
func (s *Server) errNoIndex() error {
	return fmt.Errorf("no ctxls index in %s: run 'ctxls index --root %s' (or start 'ctxls serve' in the editor)", s.opts.Root, s.opts.Root)
}

// store returns the open index, opening it on first use and again when the
// file was replaced since (a rebuild moves the old file aside).
func (s *Server) store(ctx context.Context) (*store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(store.Path(s.opts.Root))
	if errors.Is(err, os.ErrNotExist) {
		if s.st != nil {
			s.st.Close()
			s.st, s.stFile = nil, nil
		}
		return nil, s.errNoIndex()
	}
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", store.Path(s.opts.Root), err)
	}
	// The state file (sessions, activity) counts too: deleted, replaced, or
	// created after a store opened without one (which reads an empty one).
	state, _ := os.Stat(store.StatePath(s.opts.Root))
	if s.st != nil && os.SameFile(fi, s.stFile) && sameOrBothMissing(state, s.stateFile) {
		return s.st, nil
	}
	if s.st != nil {
		s.st.Close()
		s.st, s.stFile = nil, nil
	}
	st, err := store.Open(ctx, s.opts.Root, store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrNoIndex) {
		return nil, s.errNoIndex()
	}
	if errors.Is(err, store.ErrOutdated) && s.opts.Rebuild != nil && s.opts.Rebuild(err.Error()) {
		s.log.Info("mcp: index of an older ctxls is being rebuilt", zap.Error(err))
		return nil, index.RebuildingError(s.opts.Root)
	}
	if err != nil {
		return nil, err
	}
	s.st, s.stFile, s.stateFile = st, fi, state
	return st, nil
}

// buildingNote is the line a tool's answer starts with while an indexer
// fills an index no index run has finished into (the first run, the
// rebuild after an upgrade): what the answer lacks may only be missing yet.
// "" otherwise.
func (s *Server) buildingNote(ctx context.Context, st *store.Store) string {
	// The meta read first: a finished index, the usual case, is told apart
	// without taking the index lock for a moment on every answer, which an
	// indexer starting at that moment would find held.
	if done, err := st.Meta(ctx, store.MetaComplete); err != nil || done != "" {
		return ""
	}
	if locked, err := index.Locked(s.opts.Root); err != nil || !locked {
		return ""
	}
	return "Note: ctxls is still building this workspace's index, so this answer may be incomplete; ask again in a minute.\n\n"
}

func sameOrBothMissing(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b)
}

// config loads the workspace configuration; a malformed file is reported in
// the log and the defaults are used, so that the tools keep answering.
func (s *Server) config() config.Config {
	cfg, err := config.Load(s.opts.Root)
	if err != nil {
		s.log.Warn("mcp: config unreadable, using defaults", zap.Error(err))
	}
	return cfg
}
