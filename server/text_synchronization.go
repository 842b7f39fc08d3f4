package server

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/overlay"
	"github.com/ctxls/ctxls/symbols"
)

func (s *Server) didOpen(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	abs := pathOf(string(p.TextDocument.URI))
	f, rel := s.sourceFolderFor(abs)
	d := &overlay.Document{URI: string(p.TextDocument.URI), Abs: abs, Rel: rel, Version: p.TextDocument.Version, Text: []byte(p.TextDocument.Text)}
	dirty := false
	if f != nil {
		d.Root = f.root
		// An editor restoring unsaved work (hot exit) opens a buffer that
		// is not the disk: it is what the person sees, so it goes to the
		// index as an edit would, and back to the disk if it is discarded.
		disk, err := wspath.ReadFile(f.root, abs)
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
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, raw json.RawMessage) (any, error) {
	var p didChangeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	d := s.doc(p.TextDocument.URI)
	if d == nil {
		s.log.Warn("didChange for a document that is not open; ignored", zap.String("uri", string(p.TextDocument.URI)))
		return nil, nil
	}
	text := d.Text
	tree := d.Tree
	var spans [][2]int
	var edits []sitter.EditInput
	for _, ch := range p.ContentChanges {
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
			tree.Edit(*te)
		}
		text = newText
		spans = append(spans, [2]int{from, to})
	}
	f := s.folderOf(d)
	nd := &overlay.Document{URI: d.URI, Abs: d.Abs, Root: d.Root, Rel: d.Rel, Version: p.TextDocument.Version, Text: text, Tree: tree}
	if len(edits) == 1 && len(p.ContentChanges) == 1 && tree != nil && d.Syms != nil {
		s.parseEdit(ctx, nd, tree, d.Syms, edits[0])
	} else {
		s.parse(ctx, nd, f, tree)
	}
	s.docs.Put(nd, true)
	if f == nil {
		return nil, nil
	}
	a := engine.Activity{Type: engine.FileEdit, Path: d.Rel, ChangedSymbols: changedSymbols(nd.Syms, spans)}
	if len(spans) > 0 {
		a.Line = spans[0][0]
	}
	f.eng.Record(a)
	f.changed(d.Rel, bufferEdited, nd)
	return nil, nil
}

// parse extracts the symbols of d.Text, re-using old (already edited to
// match, and closed here) when given. Documents over the index's size limit
// (of folder f, or 1 MiB outside every folder), and languages ctxls does not
// parse, keep their text only.
func (s *Server) parse(ctx context.Context, d *overlay.Document, f *folder, old *sitter.Tree) {
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
func (s *Server) parseEdit(ctx context.Context, d *overlay.Document, old *sitter.Tree, prev *symbols.File, edit sitter.EditInput) {
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

func (s *Server) didSave(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.docs.Saved(string(p.TextDocument.URI))
	if f, rel := s.sourceFolderFor(pathOf(string(p.TextDocument.URI))); f != nil {
		f.changed(rel, fileSaved, nil)
	}
	return nil, nil
}

func (s *Server) didClose(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	d, dirty := s.docs.Close(string(p.TextDocument.URI))
	if d == nil {
		return nil, nil
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
	return nil, nil
}
