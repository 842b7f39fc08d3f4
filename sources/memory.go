package sources

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/inject"
	"github.com/ctxls/ctxls/memory/teamcache"
)

// Memory injects the memory plugin's gotchas (and, when enabled,
// decisions and learnings) relevant to a tool call: after any tool call
// that names a file or runs a command, and before an edit.
type Memory struct{}

// Name implements Source.
func (Memory) Name() string { return "memory" }

// hintShows is how many times per session the "ctxls memory show" hint
// follows injected memories.
const hintShows = 3

// Collect implements Source.
func (Memory) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	tool := ev.Tool
	switch ev.Name {
	case hookevent.PostToolUse:
	case hookevent.PreToolUse:
		if !IsEdit(tool) {
			return nil, nil
		}
	default:
		return nil, nil
	}
	t := ev.ToolInput
	text := t.Command
	if text == "" {
		text = t.Pattern
	}
	if len(ev.Files) == 0 && strings.TrimSpace(text) == "" {
		return nil, nil
	}
	cfg, err := inject.LoadConfig(ev.Root)
	if err != nil {
		// A broken memory.local.md must not silence gotchas: the defaults
		// apply to what could not be read.
		ev.logger().Warn("memory injection settings", zap.Error(err))
	}
	if !cfg.Enabled {
		return nil, nil
	}
	ms, err := memory.Open(memory.Options{Root: ev.Root, Index: ev.Store})
	if err != nil {
		return nil, err
	}
	if _, err := ms.SyncIfChanged(ctx, memory.SyncAge); err != nil {
		return nil, err
	}
	res, err := inject.Select(ctx, ms, cfg, inject.Request{Tool: tool, Paths: ev.Files, Text: text},
		func(key string) bool { return ev.Collector.Injected(ctx, "memory:"+key) })
	if err != nil || len(res.Memories) == 0 {
		return nil, err
	}
	var out []collect.Entry
	stale := enterpriseStale(ev.Root, res.Memories)
	for _, m := range res.Memories {
		// Entries are ordered by priority, so the type order of the seed
		// (gotcha > decision > learning) holds in the merged context.
		prio := collect.Normal
		switch m.Type {
		case memory.Gotcha:
			prio = collect.High
		case memory.Learning:
			prio = collect.Low
		}
		content, meta := inject.Format(m), map[string]any{"relevance": m.Score, "type": string(m.Type)}
		if m.Scope == memory.Enterprise && stale != "" {
			content += "\n" + stale
			meta["stale"] = true
		}
		out = append(out, collect.Entry{Source: "memory", ID: inject.Key(m.Summary), Content: content, Priority: prio, Metadata: meta})
	}
	if ok, err := inject.ShowHint(ev.Root, ev.Session, "memory-show", hintShows, time.Now()); err == nil && ok {
		out = append(out, collect.Entry{Source: "memory", ID: fmt.Sprintf("hint-%d", time.Now().UnixNano()), Priority: collect.Low,
			Content: "(memories: `ctxls memory show SLUG` prints one in full)"})
	}
	return out, nil
}

// enterpriseStale is the note that marks team memories answered by a
// stale local cache of an enterprise scope kept in PostgreSQL (the hooks
// never reach the database: they read the cache), or "".
func enterpriseStale(root string, mems []inject.Memory) string {
	if !slices.ContainsFunc(mems, func(m inject.Memory) bool { return m.Scope == memory.Enterprise }) {
		return ""
	}
	dir := config.EnterpriseCacheDir(root)
	st, err := teamcache.ReadState(dir)
	if err != nil || !st.Stale(time.Now()) {
		return ""
	}
	if st.Synced.IsZero() {
		return "(team memory from a local cache that was never synced: may be out of date)"
	}
	return fmt.Sprintf("(team memory from the local cache, last synced %s ago: may be out of date)", time.Since(st.Synced).Round(time.Minute))
}
