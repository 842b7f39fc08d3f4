package server

import (
	"context"
	"encoding/json"
	"fmt"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/engine"
)

// clientSettings is the settings object an editor sends in
// initializationOptions and workspace/didChangeConfiguration
// (docs/decisions/0044, extension/protocol.ts ServerSettings). Every key is
// optional: a missing one leaves the configuration's value.
type clientSettings struct {
	Enabled      *bool    `json:"enabled"`
	MaxTokens    *int     `json:"maxTokens"`
	MinRelevance *float64 `json:"minRelevance"`
	Triggers     *struct {
		FileOpen        *bool `json:"fileOpen"`
		FileEdit        *bool `json:"fileEdit"`
		Selection       *bool `json:"selection"`
		SymbolMention   *bool `json:"symbolMention"`
		ImplicitQueries *bool `json:"implicitQueries"`
	} `json:"triggers"`
	// LogLevel is the --log-level flag's business (the extension restarts
	// the server when it changes); accepted and ignored here.
	LogLevel string `json:"logLevel"`
}

// Bounds of the settings, as the extension enforces them.
const (
	minMaxTokens = 100
	maxMaxTokens = 1_000_000
)

// parseSettings reads a settings object; null or absent is the defaults.
// Values of the wrong type or out of range are an error naming the key, and
// the caller keeps what it had.
func parseSettings(raw json.RawMessage) (engine.Settings, error) {
	set := engine.DefaultSettings()
	if len(raw) == 0 || string(raw) == "null" {
		return set, nil
	}
	var cs clientSettings
	if err := json.Unmarshal(raw, &cs); err != nil {
		return set, fmt.Errorf("ctxls settings: %w", err)
	}
	if cs.Enabled != nil {
		set.Enabled = *cs.Enabled
	}
	if cs.MaxTokens != nil {
		if *cs.MaxTokens < minMaxTokens || *cs.MaxTokens > maxMaxTokens {
			return engine.DefaultSettings(), fmt.Errorf("ctxls settings: maxTokens %d is outside [%d, %d]", *cs.MaxTokens, minMaxTokens, maxMaxTokens)
		}
		set.MaxTokens = *cs.MaxTokens
	}
	if cs.MinRelevance != nil {
		if *cs.MinRelevance < 0 || *cs.MinRelevance > 1 {
			return engine.DefaultSettings(), fmt.Errorf("ctxls settings: minRelevance %g is outside [0, 1]", *cs.MinRelevance)
		}
		set.MinRelevance = *cs.MinRelevance
	}
	if t := cs.Triggers; t != nil {
		for _, sw := range []struct {
			v   *bool
			dst *bool
		}{
			{t.FileOpen, &set.Triggers.FileOpen}, {t.FileEdit, &set.Triggers.FileEdit}, {t.Selection, &set.Triggers.Selection},
			{t.SymbolMention, &set.Triggers.SymbolMention}, {t.ImplicitQueries, &set.Triggers.ImplicitQueries},
		} {
			if sw.v != nil {
				*sw.dst = *sw.v
			}
		}
	}
	return set, nil
}

// didChangeConfigurationParams is workspace/didChangeConfiguration as the
// extension sends it: {"settings": {"ctxls": {...}}}.
type didChangeConfigurationParams struct {
	Settings *struct {
		Ctxls json.RawMessage `json:"ctxls"`
	} `json:"settings"`
}

// didChangeConfiguration applies new settings to every folder's engine,
// which rewrites its auto-context under them.
func (s *Server) didChangeConfiguration(_ context.Context, raw json.RawMessage) (any, error) {
	var p didChangeConfigurationParams
	if err := json.Unmarshal(raw, &p); err != nil || p.Settings == nil || len(p.Settings.Ctxls) == 0 {
		// Clients that pull settings (workspace/configuration) send
		// {"settings": null}; there is nothing to apply.
		s.log.Debug("didChangeConfiguration without ctxls settings; ignored")
		return nil, nil
	}
	set, err := parseSettings(p.Settings.Ctxls)
	if err != nil {
		s.log.Warn("settings ignored", zap.Error(err))
		return nil, nil
	}
	s.sess.SetSettings(set)
	return nil, nil
}
