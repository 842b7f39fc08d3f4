package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/session"
)

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	str := func(i int) string {
		var v string
		if i < len(p.Arguments) {
			_ = json.Unmarshal(p.Arguments[i], &v)
		}
		return v
	}
	switch p.Command {
	case cmdShowContext:
		return s.currentContext(ctx, str(0), true)
	case cmdQuery:
		var opts struct {
			Limit      int    `json:"limit"`
			ActiveFile string `json:"activeFile"`
		}
		if len(p.Arguments) > 1 {
			if err := json.Unmarshal(p.Arguments[1], &opts); err != nil {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "ctxls.query options: "+err.Error())
			}
		}
		return s.query(ctx, str(0), opts.Limit, opts.ActiveFile)
	case cmdReindex:
		return s.reindexCommand(ctx, str(0))
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "unknown command: "+p.Command)
}

type queryResult struct {
	Root    string                 `json:"root"`
	Files   []retrieval.FileResult `json:"files"`
	Results []queryHit             `json:"results"`
}

type queryHit struct {
	Path      string  `json:"path"`
	Line      int     `json:"line"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	QName     string  `json:"qualifiedName"`
	Signature string  `json:"signature,omitempty"`
	Score     float64 `json:"score"`
}

// query runs ctxls query for the folder of activeFile.
func (s *Server) query(ctx context.Context, text string, limit int, activeFile string) (*queryResult, error) {
	if text == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "ctxls.query needs the text to search for")
	}
	if activeFile != "" {
		activeFile = pathOf(activeFile)
	}
	root, resp, err := s.sess.Query(ctx, retrieval.Request{Text: text, Limit: limit}, activeFile)
	if errors.Is(err, session.ErrNoFolder) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no workspace folder")
	}
	if err != nil {
		return nil, err
	}
	out := &queryResult{Root: root, Files: resp.Files, Results: []queryHit{}}
	if out.Files == nil {
		out.Files = []retrieval.FileResult{}
	}
	for _, r := range resp.Results {
		e := r.Entity
		out.Results = append(out.Results, queryHit{Path: e.Path, Line: e.StartLine, Kind: e.Kind, Name: e.Name, QName: e.QName, Signature: e.Signature, Score: r.Score})
	}
	return out, nil
}

// reindexCommand re-indexes the folder holding path, or every folder.
func (s *Server) reindexCommand(ctx context.Context, path string) (any, error) {
	abs := ""
	if path != "" {
		abs = pathOf(path)
	}
	sums, err := s.sess.Reindex(ctx, abs)
	if errors.Is(err, session.ErrNoFolder) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s is in no workspace folder", filepath.Clean(abs)))
	}
	return sums, err
}
