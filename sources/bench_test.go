package sources

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/wstest"
)

// benchSetup is a workspace with a rule of each format and a home with the
// shared fixture's agents, commands, output styles and skill.
func benchSetup(b *testing.B) (root, home string) {
	root, home = b.TempDir(), b.TempDir()
	wstest.Write(b, root, map[string]string{
		".cursor/rules/go.mdc":            "---\nglobs: \"**/*.go\"\n---\nWrap errors.\n",
		".cursor/rules/always.mdc":        "---\nalwaysApply: true\n---\nBritish English.\n",
		".github/copilot-instructions.md": "Table-driven tests.\n",
		".claude/rules/api.md":            "---\npaths: [\"api/**\"]\n---\nValidate input.\n",
		"AGENTS.md":                       "Run make test.\n",
		"api/v1/README.md":                "# v1\n",
	})
	fx, _ := filepath.Abs("../../../shared/fixtures/claude-memory-plugin")
	for dst, src := range map[string]string{"agents": "agents", "commands": "commands", "output-styles": "styles"} {
		entries, err := os.ReadDir(filepath.Join(fx, src))
		if err != nil {
			b.Skipf("fixture not available: %v", err)
		}
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(fx, src, e.Name()))
			wstest.Write(b, home, map[string]string{filepath.ToSlash(filepath.Join(".claude", dst, e.Name())): string(data)})
		}
	}
	return root, home
}

// fileSources are the sources of All that read files, not the index (the
// benchmarks have no store).
func fileSources() []Source {
	var out []Source
	for _, s := range All() {
		switch s.(type) {
		case Code, WorkingSet, Memory:
		default:
			out = append(out, s)
		}
	}
	return out
}

func benchProviders(b *testing.B, req *Event) {
	ps := fileSources()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range ps {
			if _, err := p.Collect(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPrompt is every provider's work for one prompt (what a
// user-prompt-submit hook adds), with the discovery cache warm as in a
// long-lived process.
func BenchmarkPrompt(b *testing.B) {
	root, home := benchSetup(b)
	cfg := config.Default()
	cfg.Sources.Modes = []config.Mode{{Name: "ultrawork", Keywords: []string{"ulw"}, Instruction: "Go on."}}
	benchProviders(b, &Event{Name: hookevent.UserPromptSubmit, Prompt: "check the memory graph health before the api change", Root: root, Home: home,
		Active: []string{"api/v1/users.go"}, Config: cfg})
}

// BenchmarkPromptFirstRun is BenchmarkPrompt with new providers each time
// and no saved discovery cache: every file is parsed.
func BenchmarkPromptFirstRun(b *testing.B) {
	root, home := benchSetup(b)
	benchFresh(b, &Event{Name: hookevent.UserPromptSubmit, Prompt: "check the memory graph health before the api change", Root: root, Home: home, Config: config.Default()})
}

// BenchmarkPromptProcess is what one hook process does: new providers, the
// discovery cache loaded from .ctxls/discovery-cache.json.
func BenchmarkPromptProcess(b *testing.B) {
	root, home := benchSetup(b)
	os.MkdirAll(filepath.Join(root, ".ctxls"), 0o755)
	benchFresh(b, &Event{Name: hookevent.UserPromptSubmit, Prompt: "check the memory graph health before the api change", Root: root, Home: home, Config: config.Default()})
}

func benchFresh(b *testing.B, req *Event) {
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range fileSources() {
			if _, err := p.Collect(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRead is every provider's work after a Read (post-tool-use).
func BenchmarkRead(b *testing.B) {
	root, home := benchSetup(b)
	benchProviders(b, &Event{Name: hookevent.PostToolUse, Tool: "Read", Files: []string{"api/v1/users.go"}, Root: root, Home: home, Config: config.Default()})
}
