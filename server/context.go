package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/wspath"
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

// maxScanned bounds the size of a file read from disk on a keystroke.
const maxScanned = 8 << 20

// readSmallFile reads a file of the workspace folder at root for hover,
// symbol and activity lookups, refusing a file whose real path is outside
// root (wspath: a link in a cloned repository) and files larger than max,
// too large to scan on a keystroke.
func readSmallFile(root, abs string, max int64) ([]byte, error) {
	f, err := wspath.Open(root, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > max {
		return nil, fmt.Errorf("read %s: %w", abs, os.ErrInvalid)
	}
	return io.ReadAll(f)
}
