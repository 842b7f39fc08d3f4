package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestThinkCLI(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := memctl(t, root, home, "", args...)
		if code != 0 {
			t.Fatalf("memory %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("write", "--type", "gotcha", "--title", "Cache stampede", "--tags", "cache", "--content", "Lock on miss.")
	var d struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(run("think", "create", "How should we cache sessions?", "--json")), &d); err != nil {
		t.Fatal(err)
	}
	run("think", "add", "Redis is fast.")
	run("think", "counter", "Watch gotcha-cache-stampede.")
	run("think", "branch", "Keep it in PostgreSQL.")
	show := run("think", "show")
	for _, want := range []string{"# How should we cache sessions?", "## 2. Counter", "Keep it in PostgreSQL."} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if list := run("think", "list"); !strings.Contains(list, "* "+d.ID) || !strings.Contains(list, "3 thoughts") {
		t.Errorf("list: %s", list)
	}
	var c struct {
		Memory struct {
			Slug string `json:"slug"`
			Type string `json:"type"`
		} `json:"memory"`
	}
	if err := json.Unmarshal([]byte(run("think", "conclude", "Redis with a lock on miss.", "--promote", "decision", "--json")), &c); err != nil {
		t.Fatal(err)
	}
	if c.Memory.Type != "decision" {
		t.Fatalf("conclude: %+v", c)
	}
	if out := run("graph", c.Memory.Slug); !strings.Contains(out, "gotcha-cache-stampede") {
		t.Errorf("promoted memory not linked to the referenced gotcha: %s", out)
	}
	// Errors: exit 1 with a message, nothing written.
	for _, args := range [][]string{
		{"think", "add", "no current document"},
		{"think", "use", "../../x"},
		{"think", "delete", "think-missing"},
		{"think", "conclude", "x", "--promote", "opinion"},
	} {
		_, errOut, code := memctl(t, root, home, "", args...)
		if code == 0 || !strings.Contains(errOut, "ctxls:") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	run("think", "delete", d.ID)
	if list := run("think", "list"); !strings.Contains(list, "no thinking documents") {
		t.Errorf("list after delete: %s", list)
	}
}

func TestThinkCallCLI(t *testing.T) {
	root, home, bin := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".claude", "agents"), 0o755)
	os.MkdirAll(filepath.Join(root, ".claude", "output-styles"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude", "agents", "security-expert.md"),
		[]byte("---\nname: security-expert\ndescription: Security review, vulnerabilities, auth\n---\nYou review security.\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".claude", "output-styles", "devils-advocate.md"),
		[]byte("---\nname: Devils-Advocate\ndescription: Challenge every assumption\n---\nArgue the other side.\n"), 0o644)
	// The fake claude prints its arguments' count and echoes the style.
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+filepath.Join(bin, "args")+"\"\ncat >/dev/null\necho 'Token theft via logs.'\n"), 0o755)
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "CLAUDE_SESSION_ID=sess-42"}
	run := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code := memctlEnv(t, root, home, env, "", args...)
		if code != 0 {
			t.Fatalf("memory %v: exit %d: %s", args, code, errOut)
		}
		return out, errOut
	}
	if out, _ := run("think", "catalog"); !strings.Contains(out, "security-expert") || !strings.Contains(out, "Devils-Advocate") {
		t.Errorf("catalog: %s", out)
	}
	run("think", "create", "Session tokens")
	out, _ := run("think", "counter", "What leaks?", "--call", "claude", "--model", "opus", "--agent", "security-expert", "--style", "devils-advocate", "--json")
	var e struct {
		By, Text, Kind string
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if e.By != "model:opus provider:claude [sess-42]" || e.Text != "Token theft via logs." || e.Kind != "counter" {
		t.Errorf("entry %+v", e)
	}
	args, _ := os.ReadFile(filepath.Join(bin, "args"))
	for _, want := range []string{"--agent\nsecurity-expert\n", "--append-system-prompt\nArgue the other side.\n", "--model\nopus\n"} {
		if !strings.Contains(string(args), want) {
			t.Errorf("claude args lack %q: %q", want, args)
		}
	}
	// Hints: on stderr, three times per session, then suppressed; never
	// with --non-interactive.
	shown := 0
	for i := 0; i < 5; i++ {
		out, errOut := run("think", "add", "own thought", "--json")
		if strings.Contains(out, "hint:") {
			t.Fatal("hint on stdout")
		}
		if strings.Contains(errOut, "hint: --call") {
			shown++
		}
	}
	if shown != 3 {
		t.Errorf("hint shown %d times, want 3", shown)
	}
	env2 := append(env, "CLAUDE_SESSION_ID=sess-43")
	if _, errOut, _ := memctlEnv(t, root, home, env2, "", "think", "add", "x", "--non-interactive"); strings.Contains(errOut, "hint:") {
		t.Error("hint with --non-interactive")
	}
	// Refused: undiscovered agent (exit 2), missing CLI (exit 1), nothing written.
	show, _ := run("think", "show", "--json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"think", "add", "x", "--call", "claude", "--agent", "nobody"}, 2, "security-expert"},
		{[]string{"think", "add", "x", "--call", "codex"}, 1, "not installed"},
		{[]string{"think", "add", "x", "--call", "gemini", "--style", "devils-advocate"}, 2, "claude only"},
		{[]string{"think", "add", "x", "--model", "opus"}, 2, "needs --call"},
	} {
		_, errOut, code := memctlEnv(t, root, home, env, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
	if after, _ := run("think", "show", "--json"); after != show {
		t.Error("a refused call changed the document")
	}
}

func TestThinkAutoCLI(t *testing.T) {
	root, home, bin := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".claude", "agents"), 0o755)
	os.MkdirAll(filepath.Join(root, ".claude", "output-styles"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude", "agents", "security-expert.md"),
		[]byte("---\nname: security-expert\ndescription: Security review of authentication tokens\n---\nReview.\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".claude", "output-styles", "devils-advocate.md"),
		[]byte("---\nname: Devils-Advocate\ndescription: Challenge every assumption\n---\nArgue the other side.\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".claude", "output-styles", "architect.md"),
		[]byte("---\nname: Architect\ndescription: Frame the problem\n---\nFrame it.\n"), 0o644)
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+filepath.Join(bin, "args")+"\"\ncat >/dev/null\necho 'An answer.'\n"), 0o755)
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "CLAUDE_SESSION_ID=sess-auto"}
	answer := `{"agent":"security-expert","style":"Architect","model":"haiku","reasoning":"frame the token question"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"response": answer, "done": true})
	}))
	defer srv.Close()
	auto := func(wantStderr, wantArgs string) {
		t.Helper()
		out, errOut, code := memctlEnv(t, root, home, env, "", "think", "counter", "Can leaked auth tokens be replayed?", "--call", "claude", "--auto", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, wantStderr) || strings.Contains(out, "Auto-selected") {
			t.Errorf("stderr %q lacks %q (stdout %q)", errOut, wantStderr, out)
		}
		args, _ := os.ReadFile(filepath.Join(bin, "args"))
		if !strings.Contains(string(args), wantArgs) {
			t.Errorf("claude args %q lack %q", args, wantArgs)
		}
	}
	if _, errOut, code := memctlEnv(t, root, home, env, "", "think", "create", "Session tokens"); code != 0 {
		t.Fatal(errOut)
	}
	// No Ollama configured: heuristics (security → opus, counter → Devils-Advocate).
	auto("Auto-selected (via heuristics - ollama unavailable): --agent security-expert --style Devils-Advocate --model opus", "--model\nopus\n")
	// Ollama configured: its selection.
	os.WriteFile(filepath.Join(root, ".claude", "memory.local.md"), []byte("---\nollama_host: "+srv.URL+"\n---\n"), 0o644)
	auto("Auto-selected (via ollama): --agent security-expert --style Architect --model haiku", "--append-system-prompt\nFrame it.\n")
	// An undiscovered agent from Ollama: rejected, heuristics used.
	answer = `{"agent":"root-kit","model":"haiku","reasoning":"x"}`
	auto(`agent "root-kit" is not discovered`, "--agent\nsecurity-expert\n")
	// --auto is Claude's.
	if _, errOut, code := memctlEnv(t, root, home, env, "", "think", "add", "x", "--call", "gemini", "--auto"); code != 2 {
		t.Errorf("--auto with gemini: %d %s", code, errOut)
	}
}

// TestThinkConcurrentProcesses: two processes adding thoughts to one
// document at once lose nothing; oversized input from stdin is refused.
func TestThinkConcurrentProcesses(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	if _, errOut, code := memctl(t, root, home, "", "think", "create", "race"); code != 0 {
		t.Fatal(errOut)
	}
	const per = 10
	errs := make(chan string, 2*per)
	done := make(chan struct{})
	for w := 0; w < 2; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < per; i++ {
				if _, errOut, code := memctl(t, root, home, "", "think", "add", "thought", "--non-interactive"); code != 0 {
					errs <- errOut
				}
			}
		}()
	}
	<-done
	<-done
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, _, _ := memctl(t, root, home, "", "think", "show", "--json")
	var d struct{ Thoughts []struct{ N int } }
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Thoughts) != 2*per {
		t.Fatalf("%d thoughts (%v), want %d", len(d.Thoughts), err, 2*per)
	}
	big := strings.Repeat("x", 1<<20)
	for _, args := range [][]string{{"think", "add", "-"}, {"think", "create", "-"}, {"think", "conclude", "-"}} {
		if _, errOut, code := memctl(t, root, home, big, args...); code != 1 || !strings.Contains(errOut, "at most") {
			t.Errorf("%v with 1 MB on stdin: exit %d %q", args, code, errOut)
		}
	}
	if after, _, _ := memctl(t, root, home, "", "think", "show", "--json"); after != out {
		t.Error("refused input changed the document")
	}
	if out, _, code := memctl(t, root, home, "from stdin\n", "think", "add", "-", "--json"); code != 0 || !strings.Contains(out, "from stdin") {
		t.Errorf("stdin thought: %d %s", code, out)
	}
}

// TestThinkAutoConfirm: on a terminal the auto-selection is confirmed;
// declining writes nothing and does not run the provider.
func TestThinkAutoConfirm(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	script, err := exec.LookPath("script")
	if bin == "" || err != nil {
		t.Skip("needs CTXLS_BIN and util-linux script for a terminal")
	}
	root, home, tools := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(tools, "claude"), []byte("#!/bin/sh\ntouch \""+filepath.Join(tools, "ran")+"\"\necho answer\n"), 0o755)
	if _, errOut, code := memctl(t, root, home, "", "think", "create", "topic"); code != 0 {
		t.Fatal(errOut)
	}
	for _, c := range []struct {
		answer string
		ran    bool
	}{{"n\n", false}, {"y\n", true}} {
		os.Remove(filepath.Join(tools, "ran"))
		cmd := exec.Command(script, "-qec", bin+" memory think add 'is it secure?' --call claude --auto", "/dev/null")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+tools+":"+os.Getenv("PATH"))
		cmd.Stdin = strings.NewReader(c.answer)
		out, _ := cmd.CombinedOutput()
		_, err := os.Stat(filepath.Join(tools, "ran"))
		if !strings.Contains(string(out), "Proceed? [Y/n]") || (err == nil) != c.ran {
			t.Errorf("answer %q: ran %v, output %q", c.answer, err == nil, out)
		}
		if !c.ran && !strings.Contains(string(out), "declined") {
			t.Errorf("decline not reported: %q", out)
		}
	}
	out, _, _ := memctl(t, root, home, "", "think", "show", "--json")
	if n := strings.Count(out, `"kind": "thought"`); n != 1 {
		t.Errorf("%d thoughts after one decline and one yes: %s", n, out)
	}
}
