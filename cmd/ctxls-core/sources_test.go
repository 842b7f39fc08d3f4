package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

func TestSourcesCommand(t *testing.T) {
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	root, home := t.TempDir(), t.TempDir()
	wstest.Write(t, root, map[string]string{
		".cursor/rules/go.mdc":            "---\nglobs: \"**/*.go\"\n---\nGo rule.\n",
		".cursor/rules/bad.mdc":           "---\nglobs: [\n  x: y\n---\nBad.\n",
		".github/copilot-instructions.md": "Always rule.\n",
		"pkg/AGENTS.md":                   "pkg agents\n",
		"pkg/a.go":                        "package pkg\n",
		".ctxls/config.yaml":              "sources:\n  modes:\n    - {name: ultrawork, keywords: [ulw], instruction: Keep going.}\n",
	})
	wstest.Write(t, home, map[string]string{
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews pull requests for security issues\n---\n",
	})
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HOME="+home)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		cmd.Run()
		return o.String() + e.String(), cmd.ProcessState.ExitCode()
	}
	out, code := run("sources", "--json", "--file", "pkg/a.go", "ulw: review this pull request for security")
	if code != 0 {
		t.Fatalf("sources --json: exit %d: %s", code, out)
	}
	var rep struct {
		Rules []struct {
			Path, Kind, Why string
			Applies         bool
		} `json:"rules"`
		SkippedRules []struct{ Path, Reason string } `json:"skipped_rules"`
		Directory    []struct{ File, Agents string } `json:"directory"`
		Modes        []struct {
			Name    string
			Applies bool
		} `json:"modes"`
		Discovery struct {
			Items     []struct{ Name, Scope string } `json:"items"`
			Formatted string                         `json:"formatted"`
		} `json:"discovery"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("sources --json is not JSON: %v\n%s", err, out)
	}
	applies := map[string]bool{}
	for _, r := range rep.Rules {
		applies[r.Path] = r.Applies
	}
	if len(rep.Rules) != 2 || !applies[".cursor/rules/go.mdc"] || !applies[".github/copilot-instructions.md"] {
		t.Errorf("rules: %+v", rep.Rules)
	}
	if len(rep.SkippedRules) != 1 || !strings.Contains(rep.SkippedRules[0].Reason, "malformed") {
		t.Errorf("skipped: %+v", rep.SkippedRules)
	}
	if len(rep.Directory) != 1 || rep.Directory[0].Agents != "pkg/AGENTS.md" {
		t.Errorf("directory: %+v", rep.Directory)
	}
	if len(rep.Modes) != 1 || !rep.Modes[0].Applies {
		t.Errorf("modes: %+v", rep.Modes)
	}
	if len(rep.Discovery.Items) != 1 || rep.Discovery.Items[0].Scope != "global" || !strings.Contains(rep.Discovery.Formatted, "Relevant agents: reviewer") {
		t.Errorf("discovery: %+v", rep.Discovery)
	}
	// The text form says why; a Markdown file does not get the Go rule.
	out, code = run("sources", "--file", "README.md")
	if code != 0 || !strings.Contains(out, "no given file matches **/*.go") || !strings.Contains(out, "skipped .cursor/rules/bad.mdc") {
		t.Errorf("sources text: exit %d\n%s", code, out)
	}
	if _, code := run("sources", "--root", filepath.Join(root, "missing")); code != 2 {
		t.Errorf("missing root: exit %d, want 2", code)
	}
}
