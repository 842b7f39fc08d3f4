package hooks

import (
	"context"
	"strings"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/store"
)

// reindexLockWait bounds how long a hook waits for another indexer: the
// server or a full index run will pick the file up anyway.
const reindexLockWait = 150 * time.Millisecond

// prepare does an event's side effects before sources run: re-indexing what
// the assistant touched, recording activity, remembering the prompt for
// continuity, clearing dedup state when the model's context is compacted.
func prepare(ctx context.Context, ev *sources.Event) error {
	var acts []store.Activity
	switch ev.Name {
	case hookevent.PostToolUse, hookevent.PostToolBatch:
		if len(ev.Files) > 0 {
			if err := reindexTouched(ctx, ev); err != nil {
				ev.Log.Sugar().Infof("re-index of %v deferred: %v", ev.Files, err)
			}
		}
		// A tool row also marks the session's earlier injections of the
		// file as used (store.RecordActivity), in this transaction.
		for i, f := range ev.Files {
			acts = append(acts, store.Activity{Session: ev.Session, Origin: "assistant", Type: "tool", Path: f, Text: ev.Tools[i]})
		}
	case hookevent.UserPromptSubmit:
		// The prompt is analysed once: the code source ranks with these
		// triggers (sources.Event.Triggers).
		var syms []string
		for _, t := range ev.Triggers() {
			if t.Type == analyzer.TriggerSymbol && len(syms) < 12 {
				syms = append(syms, t.Query)
			}
		}
		acts = append(acts, store.Activity{Session: ev.Session, Origin: "assistant", Type: "prompt", Symbols: syms, Text: analyzer.Truncate(ev.Prompt, 500)})
	case hookevent.PreCompact:
		// What was injected is about to be summarised away: offer it again
		// after compaction.
		return ev.Collector.Forget(ctx)
	case hookevent.SessionStart:
		if ev.Start == "compact" || ev.Start == "clear" {
			if err := ev.Collector.Forget(ctx); err != nil {
				return err
			}
		}
	}
	if IsProbeSession(ev.Session) {
		return nil // a health check's calls are not the person's activity
	}
	return ev.Store.RecordActivity(ctx, acts...)
}

// reindexTouched brings the files a tool touched into the index: through the
// daemon's follow loop when there is one, else with a short lock wait.
func reindexTouched(ctx context.Context, ev *sources.Event) error {
	if ev.Update != nil {
		return ev.Update(ctx, ev.Files)
	}
	changes := make([]index.Change, len(ev.Files))
	for i, f := range ev.Files {
		changes[i] = index.Change{Path: f}
	}
	_, err := index.Update(ctx, ev.Store, index.Options{Root: ev.Root, Config: ev.Config, Workers: 1, LockTimeout: reindexLockWait}, changes)
	return err
}

// ProbeSessionPrefix starts the session id of calls that check the hooks
// work (ctxls doctor's canaries): they run every step but record no
// activity, so their prompts and files never reach a real session's
// working set, recent prompts or the MCP session resource.
const ProbeSessionPrefix = "ctxls-probe-"

// IsProbeSession reports whether id names a probe session.
func IsProbeSession(id string) bool { return strings.HasPrefix(id, ProbeSessionPrefix) }
