package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

// hookIn runs the built binary with HOME set to home, as Claude Code runs
// a hook.
func hookIn(t *testing.T, home, event string, fields map[string]any) string {
	t.Helper()
	cmd := exec.Command(bin(t), "hook", event)
	cmd.Stdin = bytes.NewReader(input(fields))
	cmd.Env = append(os.Environ(), "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s: %v (%s)", event, err, errb.String())
	}
	if errb.Len() > 0 {
		t.Errorf("hook wrote to stderr: %s", errb.String())
	}
	return contextOf(t, event, out.String())
}

// TestContextSourcesThroughBinary drives the rules injector, AGENTS.md,
// README, keyword modes and discovery through real hook processes.
func TestContextSourcesThroughBinary(t *testing.T) {
	root := testWorkspace(t)
	home := t.TempDir()
	wstest.Write(t, root, map[string]string{
		".cursor/rules/go.mdc":     "---\ndescription: Go conventions\nglobs: \"**/*.go\"\nalwaysApply: false\n---\nGOGLOB: wrap errors with fmt.Errorf and %w.\n",
		".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nALWAYSRULE: answer in British English.\n",
		".cursor/rules/broken.mdc": "---\nglobs: [\n  nope: x\n---\nBROKENRULE\n",
		".claude/rules/docs.md":    "---\npaths:\n  - \"docs/**/*.md\"\n---\nDOCSRULE: one sentence per line.\n",
		"docs/guide.md":            "# Guide\n",
		"auth/AGENTS.md":           "AUTHAGENTS: never log passwords.\n",
		"auth/README.md":           "# auth\nAUTHREADME: login and tokens.\n",
		".ctxls/config.yaml":       "sources:\n  modes:\n    - name: ultrawork\n      keywords: [ultrawork, ulw]\n      instruction: ULTRAMODE keep going until every task is done.\n",
		".claude/agents/sqlmig.md": "---\nname: migrator\ndescription: Writes and reviews database schema migrations\n---\nbody\n",
	})
	wstest.Write(t, home, map[string]string{
		".claude/agents/migrator.md":     "---\nname: migrator\ndescription: GLOBAL migrator that the local one overrides\n---\n",
		".claude/output-styles/Terse.md": "---\nname: Terse\ndescription: Short answers without preamble\n---\n",
		".claude/rules/mine.md":          "USERRULE: prefer small functions.\n",
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the service to staging and production\n---\n",
	})
	goFile := filepath.Join(root, "auth", "auth.go")
	mdFile := filepath.Join(root, "docs", "guide.md")

	// Before an edit of a Go file: the glob rule, the nearest AGENTS.md and
	// the directory's README; never the broken rule.
	c := hookIn(t, home, "pre-tool-use", map[string]any{"session_id": "s1", "cwd": root, "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": goFile, "old_string": "x", "new_string": "y"}})
	for _, want := range []string{"GOGLOB", "AUTHAGENTS", "AUTHREADME", "Rule .cursor/rules/go.mdc (applies to **/*.go; auth/auth.go matches **/*.go)"} {
		if !strings.Contains(c, want) {
			t.Errorf("pre-tool-use Edit of a Go file lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "BROKENRULE") || strings.Contains(c, "DOCSRULE") || strings.Contains(c, "ALWAYSRULE") {
		t.Errorf("pre-tool-use Edit of a Go file has a rule that does not apply:\n%s", c)
	}
	// Before an edit of a Markdown file: not the Go rule, the docs rule.
	c = hookIn(t, home, "pre-tool-use", map[string]any{"session_id": "s1", "cwd": root, "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": mdFile, "old_string": "x", "new_string": "y"}})
	if strings.Contains(c, "GOGLOB") || !strings.Contains(c, "DOCSRULE") {
		t.Errorf("pre-tool-use Edit of a Markdown file:\n%s", c)
	}
	// A Read of a Go file in a new session brings the Go rule after the read.
	c = hookIn(t, home, "post-tool-use", map[string]any{"session_id": "s2", "cwd": root, "tool_name": "Read",
		"tool_input": map[string]any{"file_path": goFile}, "tool_response": map[string]any{}})
	if !strings.Contains(c, "GOGLOB") {
		t.Errorf("post-tool-use Read of a Go file lacks the Go rule:\n%s", c)
	}
	// The same read again: already given this session.
	c = hookIn(t, home, "post-tool-use", map[string]any{"session_id": "s2", "cwd": root, "tool_name": "Read",
		"tool_input": map[string]any{"file_path": goFile}, "tool_response": map[string]any{}})
	if strings.Contains(c, "GOGLOB") {
		t.Errorf("the Go rule was injected twice in one session:\n%s", c)
	}

	// Session start: always-apply rules (project and user), the root's
	// AGENTS.md is absent so only rules; not the glob rules of no file.
	c = hookIn(t, home, "session-start", map[string]any{"session_id": "s3", "cwd": root, "source": "startup"})
	if !strings.Contains(c, "ALWAYSRULE") || !strings.Contains(c, "USERRULE") {
		t.Errorf("session-start lacks the always-apply rules:\n%s", c)
	}
	// After compaction they come back (pre-compact clears what was given).
	if c := hookIn(t, home, "session-start", map[string]any{"session_id": "s3", "cwd": root, "source": "resume"}); strings.Contains(c, "ALWAYSRULE") {
		t.Errorf("resume repeated the always-apply rule:\n%s", c)
	}
	hookIn(t, home, "pre-compact", map[string]any{"session_id": "s3", "cwd": root, "trigger": "auto"})
	c = hookIn(t, home, "session-start", map[string]any{"session_id": "s3", "cwd": root, "source": "compact"})
	if !strings.Contains(c, "ALWAYSRULE") {
		t.Errorf("session-start after compaction lacks the always-apply rule:\n%s", c)
	}
	// ...and the glob rule of the working set (auth/auth.go was read).
	if !strings.Contains(c, "GOGLOB") {
		t.Errorf("session-start after compaction lacks the working set's rule:\n%s", c)
	}

	// Keyword mode: on each prompt that asks for it.
	for i := 0; i < 2; i++ {
		c = hookIn(t, home, "user-prompt-submit", map[string]any{"session_id": "s4", "cwd": root, "prompt": "ulw: finish the refactor"})
		if !strings.Contains(c, "ULTRAMODE") {
			t.Errorf("prompt %d: keyword mode not injected:\n%s", i+1, c)
		}
	}
	if c = hookIn(t, home, "user-prompt-submit", map[string]any{"session_id": "s4", "cwd": root, "prompt": "finish the refactor"}); strings.Contains(c, "ULTRAMODE") {
		t.Errorf("mode injected without its keyword:\n%s", c)
	}

	// Discovery: the local agent (overriding the global one) and the
	// user's skill, for a prompt they fit.
	c = hookIn(t, home, "user-prompt-submit", map[string]any{"session_id": "s5", "cwd": root, "prompt": "write a database migration for the schema, then deploy to staging"})
	if !strings.Contains(c, "Relevant agents: migrator (Writes and reviews database schema migrations)") || !strings.Contains(c, "Relevant skills: deploy") {
		t.Errorf("discovery suggestions missing:\n%s", c)
	}
	if strings.Contains(c, "GLOBAL migrator") {
		t.Errorf("the global agent was not overridden by the local one:\n%s", c)
	}
	// Memory think prompts get the suggestions format.
	c = hookIn(t, home, "user-prompt-submit", map[string]any{"session_id": "s5", "cwd": root, "prompt": "memory think add 'short answers'"})
	if !strings.Contains(c, "💡 Memory Think Suggestions:") || !strings.Contains(c, "--style Terse") || !strings.Contains(c, "--agent migrator") {
		t.Errorf("memory think suggestions missing:\n%s", c)
	}

	// The broken rule was skipped with a logged reason.
	logData, _ := os.ReadFile(filepath.Join(root, ".ctxls", "ctxls.log"))
	if !bytes.Contains(logData, []byte("rule skipped")) || !bytes.Contains(logData, []byte("broken.mdc")) {
		t.Errorf("no logged reason for the broken rule")
	}
}
