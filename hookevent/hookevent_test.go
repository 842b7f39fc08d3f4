package hookevent

import "testing"

func TestNamesAndArgs(t *testing.T) {
	// What Claude Code sends and what installed settings run: pinned.
	pins := map[string]string{UserPromptSubmit: "user-prompt-submit", PostToolBatch: "post-tool-batch", PreCompact: "pre-compact"}
	for name, arg := range pins {
		if got := Arg(name); got != arg {
			t.Errorf("Arg(%q) = %q, want %q", name, got, arg)
		}
	}
	if len(All()) != 6 || All()[0].Name != SessionStart {
		t.Errorf("All() = %v, want six events from SessionStart", All())
	}
	seen := map[string]bool{}
	for _, e := range All() {
		if got, ok := FromArg(e.Arg); !ok || got != e.Name || Arg(e.Name) != e.Arg {
			t.Errorf("%+v: FromArg and Arg do not round-trip", e)
		}
		if seen[e.Name] || seen[e.Arg] {
			t.Errorf("%+v named twice", e)
		}
		seen[e.Name], seen[e.Arg] = true, true
	}
	for _, bad := range []string{"", "SessionStart", "stop", "Session-Start"} {
		if name, ok := FromArg(bad); ok {
			t.Errorf("FromArg(%q) = %q, want no event", bad, name)
		}
	}
	if Arg("Stop") != "" {
		t.Error(`Arg("Stop") names an event ctxls does not answer`)
	}
	// All returns a copy: a caller cannot change the table.
	All()[0].Arg = "changed"
	if All()[0].Arg != "session-start" {
		t.Error("All() shares its table with callers")
	}
}
