package server

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
)

// activityParams is the ctxls/activity notification (docs/protocol.md).
type activityParams struct {
	Type           string             `json:"type"`
	FilePath       string             `json:"filePath"`
	ChangedSymbols []string           `json:"changedSymbols"`
	Position       *protocol.Position `json:"position"`
	Text           string             `json:"text"`
	Timestamp      json.RawMessage    `json:"timestamp"`
}

// activity takes what the editor saw that the protocol does not carry.
func (s *Server) activity(ctx context.Context, raw json.RawMessage) (any, error) {
	var p activityParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	t := engine.ActivityType(p.Type)
	if !t.Valid() || p.FilePath == "" {
		s.log.Info("ctxls/activity ignored: unknown type or no path", zap.String("type", p.Type))
		return nil, nil
	}
	abs := pathOf(p.FilePath)
	f, rel := s.sourceFolderFor(abs)
	if f == nil {
		s.log.Debug("ctxls/activity outside every folder or in its .ctxls", zap.String("path", abs))
		return nil, nil
	}
	a := engine.Activity{Type: t, Path: rel, ChangedSymbols: p.ChangedSymbols, Text: p.Text, At: parseTimestamp(p.Timestamp)}
	if len(a.Text) > 2000 {
		a.Text = a.Text[:2000]
	}
	if p.Position != nil {
		a.Line = int(p.Position.Line) + 1
		if t == engine.SymbolHover {
			if text := s.textOf(f, abs); text != nil {
				a.Symbol, _ = wordAt(text, *p.Position)
			}
		}
	}
	f.eng.Record(a)
	return nil, nil
}

// textOf returns an open document's text or the file on disk, of folder f.
func (s *Server) textOf(f *folder, abs string) []byte {
	if d := s.docs.ByPath(abs); d != nil {
		return d.Text
	}
	data, _ := readSmallFile(f.root, abs, maxScanned)
	return data
}

// parseTimestamp accepts ISO 8601 strings and Unix milliseconds; anything
// else is now.
func parseTimestamp(raw json.RawMessage) time.Time {
	v := strings.Trim(string(raw), `"`)
	if v == "" || v == "null" {
		return time.Now()
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.UnixMilli(ms)
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t
	}
	return time.Now()
}

type messageParams struct {
	Text string `json:"text"`
}

// message takes a message the person sent to the assistant.
func (s *Server) message(ctx context.Context, raw json.RawMessage) (any, error) {
	var p messageParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if f := s.activeFolder(""); f != nil {
		f.eng.Message(p.Text)
	}
	return nil, nil
}

// activeFolder returns the folder of path when given, else the folder whose
// engine has an active file, else the first.
func (s *Server) activeFolder(path string) *folder {
	if path != "" {
		f, _ := s.folderFor(pathOf(path))
		return f
	}
	folders := s.allFolders()
	for _, f := range folders {
		if f.eng.ActiveFile() != "" {
			return f
		}
	}
	if len(folders) > 0 {
		return folders[0]
	}
	return nil
}
