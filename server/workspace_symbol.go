package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const maxWorkspaceSymbols = 100

// symbolInfo is protocol.SymbolInformation without the deprecated fields.
type symbolInfo struct {
	Name          string              `json:"name"`
	Kind          protocol.SymbolKind `json:"kind"`
	Location      protocol.Location   `json:"location"`
	ContainerName string              `json:"containerName,omitempty"`
}

// workspaceSymbol searches every folder's index by name.
func (s *Server) workspaceSymbol(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	syms, err := s.sess.Symbols(ctx, p.Query, maxWorkspaceSymbols)
	if err != nil {
		return nil, err
	}
	out := []symbolInfo{}
	for _, e := range syms {
		container := ""
		if i := strings.LastIndex(e.QName, "."); i > 0 {
			container = e.QName[:i]
		}
		out = append(out, symbolInfo{
			Name: e.Name, Kind: symbolKind(e.Kind), ContainerName: container,
			Location: protocol.Location{URI: uri.File(filepath.Join(e.Root, filepath.FromSlash(e.Path))), Range: lineRange(e.StartLine, e.EndLine)},
		})
	}
	return out, nil
}
