package server

import (
	"context"
	"encoding/json"
	"os"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/engine"
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
	f := s.activeFolder(path)
	if f == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no workspace folder holds "+path)
	}
	if !refresh {
		if snap := f.eng.Last(); snap != nil {
			return snap, nil
		}
	}
	return f.eng.Refresh(ctx)
}

// readSmallFile reads a file for hover and activity lookups, refusing files
// too large to scan on a keystroke.
func readSmallFile(abs string) ([]byte, error) {
	info, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if info.Size() > 8<<20 {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(abs)
}
