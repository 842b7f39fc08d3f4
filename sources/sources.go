// Package sources holds every context source of the Claude Code hooks:
// code from the index (retrieval for a prompt, the outline and callers of
// a file about to be edited, a touched file's neighbours), the working set
// at session start, memories, the rules injector (Cursor, Copilot, Claude
// Code and kord rule files), the nearest AGENTS.md and the directory's
// README.md, keyword-triggered instruction modes, and the agents,
// commands, skills and output styles discovered in ~/.claude, the
// project's .claude and installed Claude Code plugins.
//
// # Adding a context source
//
// This file is all a new source needs to read. A source implements Source:
// it looks at the Event (which hook event, the prompt, the files the tool
// call touches, the workspace's store and configuration) and returns
// collector entries, or none. Add it to All. Package hooks runs every
// source of All in parallel under the hook's deadline, after the event's
// side effects (re-indexing a touched file, recording activity), and gives
// their entries to the session's collector, which orders them by priority,
// keeps a session from seeing the same entry twice (until compaction) and
// fits them in the budget. A source that wants a switch reads it from
// Event.Config (config.Sources). Event names are the constants of package
// hookevent. Test a source by calling its Collect with an Event (see
// sources_test.go); hooks' tests drive the built binary.
package sources

import (
	"context"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/sources/rules"
)

// Source is one context source.
type Source interface {
	// Name identifies the source in entries and logs.
	Name() string
	// Collect returns the entries relevant to ev; it must honour ctx (the
	// hook's deadline) and must not change ev, which every source shares.
	// An error costs only the source's own entries, unless it says the
	// store is damaged (store.IsCorrupt): then the hook answers nothing.
	Collect(ctx context.Context, ev *Event) ([]collect.Entry, error)
}

// All returns a new set of every source, in a fixed order. Each checks
// its own switch in the event's configuration (sources.*.enabled,
// sources.modes), so the list does not depend on a workspace.
func All() []Source {
	return []Source{Code{}, WorkingSet{}, Memory{}, RulesInjector{cache: rules.NewCache()}, DirectoryAgents{}, DirectoryReadme{}, KeywordDetector{}, &Discovery{}}
}
