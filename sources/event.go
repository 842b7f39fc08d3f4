package sources

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// Event is what every source sees of one hook call: its input parsed once
// (package hooks builds it), the workspace and its open store, and what
// several sources need computed once for all of them (the working set,
// the prompt's triggers).
type Event struct {
	// Name is Claude Code's event name (the constants of hookevent).
	Name    string
	Session string
	// Start is SessionStart's source: startup, resume, clear or compact.
	Start string
	// Tool is the tool of a PreToolUse or PostToolUse (a PostToolBatch's
	// first), and ToolInput the fields read from its input.
	Tool      string
	ToolInput ToolInput
	// Prompt is a UserPromptSubmit's prompt, cut to
	// analyzer.MaxMessageBytes.
	Prompt string
	// Root is the workspace root; Home the user's home directory ("" when
	// unknown), where ~/.claude lives.
	Root, Home string
	// Files are the workspace-relative files the tool call (or each call
	// of a batch) touches, and Tools the tool that touches each.
	Files, Tools []string
	// Active, when set, are the workspace-relative files recently open or
	// edited, newest first; else WorkingSet reads them from Store.
	Active []string
	Store  *store.Store
	Config config.Config
	// Collector is the session's collector (for Injected checks).
	Collector *collect.Collector
	Log       *zap.Logger
	// Reindex starts a whole index run of Root in the background; nil
	// starts none.
	Reindex func() error
	// Update, when set, re-indexes files (root-relative) in place of
	// index.Update: the hook daemon's follow loop, the one writer of its
	// index, so that a hook never races the daemon's own re-index for
	// the index lock.
	Update func(ctx context.Context, paths []string) error

	activeOnce sync.Once
	activeErr  error
	trigOnce   sync.Once
	triggers   []analyzer.Trigger
}

// ToolInput holds the fields ctxls reads from a tool's input.
type ToolInput struct {
	FilePath string `json:"file_path"`
	Path     string `json:"path"`
	Command  string `json:"command"`
	Pattern  string `json:"pattern"`
	OldStr   string `json:"old_string"`
	NewStr   string `json:"new_string"`
	Content  string `json:"content"`
}

const (
	// ActiveWindow is how far back activity counts as the working set
	// when a prompt is submitted, for the rules injector and as the
	// prompt's files in play; at session start (and compaction) the
	// window is a day.
	ActiveWindow = 30 * time.Minute
	// sessionWindow is the working set's window at session start and
	// compaction.
	sessionWindow = 24 * time.Hour
	// ActiveLimit is how many working-set files the sources consider.
	ActiveLimit = 5
)

// WorkingSet returns the files recently open or edited, newest first, at
// most ActiveLimit: within ActiveWindow for a prompt, within a day at
// session start and compaction, none for other events. The store is read
// once per event, whichever source asks first.
func (ev *Event) WorkingSet(ctx context.Context) ([]string, error) {
	ev.activeOnce.Do(func() {
		if ev.Active != nil || ev.Store == nil {
			return
		}
		window := ActiveWindow
		switch ev.Name {
		case hookevent.SessionStart, hookevent.PreCompact:
			window = sessionWindow
		case hookevent.UserPromptSubmit:
		default:
			return
		}
		ev.Active, ev.activeErr = ev.Store.WorkingSet(ctx, time.Now().Add(-window), ActiveLimit)
	})
	return ev.Active, ev.activeErr
}

// Triggers returns the prompt's triggers (analyzer.Message), analysed
// once per event. The slice is shared: callers must not change it.
func (ev *Event) Triggers() []analyzer.Trigger {
	ev.trigOnce.Do(func() {
		ev.triggers = analyzer.Message(ev.Prompt)
		if ev.triggers == nil {
			ev.triggers = []analyzer.Trigger{} // analysed, and found nothing
		}
	})
	return ev.triggers
}

// Fresh returns what re-indexes the files a source is about to render
// when they changed on disk (decision 0092).
func (ev *Event) Fresh() *index.Fresh {
	return &index.Fresh{Store: ev.Store, Options: index.Options{Root: ev.Root, Config: ev.Config, Log: ev.logger()}, Background: ev.Reindex, Update: ev.Update}
}

func (ev *Event) logger() *zap.Logger {
	if ev.Log == nil {
		return zap.NewNop()
	}
	return ev.Log
}

// IsEdit reports whether a tool changes files.
func IsEdit(tool string) bool {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}
