package inject

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/memory"
)

// Request is what a tool call offers to match memories against.
type Request struct {
	// Tool is the tool's name (Read, Edit, Write, Bash, ...).
	Tool string
	// Paths are the workspace files the call touches (slash-separated,
	// relative to the root).
	Paths []string
	// Text is the tool's input worth matching (a command, a pattern).
	Text string
}

// Memory is a memory chosen for injection.
type Memory struct {
	memory.Summary
	// Score is the relevance in [0,1].
	Score   float64
	Excerpt string
}

// Result is what Select chose.
type Result struct {
	Memories []Memory
	// DedupHits counts memories skipped because the session already has
	// them.
	DedupHits int
}

// lexicalWeight scales word overlap below an explicit attachment: a memory
// its author attached to a file outranks one that merely shares its words.
const lexicalWeight = 0.85

// maxQueryText bounds the tool input analyzed for matching.
const maxQueryText = 2000

// Select scores memories against a tool call and keeps, per enabled type,
// those at or above the type's effective threshold that the session has not
// seen (seen reports that, by scope/slug key), at most the type's limit,
// then at most MaxTotal in all, gotchas first, then decisions, then
// learnings, each by score.
//
// A memory's score is the highest of: 1 when one of its files is a touched
// path, 0.9 when one of its globs matches one, and its lexical relevance
// (the IDF-weighted share of the call's terms it contains, scaled by 0.85)
// for the query made of the touched paths and the tool input.
func Select(ctx context.Context, ms *memory.Store, cfg Config, req Request, seen func(key string) bool) (Result, error) {
	var res Result
	var types []memory.Type
	for _, t := range Injectable {
		if cfg.TypeEnabled(t) {
			types = append(types, t)
		}
	}
	if len(types) == 0 || len(req.Paths) == 0 && strings.TrimSpace(req.Text) == "" {
		return res, nil
	}
	best := map[string]memory.Hit{}
	keep := func(h memory.Hit) {
		if !slices.Contains(types, h.Type) {
			return
		}
		k := Key(h.Summary)
		if old, ok := best[k]; !ok || h.Relevance > old.Relevance {
			best[k] = h
		}
	}
	var q strings.Builder
	for _, p := range req.Paths {
		hits, err := ms.Attached(ctx, p)
		if err != nil {
			return res, err
		}
		for _, h := range hits {
			keep(h)
		}
		q.WriteString(strings.TrimSuffix(p, path.Ext(p)))
		q.WriteByte(' ')
	}
	text := req.Text
	if len(text) > maxQueryText {
		text = text[:maxQueryText]
	}
	q.WriteString(text)
	hits, err := ms.Search(ctx, memory.Query{Text: q.String(), Types: types, Limit: 50})
	if err != nil {
		return res, err
	}
	for _, h := range hits {
		h.Relevance *= lexicalWeight
		keep(h)
	}
	byType := map[memory.Type][]memory.Hit{}
	for _, h := range best {
		if h.Relevance < cfg.EffectiveThreshold(h.Type, req.Tool) {
			continue
		}
		byType[h.Type] = append(byType[h.Type], h)
	}
	for _, t := range types {
		list := byType[t]
		sort.Slice(list, func(a, b int) bool {
			if list[a].Relevance != list[b].Relevance {
				return list[a].Relevance > list[b].Relevance
			}
			return list[a].Slug < list[b].Slug
		})
		n := 0
		for _, h := range list {
			if n >= cfg.Types[t].Limit || len(res.Memories) >= MaxTotal {
				break
			}
			if seen != nil && seen(Key(h.Summary)) {
				res.DedupHits++
				continue
			}
			res.Memories = append(res.Memories, Memory{Summary: h.Summary, Score: h.Relevance, Excerpt: excerpt(h.Path)})
			n++
		}
	}
	return res, nil
}

// Key identifies a memory in the session's dedup state.
func Key(s memory.Summary) string { return string(s.Scope) + "/" + s.Slug }

// excerptLen bounds the content shown with an injected memory.
const excerptLen = 400

// excerpt returns the start of a memory's content on one line, headings
// dropped; "" when the file cannot be read.
func excerpt(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	_, body, err := memory.Frontmatter(data)
	if err != nil {
		return ""
	}
	var words []string
	n := 0
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "```") {
			continue
		}
		for _, w := range strings.Fields(line) {
			if n+len(w) > excerptLen {
				return strings.Join(words, " ") + " …"
			}
			words = append(words, w)
			n += len(w) + 1
		}
	}
	return strings.Join(words, " ")
}

// Icons are the seed's type icons.
var Icons = map[memory.Type]string{memory.Gotcha: "🚨", memory.Decision: "📋", memory.Learning: "💡"}

// Format renders one memory the seed's way (icon, bold title, id,
// relevance percentage), followed by the start of its content.
func Format(m Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s **%s** (%s)\n", Icons[m.Type], m.Title, m.Slug)
	fmt.Fprintf(&b, "   Relevance: %.0f%%", m.Score*100)
	if m.Severity != "" {
		fmt.Fprintf(&b, " · severity: %s", m.Severity)
	}
	if m.Excerpt != "" {
		fmt.Fprintf(&b, "\n   %s", m.Excerpt)
	}
	return b.String()
}
