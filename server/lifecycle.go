package server

import (
	"context"
	"encoding/json"

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
		s.sess.SetSettings(set)
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
		s.sess.AddFolder(ctx, r)
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
	for _, f := range s.sess.Folders() {
		f.Start()
	}
	return nil, nil
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
		s.sess.RemoveFolder(pathOf(wf.URI))
	}
	for _, wf := range p.Event.Added {
		if f := s.sess.AddFolder(ctx, pathOf(wf.URI)); f != nil {
			f.Start()
		}
	}
	return nil, nil
}
