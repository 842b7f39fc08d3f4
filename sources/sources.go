// Package sources provides the context sources beyond code: the rules
// injector (Cursor, Copilot, Claude Code and kord rule files), the nearest
// AGENTS.md and the directory's README.md, keyword-triggered instruction
// modes, and the agents, commands, skills and output styles discovered in
// ~/.claude, the project's .claude and installed Claude Code plugins.
//
// A Provider sees one Request, built by the hooks package from a hook
// event, and returns collector entries; the collector orders them by
// priority and keeps a session from seeing the same entry twice (until
// compaction). This package does not import hooks, so that hooks can list
// these providers among its default sources.
package sources

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
)

// Claude Code event names a Request may carry.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	PostToolBatch    = "PostToolBatch"
	PreCompact       = "PreCompact"
)

// Request is what a provider sees of one hook call.
type Request struct {
	// Event is Claude Code's event name.
	Event string
	// Start is SessionStart's source: startup, resume, clear or compact.
	Start string
	// Tool is the tool of a PreToolUse or PostToolUse.
	Tool   string
	Prompt string
	// Root is the workspace root; Home the user's home directory ("" when
	// unknown), where ~/.claude lives.
	Root, Home string
	// Files are the workspace-relative files the tool call touches.
	Files []string
	// Active are workspace-relative files recently open or edited (the
	// store's working set), newest first.
	Active []string
	Config config.Config
	Log    *zap.Logger
}

// Provider is one context source.
type Provider interface {
	// Name identifies the source in entries and logs.
	Name() string
	// Collect returns the entries relevant to req; it must honour ctx.
	Collect(ctx context.Context, req *Request) ([]collect.Entry, error)
}

// All returns every provider, in a fixed order. Each checks its own
// switch in the request's configuration (sources.*.enabled, sources.modes),
// so the list does not depend on a workspace.
func All() []Provider {
	return []Provider{RulesInjector{}, DirectoryAgents{}, DirectoryReadme{}, KeywordDetector{}, &Discovery{}}
}

// ActiveWindow is how far back editor activity counts as "active" for the
// rules injector when a prompt is submitted; at session start (and
// compaction) the window is a day, as for the working set.
const ActiveWindow = 30 * time.Minute

// ActiveLimit is how many working-set files the rules injector considers.
const ActiveLimit = 5

func logger(req *Request) *zap.Logger {
	if req.Log == nil {
		return zap.NewNop()
	}
	return req.Log
}
