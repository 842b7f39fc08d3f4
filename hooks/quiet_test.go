package hooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/store"
)

// Conversation turns, off-topic prompts and bad input get nothing, in a
// fresh session and after code prompts in the same session, whose
// carried-over symbols must not pass the gate for them.
func TestPromptHookQuiet(t *testing.T) {
	root := testWorkspace(t)
	ask := func(sess, prompt string) (string, int) {
		out, code := hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": prompt}))
		return contextOf(t, "user-prompt-submit", out), code
	}
	quiet := []string{
		"ok", "continue", "thanks", "yes please", "yes please continue", "thanks, that looks good",
		"write a haiku about autumn", "how do I configure a Raspberry Pi to use a static IP address",
		"!!!???...", "🙂🙂🙂👍", "今天天气怎么样", "\x00\x01\x02\xff\xfe binary",
		strings.Repeat("lorem ipsum dolor sit amet ", 8000), // 200 KB
	}
	for _, sess := range []string{"fresh", "mid-session"} {
		if sess == "mid-session" {
			for _, p := range []string{"Why does AuthService.Login reject valid passwords?", "how does issueToken build tokens", "where is HandleLogin called"} {
				if c, _ := ask(sess, p); c == "" && strings.HasPrefix(p, "Why") {
					t.Fatalf("code prompt %q got nothing", p)
				}
			}
		}
		for i, p := range quiet {
			id := sess
			if sess == "fresh" {
				id = sess + "-" + string(rune('a'+i))
			}
			c, code := ask(id, p)
			if code != 0 || c != "" {
				t.Errorf("%s: %.40q: exit %d, injected %q", sess, p, code, c)
			}
		}
	}
}

// ctxls doctor's canaries run as probe sessions: nothing of them appears in
// the activity later sessions are given.
func TestProbeSessionsRecordNoActivity(t *testing.T) {
	root := testWorkspace(t)
	for _, sess := range []string{ProbeSessionPrefix + "doctor-1", "real-session"} {
		hook(t, "user-prompt-submit", input(map[string]any{"session_id": sess, "cwd": root, "prompt": "how does issueToken build tokens for " + sess}))
	}
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acts, err := st.RecentActivity(context.Background(), time.Now().Add(-time.Hour), 50)
	if err != nil {
		t.Fatal(err)
	}
	var real bool
	for _, a := range acts {
		if IsProbeSession(a.Session) || strings.Contains(a.Text, ProbeSessionPrefix) {
			t.Errorf("probe activity recorded: %+v", a)
		}
		real = real || a.Session == "real-session"
	}
	if !real {
		t.Error("the real session's prompt was not recorded")
	}
}
