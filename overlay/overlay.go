// Package overlay holds the documents an editor has open: the text of each
// buffer over its file on disk, its syntax tree and symbols, and whether it
// differs from the disk. The language server's handlers write it; the
// context engine reads a workspace folder's view of it directly (View is an
// engine.Buffers), so that what the auto-context renders from open files
// and what the server answers from them is one state (decision 0095).
package overlay

import (
	"sync"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctxls/ctxls/symbols"
)

// Document is one open buffer. A change stores a new Document rather than
// modifying one (Text is never written in place), so a reader holding one
// is never disturbed; only Dirty changes, under the Set's lock.
type Document struct {
	URI string
	Abs string
	// Root is the workspace folder the document belongs to ("" outside
	// every folder), Rel its slash-separated path there.
	Root, Rel string
	Version   int32
	Text      []byte
	// Tree is Text's syntax tree for incremental re-parsing; nil when the
	// language is unsupported or the document too large. The server owns
	// it: it edits and closes it.
	Tree *sitter.Tree
	// Syms are Text's symbols; nil when not parsed.
	Syms *symbols.File
	// dirty says the buffer differs from the disk as far as the server
	// knows: set by an edit, cleared by a save.
	dirty bool
}

// Set is the open documents of one language server session, by URI.
type Set struct {
	mu   sync.RWMutex
	docs map[string]*Document
}

// New returns an empty Set.
func New() *Set { return &Set{docs: map[string]*Document{}} }

// Get returns the open document of uri, or nil.
func (s *Set) Get(uri string) *Document {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs[uri]
}

// Put stores d (open or changed), dirty or not, and returns the document it
// replaces, or nil.
func (s *Set) Put(d *Document, dirty bool) *Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	d.dirty = dirty
	old := s.docs[d.URI]
	s.docs[d.URI] = d
	return old
}

// Saved marks the document of uri as the disk's content.
func (s *Set) Saved(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[uri]; d != nil {
		d.dirty = false
	}
}

// Close removes the document of uri and returns it with whether it had
// unsaved changes; nil when it was not open.
func (s *Set) Close(uri string) (*Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	delete(s.docs, uri)
	if d == nil {
		return nil, false
	}
	return d, d.dirty
}

// Clear removes every document and returns them.
func (s *Set) Clear() []*Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	s.docs = map[string]*Document{}
	return out
}

// ByPath returns the open document of an absolute path, or nil.
func (s *Set) ByPath(abs string) *Document {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, d := range s.docs {
		if d.Abs == abs {
			return d
		}
	}
	return nil
}

// find returns the open document at rel of root; s.mu is held.
func (s *Set) find(root, rel string) *Document {
	for _, d := range s.docs {
		if d.Root == root && d.Rel == rel {
			return d
		}
	}
	return nil
}

// Unsaved reports whether rel of root is open with unsaved changes: the
// buffer, not the disk, is then what the index should hold.
func (s *Set) Unsaved(root, rel string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.find(root, rel)
	return d != nil && d.dirty
}

// UnsavedIn lists the documents of root with unsaved changes.
func (s *Set) UnsavedIn(root string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, d := range s.docs {
		if d.Root == root && d.dirty {
			out = append(out, d.Rel)
		}
	}
	return out
}

// View returns the documents of one workspace folder, as the context
// engine reads them.
func (s *Set) View(root string) *View { return &View{set: s, root: root} }

// View is one workspace folder's open documents.
type View struct {
	set    *Set
	root   string
	closed atomic.Bool
}

// Buffer returns the text and symbols of the open document at rel (f nil
// when it was not parsed); ok is false when rel is not open or the view
// was closed. It is engine.Buffers's method.
func (v *View) Buffer(rel string) (text []byte, f *symbols.File, ok bool) {
	if v.closed.Load() {
		return nil, nil, false
	}
	v.set.mu.RLock()
	defer v.set.mu.RUnlock()
	d := v.set.find(v.root, rel)
	if d == nil {
		return nil, nil, false
	}
	return d.Text, d.Syms, true
}

// Close makes the view show no documents from now on: the folder is
// closing and its buffers are being discarded.
func (v *View) Close() { v.closed.Store(true) }
