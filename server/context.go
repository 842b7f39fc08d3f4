package server

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/session"
)

type contextParams struct {
	FilePath string `json:"filePath"`
	Refresh  bool   `json:"refresh"`
}

// context answers ctxls/context with the current auto-context.
func (s *Server) context(ctx context.Context, raw json.RawMessage) (any, error) {
	var p contextParams
	if len(raw) > 0 && string(raw) != "null" {
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
	}
	return s.currentContext(ctx, p.FilePath, p.Refresh)
}

func (s *Server) currentContext(ctx context.Context, path string, refresh bool) (*engine.Snapshot, error) {
	abs := path
	if path != "" {
		abs = pathOf(path)
	}
	snap, err := s.sess.Context(ctx, abs, refresh)
	if errors.Is(err, session.ErrNoFolder) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no workspace folder holds "+path)
	}
	return snap, err
}
