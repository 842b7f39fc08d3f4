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
	"github.com/ctxls/ctxls/session"
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
	a := session.Activity{Type: t, Path: pathOf(p.FilePath), ChangedSymbols: p.ChangedSymbols, Text: p.Text, At: parseTimestamp(p.Timestamp)}
	if p.Position != nil {
		pos := position(*p.Position)
		a.Position = &pos
	}
	s.sess.Record(a)
	return nil, nil
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
	s.sess.Message(p.Text)
	return nil, nil
}
