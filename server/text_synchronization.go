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
	"github.com/ctxls/ctxls/symbols"
)

func (s *Server) didOpen(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	abs := pathOf(string(p.TextDocument.URI))
	f, rel := s.sourceFolderFor(abs)
	d := &document{uri: p.TextDocument.URI, abs: abs, rel: rel, folder: f, version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)}
	if f != nil {
		// An editor restoring unsaved work (hot exit) opens a buffer that
		// is not the disk: it is what the person sees, so it goes to the
		// index as an edit would, and back to the disk if it is discarded.
		disk, err := wspath.ReadFile(f.root, abs)
		d.dirty = err != nil || !bytes.Equal(disk, d.text)
	}
	s.parse(ctx, d, nil)
	s.mu.Lock()
	if old := s.docs[d.uri]; old != nil && old.tree != nil {
		old.tree.Close()
	}
	s.docs[d.uri] = d
	s.mu.Unlock()
	if f != nil {
		f.eng.Record(engine.Activity{Type: engine.FileOpen, Path: rel})
		if d.dirty && d.syms != nil {
			f.queueUpdate(rel, d.text)
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
	text := d.text
	tree := d.tree
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
	nd := &document{uri: d.uri, abs: d.abs, rel: d.rel, folder: d.folder, version: p.TextDocument.Version, text: text, tree: tree, dirty: true}
	if len(edits) == 1 && len(p.ContentChanges) == 1 && tree != nil && d.syms != nil {
		s.parseEdit(ctx, nd, tree, d.syms, edits[0])
	} else {
		s.parse(ctx, nd, tree)
	}
	s.mu.Lock()
	s.docs[d.uri] = nd
	s.mu.Unlock()
	if d.folder == nil {
		return nil, nil
	}
	a := engine.Activity{Type: engine.FileEdit, Path: d.rel, ChangedSymbols: changedSymbols(nd.syms, spans)}
	if len(spans) > 0 {
		a.Line = spans[0][0]
	}
	d.folder.eng.Record(a)
	if nd.syms != nil {
		d.folder.queueUpdate(d.rel, nd.text)
	}
	return nil, nil
}

// parse extracts the symbols of d.text, re-using old (already edited to
// match, and closed here) when given. Documents over the index's size limit,
// and languages ctxls does not parse, keep their text only.
func (s *Server) parse(ctx context.Context, d *document, old *sitter.Tree) {
	d.tree, d.syms = nil, nil
	defer func() {
		if old != nil {
			old.Close()
		}
	}()
	if _, ok := symbols.LanguageFor(d.abs); !ok {
		return
	}
	limit := int64(1 << 20)
	if d.folder != nil {
		limit = d.folder.cfg.Index.MaxFileSize
	}
	if int64(len(d.text)) > limit {
		return
	}
	start := time.Now()
	s.parses.Add(1)
	f, tree, err := s.extractor.ExtractIncremental(ctx, d.abs, old, d.text)
	if err != nil {
		s.log.Warn("parse buffer", zap.String("path", d.abs), zap.Error(err))
		return
	}
	d.tree, d.syms = tree, f
	s.log.Debug("parsed buffer", zap.String("path", d.abs), zap.Int("bytes", len(d.text)), zap.Bool("incremental", old != nil), zap.Duration("took", time.Since(start)))
}

// parseEdit is parse for one edit of a parsed document: the declarations of
// prev are reused when the edit stays inside one function body
// (symbols.ExtractEdit), the common case while typing.
func (s *Server) parseEdit(ctx context.Context, d *document, old *sitter.Tree, prev *symbols.File, edit sitter.EditInput) {
	d.tree, d.syms = nil, nil
	defer old.Close()
	start := time.Now()
	s.parses.Add(1)
	f, tree, reused, err := s.extractor.ExtractEdit(ctx, d.abs, old, prev, edit, d.text)
	if err != nil {
		s.log.Warn("parse buffer", zap.String("path", d.abs), zap.Error(err))
		return
	}
	d.tree, d.syms = tree, f
	s.log.Debug("parsed buffer", zap.String("path", d.abs), zap.Int("bytes", len(d.text)), zap.Bool("reused", reused), zap.Duration("took", time.Since(start)))
}

func (s *Server) didSave(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	abs := pathOf(string(p.TextDocument.URI))
	s.mu.Lock()
	if d := s.docs[p.TextDocument.URI]; d != nil {
		d.dirty = false
	}
	s.mu.Unlock()
	if f, rel := s.sourceFolderFor(abs); f != nil {
		// The saved file is the truth now: index it from disk.
		f.queueUpdate(rel, nil)
	}
	return nil, nil
}

func (s *Server) didClose(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	if d == nil {
		return nil, nil
	}
	if d.tree != nil {
		d.tree.Close()
	}
	if d.folder != nil {
		d.folder.eng.Record(engine.Activity{Type: engine.FileClose, Path: d.rel})
		if d.dirty {
			// Closed without saving: the index goes back to the disk.
			d.folder.queueUpdate(d.rel, nil)
		}
	}
	return nil, nil
}
