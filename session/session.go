// Package session owns the editor's state, as gopls's cache does: the
// documents an editor has open (package overlay), and per workspace folder
// its index (store), the queue of changes waiting for the index, the file
// watcher and the context engine.
//
// Every change of a document or a file reaches the index through one
// funnel: DidModify for what the editor says (a document opened, edited,
// saved or closed, a file changed on disk) and the folder's watcher both
// end in Folder.changed, which decides from the kind of change and the
// overlay which text the index should hold (decision 0095). The language
// server (package server) decodes a message, makes one call here and
// encodes the answer; it holds no state of its own beyond the connection.
package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/overlay"
	"github.com/ctxls/ctxls/symbols"
)

// Options configure a Session.
type Options struct {
	Log *zap.Logger
	// Debounce overrides the workspace's serve.debounce when set (>= 0).
	Debounce *time.Duration
	// NoWatch disables the folders' file watchers.
	NoWatch bool
	// NoIndex skips the initial index run of each folder.
	NoIndex bool
	// BufferFlush is the quiet time after the last change before the
	// queued files and buffers are written to the index; 0 means
	// DefaultBufferFlush.
	BufferFlush time.Duration
	// OnStatus, if set, is told each folder's state as it changes
	// (indexing, ready, error): the server's ctxls/status notification.
	OnStatus func(Status)
}

// DefaultBufferFlush is the quiet time before queued changes reach the
// index: long enough that typing a word costs one update.
const DefaultBufferFlush = 500 * time.Millisecond

// Status is a folder's state as the editor shows it.
type Status struct {
	Root          string
	State         string // "indexing", "ready" or "error"
	FilesDone     int
	FilesTotal    int
	Entities      int
	ContextTokens int
	ContextBytes  int
	ContextFile   string
	Message       string
}

// Session is the editor state of one language server connection: the
// open documents and the workspace folders.
type Session struct {
	opts Options
	log  *zap.Logger

	mu      sync.RWMutex
	folders []*Folder
	// settings are the editor's, for present and future folders.
	settings engine.Settings

	// docs are the open documents, read directly by each folder's engine.
	docs *overlay.Set
	// extractor parses buffers; DidModify runs on the server's ordered
	// worker only, so it is never used concurrently.
	extractor *symbols.Extractor
	// parses counts buffer parses (open, edit), for the log and for tests
	// of coalescing.
	parses atomic.Int64

	ctx    context.Context
	cancel context.CancelFunc
}

// New returns a Session with no folder.
func New(opts Options) *Session {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.BufferFlush <= 0 {
		opts.BufferFlush = DefaultBufferFlush
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{
		opts: opts, log: opts.Log, settings: engine.DefaultSettings(),
		docs: overlay.New(), extractor: symbols.NewExtractor(), ctx: ctx, cancel: cancel,
	}
}

// status reports a folder's state to the server.
func (s *Session) status(st Status) {
	if s.opts.OnStatus != nil {
		s.opts.OnStatus(st)
	}
}

// Parses counts the buffer parses so far.
func (s *Session) Parses() int64 { return s.parses.Load() }

// Document returns the open document of uri, or nil.
func (s *Session) Document(uri string) *overlay.Document { return s.docs.Get(uri) }

// AddFolder opens a workspace folder, or returns the one open at root; a
// folder that cannot be opened is logged and left out (nil), so that the
// others still work. Start begins its work.
func (s *Session) AddFolder(ctx context.Context, root string) *Folder {
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		s.log.Warn("workspace folder is not a directory", zap.String("root", root), zap.Error(err))
		return nil
	}
	s.mu.RLock()
	for _, f := range s.folders {
		if f.root == root {
			s.mu.RUnlock()
			return f
		}
	}
	s.mu.RUnlock()
	f, err := openFolder(ctx, s, root)
	if err != nil {
		s.log.Error("open workspace folder", zap.String("root", root), zap.Error(err))
		return nil
	}
	s.mu.Lock()
	s.folders = append(s.folders, f)
	s.mu.Unlock()
	return f
}

// RemoveFolder closes the folder at root, if one is open.
func (s *Session) RemoveFolder(root string) {
	s.mu.Lock()
	var gone *Folder
	kept := s.folders[:0]
	for _, f := range s.folders {
		if f.root == root {
			gone = f
		} else {
			kept = append(kept, f)
		}
	}
	s.folders = kept
	s.mu.Unlock()
	if gone != nil {
		gone.close()
	}
}

// Folders returns the open folders.
func (s *Session) Folders() []*Folder {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*Folder(nil), s.folders...)
}

// FolderFor returns the folder holding abs (the longest root wins) and the
// path relative to it; nil outside every folder.
func (s *Session) FolderFor(abs string) (*Folder, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var best *Folder
	var bestRel string
	for _, f := range s.folders {
		rel, err := filepath.Rel(f.root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if best == nil || len(f.root) > len(best.root) {
			best, bestRel = f, filepath.ToSlash(rel)
		}
	}
	return best, bestRel
}

// sourceFolderFor is FolderFor for documents and activity: a path under a
// folder's state directory (<root>/.ctxls/, the auto-context and its
// preview) belongs to no folder, so that ctxls's own output is never indexed
// or taken for what the person works on, whatever the editor sends.
func (s *Session) sourceFolderFor(abs string) (*Folder, string) {
	f, rel := s.FolderFor(abs)
	if workspace.InDir(rel) {
		return nil, ""
	}
	return f, rel
}

// folderOf returns the folder an open document belongs to, or nil (outside
// every folder, or the folder was removed since the document was opened).
func (s *Session) folderOf(d *overlay.Document) *Folder {
	if d.Root == "" {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.folders {
		if f.root == d.Root {
			return f
		}
	}
	return nil
}

// ActiveFolder returns the folder of path when given (nil when no folder
// holds it), else the folder whose engine has an active file, else the
// first.
func (s *Session) ActiveFolder(path string) *Folder {
	if path != "" {
		f, _ := s.FolderFor(path)
		return f
	}
	folders := s.Folders()
	for _, f := range folders {
		if f.eng.ActiveFile() != "" {
			return f
		}
	}
	if len(folders) > 0 {
		return folders[0]
	}
	return nil
}

// SetSettings makes set the editor's settings of every folder, present and
// future; each engine rewrites its auto-context under them.
func (s *Session) SetSettings(set engine.Settings) {
	s.mu.Lock()
	s.settings = set
	s.mu.Unlock()
	for _, f := range s.Folders() {
		f.eng.SetSettings(set)
	}
}

// currentSettings returns the settings new folders start with.
func (s *Session) currentSettings() engine.Settings {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.settings
}

// CloseFolders closes every folder: what is queued reaches the index,
// unsaved buffers are discarded (Folder.close), engines flush their
// activity, stores close.
func (s *Session) CloseFolders() {
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	for _, f := range folders {
		f.close()
	}
}

// Cancel stops the folders' background work (index runs, memory syncs)
// and closes nothing: the server cancels first, waits for the requests it
// is answering, then calls Close.
func (s *Session) Cancel() { s.cancel() }

// Close ends the session: background work is cancelled, the folders close
// and the open documents are released.
func (s *Session) Close() {
	s.cancel()
	s.CloseFolders()
	for _, d := range s.docs.Clear() {
		if d.Tree != nil {
			d.Tree.Close()
		}
	}
}
