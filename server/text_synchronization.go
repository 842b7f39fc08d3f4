package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/session"
)

// rangeChange is a didChange content change. Range is a pointer because a
// change without a range replaces the whole document, and go.lsp.dev's type
// cannot tell that apart from a range starting at 0:0.
type rangeChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// didChangeParams is DidChangeTextDocumentParams with rangeChange.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []rangeChange                            `json:"contentChanges"`
}

func (s *Server) didOpen(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, s.sess.DidModify(ctx, session.Modification{
		Action: session.Open, URI: string(p.TextDocument.URI), Path: pathOf(string(p.TextDocument.URI)),
		Version: p.TextDocument.Version, Text: []byte(p.TextDocument.Text),
	})
}

func (s *Server) didChange(ctx context.Context, raw json.RawMessage) (any, error) {
	var p didChangeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	edits := make([]session.Edit, len(p.ContentChanges))
	for i, ch := range p.ContentChanges {
		edits[i].Text = ch.Text
		if r := ch.Range; r != nil {
			edits[i].Range = &session.Range{Start: position(r.Start), End: position(r.End)}
		}
	}
	return nil, s.sess.DidModify(ctx, session.Modification{
		Action: session.Change, URI: string(p.TextDocument.URI), Version: p.TextDocument.Version, Edits: edits,
	})
}

// position is an LSP position in the session's terms (the same units).
func position(p protocol.Position) session.Position {
	return session.Position{Line: p.Line, Character: p.Character}
}

func (s *Server) didSave(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, s.sess.DidModify(ctx, session.Modification{Action: session.Save, URI: string(p.TextDocument.URI), Path: pathOf(string(p.TextDocument.URI))})
}

func (s *Server) didClose(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, s.sess.DidModify(ctx, session.Modification{Action: session.Close, URI: string(p.TextDocument.URI)})
}

// didChangeWatchedFiles re-indexes what the client saw change on disk.
func (s *Server) didChangeWatchedFiles(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	for _, ch := range p.Changes {
		if err := s.sess.DidModify(ctx, session.Modification{Action: session.OnDisk, Path: pathOf(string(ch.URI))}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
