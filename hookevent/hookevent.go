// Package hookevent names the Claude Code hook events ctxls answers, and
// the argument of `ctxls hook` for each, in one place: the hooks, their
// context sources, the hook daemon, install and doctor all read them here.
// It uses the standard library only.
package hookevent

// Claude Code's names of the events.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	PostToolBatch    = "PostToolBatch"
	PreCompact       = "PreCompact"
)

// Event is one hook event.
type Event struct {
	// Name is Claude Code's name of the event.
	Name string
	// Arg is the event's argument of `ctxls hook`.
	Arg string
}

// all lists the events in the order a session meets them.
var all = [...]Event{
	{SessionStart, "session-start"},
	{UserPromptSubmit, "user-prompt-submit"},
	{PreToolUse, "pre-tool-use"},
	{PostToolUse, "post-tool-use"},
	{PostToolBatch, "post-tool-batch"},
	{PreCompact, "pre-compact"},
}

// All returns every event, in the order a session meets them.
func All() []Event {
	out := all
	return out[:]
}

// FromArg returns Claude Code's name of the event `ctxls hook arg`
// answers; ok is false for an argument that names no event.
func FromArg(arg string) (name string, ok bool) {
	for _, e := range all {
		if e.Arg == arg {
			return e.Name, true
		}
	}
	return "", false
}

// Arg returns the argument of `ctxls hook` for Claude Code's event name,
// or "" for a name ctxls does not answer.
func Arg(name string) string {
	for _, e := range all {
		if e.Name == name {
			return e.Arg
		}
	}
	return ""
}
