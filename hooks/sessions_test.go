package hooks

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/store"
)

// Through the binary: the prompt hook records what it injected, and each
// call of a later PostToolBatch marks the file it names used, with its own
// tool; a file named only as a directory, and the calls of another
// session, mark nothing.
func TestPromptHistoryThroughBinary(t *testing.T) {
	root := testWorkspace(t)
	const sess = "sess-history"
	// The prompt names code in each of three files, so that all three
	// are injected (a distant file leaves the focus).
	out, _ := hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "hook_event_name": "UserPromptSubmit",
		"prompt": "Why does AuthService.Login reject valid passwords from HandleLogin with ErrDenied?"}))
	injected := contextOf(t, "user-prompt-submit", out)
	for _, f := range []string{"auth/auth.go", "auth/handler.go", "auth/errors.go"} {
		if !strings.Contains(injected, f) {
			t.Fatalf("the prompt did not inject %s: %q", f, injected)
		}
	}
	call := func(tool string, in map[string]any) map[string]any {
		return map[string]any{"tool_name": tool, "tool_input": in}
	}
	hook(t, "post-tool-use", input(map[string]any{"session_id": "another", "cwd": root, "tool_name": "Read",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "auth", "auth.go")}}))
	hook(t, "post-tool-batch", input(map[string]any{"session_id": sess, "cwd": root, "hook_event_name": "PostToolBatch", "tool_calls": []any{
		call("Glob", map[string]any{"pattern": "*.go", "path": filepath.Join(root, "auth")}),
		call("Read", map[string]any{"file_path": filepath.Join(root, "auth", "handler.go")}),
		call("Grep", map[string]any{"pattern": "ErrDenied", "path": "auth/errors.go"}),
	}}))

	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	prompts, err := st.SessionPrompts(context.Background(), sess)
	if err != nil || len(prompts) != 1 {
		t.Fatalf("history: %+v, %v", prompts, err)
	}
	want := map[string]string{"auth/auth.go": "", "auth/handler.go": "Read", "auth/errors.go": "Grep"}
	got := map[string]string{}
	for _, in := range prompts[0].Injected {
		if in.Used == nil {
			continue
		}
		if _, ok := got[in.Path]; ok && got[in.Path] != in.UsedBy {
			t.Errorf("%s: entries of one file disagree: %q and %q", in.Path, got[in.Path], in.UsedBy)
		}
		got[in.Path] = in.UsedBy
		if *in.Used != (in.UsedBy != "") {
			t.Errorf("%s: used %v by %q", in.ID, *in.Used, in.UsedBy)
		}
	}
	if len(got) != len(want) {
		t.Errorf("injected files and their use: %v, want %v", got, want)
	}
	for path, by := range want {
		if g, ok := got[path]; !ok || g != by {
			t.Errorf("%s used by %q (recorded %v), want %q", path, g, ok, by)
		}
	}
}
