package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// `ctxls context --session S TEXT` shows what the prompt hook injects for
// TEXT in session S, and nothing once the session was given it.
func TestContextSessionMatchesHook(t *testing.T) {
	root := authWorkspace(t)
	const prompt = "why does AuthService.Login reject a valid password for the user"
	shown, errOut, code := ctxls(t, root, "context", "--session", "s1", prompt)
	if code != 0 || !strings.Contains(shown, "AuthService.Login") {
		t.Fatalf("context --session: %d %q %q", code, shown, errOut)
	}

	in, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
	hook := exec.Command(os.Getenv("CTXLS_BIN"), "hook", "user-prompt-submit")
	hook.Dir, hook.Stdin = root, bytes.NewReader(in)
	hook.Env = append(os.Environ(), "CTXLS_HOOK_DAEMON=0")
	out, err := hook.Output()
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	if !strings.Contains(o.HookSpecificOutput.AdditionalContext, strings.TrimSpace(shown)) {
		t.Errorf("the hook injected\n%s\nbut context --session showed\n%s", o.HookSpecificOutput.AdditionalContext, shown)
	}

	again, errOut, code := ctxls(t, root, "context", "--session", "s1", prompt)
	if code != 0 || strings.TrimSpace(again) != "" || !strings.Contains(errOut, "already given") {
		t.Errorf("after the hook: %d %q %q", code, again, errOut)
	}
}
