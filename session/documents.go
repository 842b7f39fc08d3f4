package session

import (
	"bytes"
	"context"
	"fmt"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/overlay"
	"github.com/ctxls/ctxls/symbols"
)

// Action is what happened to a document or a file.
type Action int

const (
	// Open: the editor opened a document (URI, Path, Version, Text).
	Open Action = iota
	// Change: the editor changed an open document (URI, Version, Edits).
	Change
	// Save: the editor wrote a document to disk (URI, Path).
	Save
	// Close: the editor closed a document (URI).
	Close
	// OnDisk: a file changed on disk, as the editor's own watcher saw it
	// (Path). The folders' watchers report theirs themselves.
	OnDisk
)

// Modification is one change the editor reports, in the editor's terms.
type Modification struct {
	Action Action
	// URI names the document (every action but OnDisk).
	URI string
	// Path is the document's or file's clean absolute path (Open, Save,
	// OnDisk).
	Path    string
	Version int32
	// Text is the opened document's text (Open).
	Text []byte
	// Edits are applied in order (Change).
	Edits []Edit
}

// DidModify is the one funnel for the editor's changes: it updates the
// open documents (parsed incrementally), records the activity the change
// is, and queues what the index should hold through Folder.changed. It
// runs on the server's ordered worker: changes apply in the order sent.
func (s *Session) DidModify(ctx context.Context, m Modification) error {
	switch m.Action {
	case Open:
		s.open(ctx, m)
	case Change:
		s.change(ctx, m)
	case Save:
		s.docs.Saved(m.URI)
		if f, rel := s.sourceFolderFor(m.Path); f != nil {
			f.changed(rel, fileSaved, nil)
		}
	case Close:
		s.close(m)
	case OnDisk:
		if f, rel := s.sourceFolderFor(m.Path); f != nil && rel != "" {
			f.changed(rel, diskChanged, nil)
		}
	default:
		return fmt.Errorf("modify %s: unknown action %d", m.URI, m.Action)
	}
	return nil
}

func (s *Session) open(ctx context.Context, m Modification) {
	f, rel := s.sourceFolderFor(m.Path)
	d := &overlay.Document{URI: m.URI, Abs: m.Path, Rel: rel, Version: m.Version, Text: m.Text}
	dirty := false
	if f != nil {
		d.Root = f.root
		// An editor restoring unsaved work (hot exit) opens a buffer that
		// is not the disk: it is what the person sees, so it goes to the
		// index as an edit would, and back to the disk if it is discarded.
		disk, err := wspath.ReadFile(f.root, m.Path)
		dirty = err != nil || !bytes.Equal(disk, d.Text)
	}
	s.parse(ctx, d, f, nil)
	if old := s.docs.Put(d, dirty); old != nil && old.Tree != nil {
		old.Tree.Close()
	}
	if f != nil {
		f.eng.Record(engine.Activity{Type: engine.FileOpen, Path: rel})
		if dirty {
			f.changed(rel, bufferEdited, d)
		}
	}
}

func (s *Session) change(ctx context.Context, m Modification) {
	d := s.docs.Get(m.URI)
	if d == nil {
		s.log.Warn("didChange for a document that is not open; ignored", zap.String("uri", m.URI))
		return
	}
	text := d.Text
	tree := d.Tree
	var spans [][2]int
	var edits []sitter.EditInput
	for _, ch := range m.Edits {
		newText, te, from, to := apply(text, ch)
		if te != nil {
			edits = append(edits, *te)
		}
		if te == nil {
			// A whole-document replacement: parse from scratch.
			if tree != nil {
				tree.Close()
				tree = nil
			}
		} else if tree != nil {
			symbols.EditTree(tree, *te)
		}
		text = newText
		spans = append(spans, [2]int{from, to})
	}
	f := s.folderOf(d)
	nd := &overlay.Document{URI: d.URI, Abs: d.Abs, Root: d.Root, Rel: d.Rel, Version: m.Version, Text: text, Tree: tree}
	if len(edits) == 1 && len(m.Edits) == 1 && tree != nil && d.Syms != nil {
		s.parseEdit(ctx, nd, tree, d.Syms, edits[0])
	} else {
		s.parse(ctx, nd, f, tree)
	}
	s.docs.Put(nd, true)
	if f == nil {
		return
	}
	a := engine.Activity{Type: engine.FileEdit, Path: d.Rel, ChangedSymbols: changedSymbols(nd.Syms, spans)}
	if len(spans) > 0 {
		a.Line = spans[0][0]
	}
	f.eng.Record(a)
	f.changed(d.Rel, bufferEdited, nd)
}

func (s *Session) close(m Modification) {
	d, dirty := s.docs.Close(m.URI)
	if d == nil {
		return
	}
	if d.Tree != nil {
		d.Tree.Close()
	}
	if f := s.folderOf(d); f != nil {
		f.eng.Record(engine.Activity{Type: engine.FileClose, Path: d.Rel})
		if dirty {
			f.changed(d.Rel, bufferDiscarded, nil)
		}
	}
}

// parse extracts the symbols of d.Text, re-using old (already edited to
// match, and closed here) when given. Documents over the index's size limit
// (of folder f, or 1 MiB outside every folder), and languages ctxls does not
// parse, keep their text only.
func (s *Session) parse(ctx context.Context, d *overlay.Document, f *Folder, old *sitter.Tree) {
	d.Tree, d.Syms = nil, nil
	defer func() {
		if old != nil {
			old.Close()
		}
	}()
	if _, ok := symbols.LanguageFor(d.Abs); !ok {
		return
	}
	limit := int64(1 << 20)
	if f != nil {
		limit = f.cfg.Index.MaxFileSize
	}
	if int64(len(d.Text)) > limit {
		return
	}
	start := time.Now()
	s.parses.Add(1)
	syms, tree, err := s.extractor.ExtractIncremental(ctx, d.Abs, old, d.Text)
	if err != nil {
		s.log.Warn("parse buffer", zap.String("path", d.Abs), zap.Error(err))
		return
	}
	d.Tree, d.Syms = tree, syms
	s.log.Debug("parsed buffer", zap.String("path", d.Abs), zap.Int("bytes", len(d.Text)), zap.Bool("incremental", old != nil), zap.Duration("took", time.Since(start)))
}

// parseEdit is parse for one edit of a parsed document: the declarations of
// prev are reused when the edit stays inside one function body
// (symbols.ExtractEdit), the common case while typing.
func (s *Session) parseEdit(ctx context.Context, d *overlay.Document, old *sitter.Tree, prev *symbols.File, edit sitter.EditInput) {
	d.Tree, d.Syms = nil, nil
	defer old.Close()
	start := time.Now()
	s.parses.Add(1)
	syms, tree, reused, err := s.extractor.ExtractEdit(ctx, d.Abs, old, prev, edit, d.Text)
	if err != nil {
		s.log.Warn("parse buffer", zap.String("path", d.Abs), zap.Error(err))
		return
	}
	d.Tree, d.Syms = tree, syms
	s.log.Debug("parsed buffer", zap.String("path", d.Abs), zap.Int("bytes", len(d.Text)), zap.Bool("reused", reused), zap.Duration("took", time.Since(start)))
}

// Outline returns the symbols of the document at uri (path: its clean
// absolute path): the open buffer's, or a fresh parse of the file on disk,
// read only inside a workspace folder; nil when there are none.
func (s *Session) Outline(ctx context.Context, uri, path string) *symbols.File {
	if d := s.docs.Get(uri); d != nil {
		return d.Syms
	}
	f, _ := s.FolderFor(path)
	if f == nil {
		return nil
	}
	if _, ok := symbols.LanguageFor(path); !ok {
		return nil
	}
	src, err := readSmallFile(f.root, path, 1<<20)
	if err != nil {
		return nil
	}
	syms, _ := s.extractor.Extract(ctx, path, src)
	return syms
}
