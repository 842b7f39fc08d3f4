package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After a tool call, a file's "Related to" list is sent again only for
// its new members.
func TestRelatedListResentOnlyForNewMembers(t *testing.T) {
	root := testWorkspace(t)
	authPath := filepath.Join(root, "auth", "auth.go")
	read := func() string {
		out, _ := hook(t, "post-tool-use", input(map[string]any{"session_id": "rel", "cwd": root, "hook_event_name": "PostToolUse",
			"tool_name": "Read", "tool_input": map[string]any{"file_path": authPath}, "tool_response": map[string]any{}}))
		return contextOf(t, "post-tool-use", out)
	}
	first := read()
	if !strings.Contains(first, "Related to auth/auth.go") || !strings.Contains(first, "HandleLogin") {
		t.Fatalf("first read: %q", first)
	}
	if again := read(); strings.Contains(again, "Related to auth/auth.go") {
		t.Errorf("the same list was sent again: %q", again)
	}
	// A new caller appears: only it is sent.
	adminPath := filepath.Join(root, "auth", "admin.go")
	os.WriteFile(adminPath, []byte("package auth\n\n// AdminLogin logs an administrator in.\nfunc AdminLogin(svc *AuthService) string {\n\ttok, _ := svc.Login(\"admin\", \"pw\")\n\treturn tok\n}\n"), 0o644)
	hook(t, "post-tool-use", input(map[string]any{"session_id": "rel", "cwd": root, "hook_event_name": "PostToolUse",
		"tool_name": "Write", "tool_input": map[string]any{"file_path": adminPath, "content": "x"}, "tool_response": map[string]any{}}))
	third := read()
	if !strings.Contains(third, "AdminLogin") || strings.Contains(third, "HandleLogin") {
		t.Errorf("after a new caller, want only AdminLogin in the list: %q", third)
	}
}
