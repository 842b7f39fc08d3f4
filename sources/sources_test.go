package sources

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/wstest"
)

// ids returns the entries' source:id keys.
func ids(es []collect.Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key())
	}
	return strings.Join(out, " ")
}

func rulesWorkspace(t *testing.T) (root, home string) {
	root, home = t.TempDir(), t.TempDir()
	wstest.Write(t, root, map[string]string{
		".cursor/rules/go.mdc":         "---\ndescription: Go style\nglobs: \"**/*.go\"\n---\nWrap errors with %w.\n",
		".cursor/rules/always.mdc":     "---\nalwaysApply: true\n---\nBritish English.\n",
		".cursor/rules/migrations.mdc": "---\ndescription: Database migrations and schema changes\n---\nNever edit an applied migration.\n",
		".cursor/rules/broken.mdc":     "---\nglobs: [\n  bad: x\n---\nBroken.\n",
		".claude/rules/api.md":         "---\npaths: [\"api/**\"]\n---\nAPI handlers validate input.\n",
	})
	wstest.Write(t, home, map[string]string{".claude/rules/tests.md": "---\npaths: \"**/*_test.go\"\n---\nTests call t.Helper.\n"})
	return root, home
}

func TestRulesInjector(t *testing.T) {
	root, home := rulesWorkspace(t)
	tests := []struct {
		name string
		req  *Event
		want string
	}{
		{"session start: always-apply and the described list",
			&Event{Name: hookevent.SessionStart, Start: "startup"},
			"rules-injector:.cursor/rules/always.mdc rules-injector:described"},
		{"after compaction: always-apply again, and rules of the working set",
			&Event{Name: hookevent.SessionStart, Start: "compact", Active: []string{"api/users.go"}},
			"rules-injector:.claude/rules/api.md rules-injector:.cursor/rules/always.mdc rules-injector:.cursor/rules/go.mdc rules-injector:described"},
		{"pre-compact registers the always-apply rules for the next injection",
			&Event{Name: hookevent.PreCompact},
			"rules-injector:.cursor/rules/always.mdc"},
		{"edit of a Go file", &Event{Name: hookevent.PreToolUse, Tool: "Edit", Files: []string{"pkg/a.go"}},
			"rules-injector:.cursor/rules/go.mdc"},
		{"edit of a Markdown file", &Event{Name: hookevent.PreToolUse, Tool: "Edit", Files: []string{"docs/a.md"}}, ""},
		{"write of a Go test, user rule too", &Event{Name: hookevent.PreToolUse, Tool: "Write", Files: []string{"pkg/a_test.go"}},
			"rules-injector:~/.claude/rules/tests.md rules-injector:.cursor/rules/go.mdc"},
		{"pre-tool-use of a Read is not an edit", &Event{Name: hookevent.PreToolUse, Tool: "Read", Files: []string{"pkg/a.go"}}, ""},
		{"read of an API file", &Event{Name: hookevent.PostToolUse, Tool: "Read", Files: []string{"api/v1/h.go"}},
			"rules-injector:.claude/rules/api.md rules-injector:.cursor/rules/go.mdc"},
		{"prompt with an active Go file", &Event{Name: hookevent.UserPromptSubmit, Prompt: "tidy this", Active: []string{"x/y.go"}},
			"rules-injector:.cursor/rules/go.mdc"},
		{"prompt fitting a description", &Event{Name: hookevent.UserPromptSubmit, Prompt: "write a migration that changes the users schema"},
			"rules-injector:.cursor/rules/migrations.mdc"},
		{"prompt fitting nothing", &Event{Name: hookevent.UserPromptSubmit, Prompt: "hello there"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Root, req.Home, req.Config = root, home, config.Default()
			es, err := RulesInjector{}.Collect(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(es); got != tt.want {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
			for _, e := range es {
				if e.Priority != collect.Normal || strings.Contains(e.Content, "Broken.") {
					t.Errorf("entry %s: priority %v content %q", e.Key(), e.Priority, e.Content)
				}
			}
		})
	}
	// Disabled: nothing.
	cfg := config.Default()
	cfg.Sources.Rules.Enabled = false
	if es, _ := (RulesInjector{}).Collect(context.Background(), &Event{Name: hookevent.SessionStart, Root: root, Config: cfg}); len(es) != 0 {
		t.Errorf("disabled injector gave %s", ids(es))
	}
}

func TestRuleEntryText(t *testing.T) {
	root, home := rulesWorkspace(t)
	es, _ := RulesInjector{}.Collect(context.Background(), &Event{Name: hookevent.PreToolUse, Tool: "Edit", Files: []string{"pkg/a.go"}, Root: root, Home: home, Config: config.Default()})
	want := "Rule .cursor/rules/go.mdc (applies to **/*.go; pkg/a.go matches **/*.go):\nWrap errors with %w."
	if len(es) != 1 || es[0].Content != want {
		t.Fatalf("entries %+v, want content %q", es, want)
	}
	es, _ = RulesInjector{}.Collect(context.Background(), &Event{Name: hookevent.SessionStart, Root: root, Config: config.Default()})
	if len(es) != 2 || es[1].Content != "Rules that apply when their description fits (read the file when it does):\n- .cursor/rules/migrations.mdc: Database migrations and schema changes" {
		t.Fatalf("described list %+v", es)
	}
}

func TestDirectorySources(t *testing.T) {
	root := t.TempDir()
	long := "# Billing\n\n" + strings.Repeat("Invoices are immutable once sent. ", 100)
	wstest.Write(t, root, map[string]string{
		"AGENTS.md":                  "Run make test.\n",
		"services/AGENTS.md":         "Services talk over gRPC only.\n",
		"services/billing/README.md": long,
		"services/billing/inv.go":    "package billing\n",
		"services/auth/login.go":     "package auth\n",
		"docs/guide.md":              "guide\n",
	})
	cfg := config.Default()
	tests := []struct {
		name string
		p    Source
		req  *Event
		want string
	}{
		{"agents: nearest above the file", DirectoryAgents{}, &Event{Name: hookevent.PostToolUse, Tool: "Read", Files: []string{"services/billing/inv.go"}}, "directory-agents:services/AGENTS.md"},
		{"agents: up to the root", DirectoryAgents{}, &Event{Name: hookevent.PreToolUse, Tool: "Edit", Files: []string{"docs/guide.md"}}, "directory-agents:AGENTS.md"},
		{"agents: two files, two directories, one entry each", DirectoryAgents{}, &Event{Name: hookevent.PostToolBatch, Files: []string{"services/auth/login.go", "services/billing/inv.go", "docs/guide.md"}}, "directory-agents:services/AGENTS.md directory-agents:AGENTS.md"},
		{"agents: the workspace's at session start", DirectoryAgents{}, &Event{Name: hookevent.SessionStart}, "directory-agents:AGENTS.md"},
		{"agents: not before a Read", DirectoryAgents{}, &Event{Name: hookevent.PreToolUse, Tool: "Read", Files: []string{"docs/guide.md"}}, ""},
		{"agents: not for a prompt", DirectoryAgents{}, &Event{Name: hookevent.UserPromptSubmit, Prompt: "x"}, ""},
		{"readme: the file's directory", DirectoryReadme{}, &Event{Name: hookevent.PostToolUse, Tool: "Read", Files: []string{"services/billing/inv.go"}}, "directory-readme:services/billing/README.md"},
		{"readme: none in the directory", DirectoryReadme{}, &Event{Name: hookevent.PostToolUse, Tool: "Read", Files: []string{"services/auth/login.go"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Root, req.Config = root, cfg
			es, err := tt.p.Collect(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(es); got != tt.want {
				t.Errorf("entries %q, want %q", got, tt.want)
			}
		})
	}
	es, _ := DirectoryReadme{}.Collect(context.Background(), &Event{Name: hookevent.PostToolUse, Files: []string{"services/billing/inv.go"}, Root: root, Config: cfg})
	if len(es) != 1 || es[0].Priority != collect.Low || len(es[0].Content) > cfg.Sources.Readme.MaxChars+200 ||
		!strings.Contains(es[0].Content, "trimmed; the whole file is services/billing/README.md") {
		t.Fatalf("readme entry: %+v", es)
	}
	es, _ = DirectoryAgents{}.Collect(context.Background(), &Event{Name: hookevent.PostToolUse, Files: []string{"services/billing/inv.go"}, Root: root, Config: cfg})
	if len(es) != 1 || es[0].Content != "Instructions for agents in services/ (services/AGENTS.md):\nServices talk over gRPC only." || es[0].Priority != collect.Normal {
		t.Fatalf("agents entry: %+v", es)
	}
}

func TestMatchModes(t *testing.T) {
	modes := []config.Mode{
		{Name: "ultrawork", Keywords: []string{"ultrawork", "ulw"}, Instruction: "Keep going until every task is done."},
		{Name: "analyze", Pattern: `(?i)\banaly[sz]e\b`, Instruction: "Gather evidence first."},
		{Name: "c++", Keywords: []string{"c++"}, Instruction: "Modern C++."},
	}
	tests := []struct {
		prompt, want string
	}{
		{"ultrawork: fix the flaky test", "ultrawork"},
		{"ULW please", "ultrawork"},
		{"ultraworking is not a keyword", ""},
		{"analyse the crash then ultrawork", "ultrawork analyze"},
		{"Analyze why", "analyze"},
		{"port this to c++", "c++"},
		{"Port this to C++!", "c++"},
		{"(ulw) now", "ultrawork"},
		{"déjà ulw", "ultrawork"},
		{"ulw_mode and xulw and ulw2 and ulwé are other words", ""},
		{"ulwx ulw", "ultrawork"},
		{"nothing here", ""},
		{"", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range MatchModes(modes, tt.prompt) {
			got = append(got, m.Name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%q → %v, want %q", tt.prompt, got, tt.want)
		}
	}
	cfg := config.Default()
	cfg.Sources.Modes = modes
	req := &Event{Name: hookevent.UserPromptSubmit, Prompt: "ulw: ship it", Config: cfg}
	a, _ := KeywordDetector{}.Collect(context.Background(), req)
	b, _ := KeywordDetector{}.Collect(context.Background(), req)
	if len(a) != 1 || a[0].Priority != collect.High || a[0].Content != "Mode \"ultrawork\" (the prompt says \"ulw\"):\nKeep going until every task is done." {
		t.Fatalf("entries %+v", a)
	}
	if len(b) != 1 || a[0].ID == b[0].ID {
		t.Errorf("two prompts share the key %s: the second would be deduplicated away", a[0].ID)
	}
	if es, _ := (KeywordDetector{}).Collect(context.Background(), &Event{Name: hookevent.PostToolUse, Prompt: "ulw", Config: cfg}); len(es) != 0 {
		t.Errorf("mode injected outside a prompt")
	}
}

func TestDiscoverySource(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	wstest.Write(t, home, map[string]string{
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews pull requests for security issues\n---\n",
	})
	wstest.Write(t, root, map[string]string{".ctxls/keep": ""})
	cfg := config.Default()
	req := &Event{Name: hookevent.UserPromptSubmit, Prompt: "review my pull request", Root: root, Home: home, Config: cfg}
	es, err := (&Discovery{}).Collect(context.Background(), req)
	if err != nil || len(es) != 1 || es[0].Content != "Relevant agents: reviewer (Reviews pull requests for security issues)" || es[0].Priority != collect.Low {
		t.Fatalf("entries %+v, %v", es, err)
	}
	// The parsed items were saved for the next hook process.
	if _, err := os.Stat(filepath.Join(root, ".ctxls", "discovery-cache.json")); err != nil {
		t.Errorf("no discovery cache file: %v", err)
	}
	// Not for other events; not when disabled (and the report says why).
	if es, _ := (&Discovery{}).Collect(context.Background(), &Event{Name: hookevent.PostToolUse, Prompt: "review", Root: root, Home: home, Config: cfg}); len(es) != 0 {
		t.Errorf("discovery outside a prompt: %+v", es)
	}
	cfg.Sources.Discovery.Enabled = false
	req.Config = cfg
	if es, _ := (&Discovery{}).Collect(context.Background(), req); len(es) != 0 {
		t.Errorf("disabled discovery gave %+v", es)
	}
	if rep := Explain(context.Background(), req); rep.Discovery.SkipReason != "disabled" {
		t.Errorf("skip reason %q, want disabled", rep.Discovery.SkipReason)
	}
}

// An AGENTS.md or README linked to a file outside the workspace is neither
// found nor read; one linked inside is.
func TestDirectoryFilesInsideWorkspace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	wstest.Write(t, outside, map[string]string{"secret.md": "AWS_SECRET_ACCESS_KEY=zqxfakesecret\n"})
	wstest.Write(t, root, map[string]string{"docs/guide.md": "Inside guide.\n", "in/x.go": "package in\n", "out/x.go": "package out\n"})
	for link, target := range map[string]string{
		"out/AGENTS.md": filepath.Join(outside, "secret.md"),
		"out/README.md": "../../outside/secret.md",
		"in/AGENTS.md":  "../docs/guide.md",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		dir, agents, readme string
	}{
		{"out", "", ""}, // the root has neither
		{"in", "in/AGENTS.md", ""},
	}
	for _, tt := range tests {
		agents, _ := NearestAgents(root, tt.dir)
		readme, _ := DirReadme(root, tt.dir)
		if agents != tt.agents || readme != tt.readme {
			t.Errorf("%s: AGENTS %q README %q, want %q %q", tt.dir, agents, readme, tt.agents, tt.readme)
		}
	}
	for _, rel := range []string{"out/AGENTS.md", "out/README.md"} {
		if text, ok := ReadTrimmed(root, rel, 1000); ok {
			t.Errorf("ReadTrimmed(%s) = %q", rel, text)
		}
	}
	if text, ok := ReadTrimmed(root, "in/AGENTS.md", 1000); !ok || text != "Inside guide." {
		t.Errorf("ReadTrimmed(in/AGENTS.md) = %q, %v", text, ok)
	}
}
