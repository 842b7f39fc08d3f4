package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/store"
)

// hookCall runs `ctxls hook EVENT` with fields as its JSON input, as Claude
// Code does, and returns its output.
func hookCall(t *testing.T, root, event string, fields map[string]any) string {
	t.Helper()
	fields["cwd"] = root
	in, _ := json.Marshal(fields)
	cmd := exec.Command(os.Getenv("CTXLS_BIN"), "hook", event)
	cmd.Dir, cmd.Stdin = root, bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hook %s: %v", event, err)
	}
	return string(out)
}

type sessionsJSON struct {
	Sessions []struct {
		ID            string  `json:"id"`
		Started       string  `json:"started"`
		LastActivity  string  `json:"last_activity"`
		Prompts       int     `json:"prompts"`
		Injections    int     `json:"injections"`
		InjectedFiles int     `json:"injected_files"`
		UsedFiles     int     `json:"used_files"`
		ShareUsed     float64 `json:"share_used"`
	} `json:"sessions"`
}

type showJSON struct {
	Session struct {
		ID            string `json:"id"`
		InjectedFiles int    `json:"injected_files"`
		UsedFiles     int    `json:"used_files"`
	} `json:"session"`
	Prompts []struct {
		Ordinal  int    `json:"ordinal"`
		Text     string `json:"text"`
		Injected []struct {
			Source    string  `json:"source"`
			ID        string  `json:"id"`
			Path      string  `json:"path"`
			Section   string  `json:"section"`
			Relevance float64 `json:"relevance"`
			Used      *bool   `json:"used"`
			UsedBy    string  `json:"used_by"`
		} `json:"injected"`
	} `json:"prompts"`
}

// A real session through the built binary: a prompt injects code, the
// assistant reads one of the injected files, another prompt follows.
// `ctxls sessions` and `sessions show` report what was injected and that
// only the file read was used; probe sessions (doctor's canaries, or any
// ctxls-probe- id) appear nowhere.
func TestSessionsReportInjectionsAndUse(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0") // each hook in its own process, nothing left running
	root := authWorkspace(t)
	if out, _, code := ctxls(t, root, "sessions"); code != 0 || !strings.Contains(out, "no sessions") {
		t.Errorf("sessions before any: %d %q", code, out)
	}

	const sess, prompt = "sess-use", "Why does AuthService.Login reject valid passwords?"
	injected := hookCall(t, root, "user-prompt-submit", map[string]any{"session_id": sess, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
	if !strings.Contains(injected, "auth/auth.go") {
		t.Fatalf("the prompt injected no auth/auth.go: %q", injected)
	}
	hookCall(t, root, "post-tool-use", map[string]any{"session_id": sess, "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "auth", "auth.go")}, "tool_response": map[string]any{}})
	hookCall(t, root, "user-prompt-submit", map[string]any{"session_id": sess, "hook_event_name": "UserPromptSubmit", "prompt": "thanks, write a short poem about autumn"})
	// A probe session, with the same prompt and read: never listed.
	probe := "ctxls-probe-test"
	hookCall(t, root, "user-prompt-submit", map[string]any{"session_id": probe, "prompt": prompt})
	hookCall(t, root, "post-tool-use", map[string]any{"session_id": probe, "tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(root, "auth", "auth.go")}})
	// Doctor's canaries are probe sessions too; its usefulness line is
	// information, whatever else it finds (no hooks are installed here).
	doc, _, _ := ctxls(t, root, "doctor")
	if !regexp.MustCompile(`(?m)^info  usefulness: 1 of \d+ \(\d+ %\) of the injected files were used in the last 1 sessions`).MatchString(doc) {
		t.Errorf("doctor has no usefulness line for 1 session:\n%s", doc)
	}

	out, errOut, code := ctxls(t, root, "sessions", "--json")
	var list sessionsJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("sessions --json: %d %v %q %q", code, err, out, errOut)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].ID != sess {
		t.Fatalf("sessions: want only %s: %+v", sess, list.Sessions)
	}
	s := list.Sessions[0]
	if s.Prompts != 2 || s.Injections == 0 || s.InjectedFiles < 2 || s.UsedFiles != 1 ||
		s.ShareUsed != float64(s.UsedFiles)/float64(s.InjectedFiles) || s.Started == "" || s.LastActivity < s.Started {
		t.Errorf("summary: %+v", s)
	}

	out, errOut, code = ctxls(t, root, "sessions", "show", sess, "--json")
	var show showJSON
	if err := json.Unmarshal([]byte(out), &show); err != nil || code != 0 {
		t.Fatalf("sessions show --json: %d %v %q %q", code, err, out, errOut)
	}
	if len(show.Prompts) != 2 || show.Prompts[0].Text != prompt || show.Prompts[1].Ordinal != 2 || len(show.Prompts[1].Injected) != 0 {
		t.Fatalf("prompts: %+v", show.Prompts)
	}
	files := map[string]bool{} // injected file → used
	for _, in := range show.Prompts[0].Injected {
		if in.Source != "code" || in.Path == "" || !strings.HasPrefix(in.ID, in.Path+"#") || in.Section == "" || in.Relevance <= 0 || in.Used == nil {
			t.Errorf("injection %+v", in)
			continue
		}
		if !strings.Contains(injected, in.Path) {
			t.Errorf("%s is in the history but its file is not in what the hook injected", in.ID)
		}
		files[in.Path] = files[in.Path] || *in.Used
		if *in.Used && in.UsedBy != "Read" {
			t.Errorf("%s used by %q, want Read", in.ID, in.UsedBy)
		}
	}
	unused := 0
	for p, used := range files {
		if used != (p == "auth/auth.go") {
			t.Errorf("%s: used %v", p, used)
		}
		if !used {
			unused++
		}
	}
	if !files["auth/auth.go"] || unused == 0 || len(files) != s.InjectedFiles {
		t.Errorf("injected files %v: want auth/auth.go used and at least one other unused, %d in all", files, s.InjectedFiles)
	}

	out, _, code = ctxls(t, root, "sessions", "show", sess)
	if code != 0 || !strings.Contains(out, "#1 ") || !strings.Contains(out, prompt) ||
		!regexp.MustCompile(`(?m)^  used \(Read\)\s+auth/auth\.go#`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  unused\s+auth/`).MatchString(out) || !strings.Contains(out, "nothing injected") {
		t.Errorf("sessions show:\n%s", out)
	}
	if _, errOut, code := ctxls(t, root, "sessions", "show", probe); code != 1 || !strings.Contains(errOut, "no session") {
		t.Errorf("sessions show of a probe session: %d %q", code, errOut)
	}
	// Nor is a probe's prompt recorded at all.
	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	all, err := st.Sessions(context.Background(), store.SessionFilter{})
	st.Close()
	if err != nil || len(all) != 1 {
		t.Errorf("the history holds %d sessions (%v), want only %s: %+v", len(all), err, sess, all)
	}

	out, _, code = ctxls(t, root, "stats", "--sessions", "--json")
	var u usage
	if err := json.Unmarshal([]byte(out), &u); err != nil || code != 0 {
		t.Fatalf("stats --sessions --json: %d %v %q", code, err, out)
	}
	if u.Sessions != 1 || u.UsedFiles != 1 || u.InjectedFiles != s.InjectedFiles || u.Prompts != 2 {
		t.Errorf("stats --sessions: %+v", u)
	}
	if out, _, code := ctxls(t, root, "stats", "--sessions"); code != 0 || !regexp.MustCompile(`(?m)^used: +1 of \d+ \(\d+ %\)$`).MatchString(out) {
		t.Errorf("stats --sessions: %d\n%s", code, out)
	}
	if _, _, code := ctxls(t, root, "stats", "--limit", "3"); code != 2 {
		t.Errorf("stats --limit without --sessions: exit %d, want 2", code)
	}
}
