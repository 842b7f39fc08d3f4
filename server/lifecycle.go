package server

import (
	"context"
	"encoding/json"
	"os"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Commands the server executes (workspace/executeCommand).
const (
	cmdShowContext = "ctxls.showContext"
	cmdQuery       = "ctxls.query"
	cmdReindex     = "ctxls.reindex"
)

// initializeParams is the part of InitializeParams the server reads.
type initializeParams struct {
	RootURI          string                     `json:"rootUri"`
	RootPath         string                     `json:"rootPath"`
	WorkspaceFolders []protocol.WorkspaceFolder `json:"workspaceFolders"`
	// InitializationOptions are the editor's settings (settings.go).
	InitializationOptions json.RawMessage `json:"initializationOptions"`
}

func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if set, err := parseSettings(p.InitializationOptions); err != nil {
		s.log.Warn("initializationOptions ignored", zap.Error(err))
	} else {
		s.mu.Lock()
		s.settings = set
		s.mu.Unlock()
	}
	var roots []string
	for _, wf := range p.WorkspaceFolders {
		roots = append(roots, pathOf(wf.URI))
	}
	if len(roots) == 0 && p.RootURI != "" {
		roots = append(roots, pathOf(p.RootURI))
	}
	if len(roots) == 0 && p.RootPath != "" {
		roots = append(roots, pathOf(p.RootPath))
	}
	for _, r := range roots {
		s.addFolder(ctx, r)
	}
	s.state.Store(stateRunning)
	return map[string]any{
		"capabilities": map[string]any{
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    protocol.TextDocumentSyncKindIncremental,
				"save":      map[string]any{"includeText": false},
			},
			"hoverProvider":           true,
			"documentSymbolProvider":  true,
			"workspaceSymbolProvider": true,
			"executeCommandProvider":  map[string]any{"commands": []string{cmdShowContext, cmdQuery, cmdReindex}},
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
			},
			"experimental": map[string]any{"ctxls": map[string]any{"protocolVersion": 1}},
		},
		"serverInfo": map[string]any{"name": "ctxls", "version": s.opts.Version},
	}, nil
}

// initialized starts the folders' background work: the initial index run
// and the file watcher.
func (s *Server) initialized(ctx context.Context, _ json.RawMessage) (any, error) {
	for _, f := range s.allFolders() {
		f.start()
	}
	return nil, nil
}

// addFolder opens a workspace folder; one that cannot be opened is logged
// and left out, so the others still work.
func (s *Server) addFolder(ctx context.Context, root string) *folder {
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

type workspaceFoldersChange struct {
	Event struct {
		Added   []protocol.WorkspaceFolder `json:"added"`
		Removed []protocol.WorkspaceFolder `json:"removed"`
	} `json:"event"`
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, raw json.RawMessage) (any, error) {
	var p workspaceFoldersChange
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	for _, wf := range p.Event.Removed {
		root := pathOf(wf.URI)
		s.mu.Lock()
		var gone *folder
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
	for _, wf := range p.Event.Added {
		if f := s.addFolder(ctx, pathOf(wf.URI)); f != nil {
			f.start()
		}
	}
	return nil, nil
}
