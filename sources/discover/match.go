package discover

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/analyzer"
)

// Match is an item that fits a prompt.
type Match struct {
	Item Item `json:"item"`
	// Matched are the item's keywords (as analyzed terms) found in the
	// prompt.
	Matched []string `json:"matched"`
	// Score counts the matched terms, plus one when the prompt contains
	// every term of the item's name.
	Score int `json:"score"`
}

// Context is what fits one prompt, per type, best first.
type Context struct {
	Agents   []Match `json:"agents,omitempty"`
	Commands []Match `json:"commands,omitempty"`
	Skills   []Match `json:"skills,omitempty"`
	Styles   []Match `json:"outputStyles,omitempty"`
	// MemoryThink is the memory think subcommand the prompt uses ("add",
	// "counter", ...), or "".
	MemoryThink string `json:"memoryThink,omitempty"`
	// Topic is the memory think prompt's quoted topic, if any.
	Topic string `json:"topic,omitempty"`
}

// memoryThinkPattern is the seed's MEMORY_THINK_PATTERN, compiled on first
// use: only prompts are matched against it, and most hook events have none.
var memoryThinkPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)memory\s+think\s+(create|add|counter|branch|conclude)\b(?:\s+["'“‘]([^"'”’]{1,80})["'”’])?`)
})

// MatchPrompt scores items against prompt with the analyzer's stemmed
// terms and keeps, per type, the max best with a score of at least
// minScore. For a memory think prompt, agents and styles are suggested even
// below the floor (the best three by score, then by name), since the
// prompt asks for a perspective.
func MatchPrompt(items []Item, prompt string, minScore, max int) Context {
	var c Context
	if g := memoryThinkPattern().FindStringSubmatch(prompt); g != nil {
		c.MemoryThink, c.Topic = strings.ToLower(g[1]), strings.TrimSpace(g[2])
	}
	terms := map[string]bool{}
	for _, t := range analyzer.Terms(prompt) {
		terms[t] = true
	}
	byType := map[Type][]Match{}
	for _, it := range items {
		m := score(it, terms)
		floor := minScore
		if c.MemoryThink != "" && (it.Type == Agent || it.Type == OutputStyle) {
			floor = 0
		}
		if m.Score >= floor && (m.Score > 0 || floor == 0) {
			byType[it.Type] = append(byType[it.Type], m)
		}
	}
	for t, ms := range byType {
		sort.SliceStable(ms, func(a, b int) bool {
			if ms[a].Score != ms[b].Score {
				return ms[a].Score > ms[b].Score
			}
			return strings.ToLower(ms[a].Item.Name) < strings.ToLower(ms[b].Item.Name)
		})
		n := max
		if c.MemoryThink != "" && (t == Agent || t == OutputStyle) && n > 3 {
			n = 3
		}
		if len(ms) > n {
			ms = ms[:n]
		}
		byType[t] = ms
	}
	c.Agents, c.Commands, c.Skills, c.Styles = byType[Agent], byType[Command], byType[Skill], byType[OutputStyle]
	return c
}

func score(it Item, prompt map[string]bool) Match {
	m := Match{Item: it}
	if it.terms == nil && it.nameTerms == nil {
		it.analyze(analyzer.New()) // an item not made by Parse
	}
	seen := map[string]bool{}
	consider := func(t string) {
		if !seen[t] && prompt[t] {
			seen[t] = true
			m.Matched = append(m.Matched, t)
		}
	}
	for _, t := range it.terms {
		consider(t)
	}
	whole := len(it.nameTerms) > 0
	for _, t := range it.nameTerms {
		consider(t)
		whole = whole && prompt[t]
	}
	m.Score = len(m.Matched)
	if whole {
		m.Score++ // the prompt names the item
	}
	sort.Strings(m.Matched)
	return m
}

// typeLabels name the types in formatted text.
var typeLabels = map[Type]string{Agent: "agents", Command: "commands", Skill: "skills", OutputStyle: "output styles"}

// Format renders c compactly, one line per type ("Relevant agents: …"),
// or the memory think suggestions for a memory think prompt. "" when
// nothing matched.
func Format(c Context) string {
	if c.MemoryThink != "" {
		if s := FormatMemoryThink(c); s != "" {
			return s
		}
	}
	var b strings.Builder
	for _, t := range Types {
		ms := c.of(t)
		if len(ms) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "Relevant %s: ", typeLabels[t])
		for i, m := range ms {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(display(m.Item))
			if d := short(m.Item.Description, 90); d != "" {
				fmt.Fprintf(&b, " (%s)", d)
			}
		}
	}
	return b.String()
}

func (c *Context) of(t Type) []Match {
	switch t {
	case Agent:
		return c.Agents
	case Command:
		return c.Commands
	case Skill:
		return c.Skills
	}
	return c.Styles
}

// display is how an item is invoked: commands with a slash.
func display(it Item) string {
	if it.Type == Command {
		return "/" + it.Name
	}
	return it.Name
}

// FormatMemoryThink renders the seed's memory think suggestions, with
// examples that use the prompt's subcommand and the discovered agents and
// styles; "" when there are neither.
func FormatMemoryThink(c Context) string {
	if len(c.Agents) == 0 && len(c.Styles) == 0 {
		return ""
	}
	topic := c.Topic
	if topic == "" {
		topic = "your thought"
	}
	topic = strings.ReplaceAll(topic, "'", "’")
	var b strings.Builder
	b.WriteString("💡 Memory Think Suggestions:\n\n")
	b.WriteString("Consider using --agent <name> for domain expertise or --style <name> for perspective.\n")
	examples := func(title, flag string, ms []Match) {
		if len(ms) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, m := range ms {
			fmt.Fprintf(&b, "- memory think %s '%s' %s %s", c.MemoryThink, topic, flag, m.Item.Name)
			if d := short(m.Item.Description, 70); d != "" {
				fmt.Fprintf(&b, "  (%s)", d)
			}
			b.WriteByte('\n')
		}
	}
	examples("Suggested Agents", "--agent", c.Agents)
	examples("Suggested Styles", "--style", c.Styles)
	return strings.TrimRight(b.String(), "\n")
}

// short returns the first sentence of s, cut to n bytes.
func short(s string, n int) string {
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) <= n {
		return s
	}
	s = clip(s, n)
	if i := strings.LastIndex(s, " "); i > n/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ,;:") + "…"
}
