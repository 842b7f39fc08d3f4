package discover

import (
	"context"
	"strings"
	"testing"
	"time"
)

func names(ms []Match) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Item.Name)
	}
	return strings.Join(out, ",")
}

func TestMatchPrompt(t *testing.T) {
	root, home := layout(t)
	res := New(0).Discover(context.Background(), Dirs(root, home), 2*time.Second)
	tests := []struct {
		prompt                        string
		agents, commands, skills, sty string // comma-separated names, "" none; "*" anything non-empty
		memoryThink                   string
	}{
		{prompt: "check the memory graph health and integrity", agents: "*", commands: "^memory:check-health", skills: "*"},
		{prompt: "add an invoices table to the billing schema", agents: "curator"},
		{prompt: "write and apply a database migration for users", commands: "db:migrate"},
		{prompt: "remember this decision and record the gotcha", skills: "memory"},
		{prompt: "ask the curator", agents: "curator"},
		{prompt: "write a short poem about autumn leaves"},
		{prompt: "", agents: ""},
		{prompt: "memory think add 'cache invalidation strategy'", agents: "*", skills: "*", sty: "*", memoryThink: "add"},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			c := MatchPrompt(res.Items, tt.prompt, 2, 5)
			check := func(kind, got, want string) {
				if first, ok := strings.CutPrefix(want, "^"); ok {
					if !strings.HasPrefix(got+",", first+",") {
						t.Errorf("%s = %q, want %q first", kind, got, first)
					}
					return
				}
				if want == "*" && got == "" || want != "*" && got != want {
					t.Errorf("%s = %q, want %q", kind, got, want)
				}
			}
			check("agents", names(c.Agents), tt.agents)
			if tt.commands != "" || tt.memoryThink == "" {
				check("commands", names(c.Commands), tt.commands)
			}
			check("skills", names(c.Skills), tt.skills)
			check("styles", names(c.Styles), tt.sty)
			if c.MemoryThink != tt.memoryThink {
				t.Errorf("memory think %q, want %q", c.MemoryThink, tt.memoryThink)
			}
			for _, ms := range [][]Match{c.Agents, c.Commands, c.Skills, c.Styles} {
				if len(ms) > 5 {
					t.Errorf("%d matches of one type", len(ms))
				}
				for i := 1; i < len(ms); i++ {
					if ms[i].Score > ms[i-1].Score {
						t.Errorf("not sorted by score: %s", names(ms))
					}
				}
			}
		})
	}
}

func TestFormat(t *testing.T) {
	items := []Item{
		{Name: "curator", Description: "Automated memory health monitoring. Second sentence.", Keywords: []string{"memory", "health"}, Type: Agent},
		{Name: "check-health", Description: "Check memory system health", Keywords: []string{"check", "memory", "health"}, Type: Command},
		{Name: "Devils-Advocate", Description: "Argues against proposals", Keywords: []string{"argues", "proposals"}, Type: OutputStyle},
	}
	got := Format(MatchPrompt(items, "memory health please", 2, 5))
	want := "Relevant agents: curator (Automated memory health monitoring)\nRelevant commands: /check-health (Check memory system health)"
	if got != want {
		t.Errorf("Format =\n%s\nwant\n%s", got, want)
	}
	if got := Format(MatchPrompt(items, "unrelated poem", 2, 5)); got != "" {
		t.Errorf("no match formatted %q", got)
	}
	mt := Format(MatchPrompt(items, "memory think counter \"this approach\"", 2, 5))
	for _, want := range []string{
		"💡 Memory Think Suggestions:",
		"Consider using --agent <name> for domain expertise or --style <name> for perspective.",
		"Suggested Agents:\n- memory think counter 'this approach' --agent curator",
		"Suggested Styles:\n- memory think counter 'this approach' --style Devils-Advocate",
	} {
		if !strings.Contains(mt, want) {
			t.Errorf("memory think suggestions lack %q:\n%s", want, mt)
		}
	}
}
