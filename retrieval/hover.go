package retrieval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// HoverTarget is the entity a hover is about: from the editor's buffer
// when the document is open (a fresh signature and doc), matched to its
// index row for the graph.
type HoverTarget struct {
	Path      string // relative to the folder root
	Kind      string
	Name      string
	QName     string
	Line      int
	Signature string
	Doc       string
	// Stored is the entity's index row; nil when the index does not know
	// it (yet), and the hover then has no neighbourhood.
	Stored *store.Entity
}

// Hover renders the hover of t as markdown, in blocks: the signature, doc
// and definition; the memories attached to its file (attached, as
// memory.Store.Attached gives them); where it is used; what it uses and
// where it is declared. A block with nothing to say is left out.
func Hover(ctx context.Context, st *store.Store, t *HoverTarget, attached []memory.Hit) string {
	var parts []string
	for _, txt := range []string{hoverHeader(t), hoverMemoryList(attached), hoverUsedBy(ctx, st, t), hoverRelated(ctx, st, t)} {
		if txt != "" {
			parts = append(parts, txt)
		}
	}
	return strings.Join(parts, "\n\n")
}

// hoverHeader is the signature, the doc and where the entity is defined.
func hoverHeader(t *HoverTarget) string {
	var b strings.Builder
	if t.Signature != "" {
		b.WriteString(fenced(t.Path, t.Signature))
	}
	if t.Doc != "" {
		b.WriteString("\n" + t.Doc + "\n")
	}
	fmt.Fprintf(&b, "\n*%s* `%s` — defined in `%s:%d`", t.Kind, t.QName, t.Path, t.Line)
	return strings.TrimSpace(b.String())
}

// hoverUsedBy lists where the entity is used: callers and users of a type.
func hoverUsedBy(ctx context.Context, st *store.Store, t *HoverTarget) string {
	if t.Stored == nil {
		return ""
	}
	edges, err := st.EdgesTo(ctx, []int64{t.Stored.ID}, hoverEdges)
	if err != nil || len(edges) == 0 {
		return ""
	}
	users, total, err := neighbours(ctx, st, edges, edgeSrc, hoverUsers)
	list := ""
	if err == nil {
		list = entityList(users, total, hoverUsers)
	}
	return "**Used by** (" + fmt.Sprint(total) + "): " + list
}

// hoverRelated lists what the entity calls or references, and its container.
func hoverRelated(ctx context.Context, st *store.Store, t *HoverTarget) string {
	if t.Stored == nil {
		return ""
	}
	var parts []string
	if t.Stored.ParentID != 0 {
		if m, err := st.EntitiesByID(ctx, []int64{t.Stored.ParentID}); err == nil {
			if p, ok := m[t.Stored.ParentID]; ok && p.Kind != "file" {
				parts = append(parts, fmt.Sprintf("in %s `%s`", p.Kind, p.QName))
			}
		}
	}
	edges, err := st.EdgesFrom(ctx, []int64{t.Stored.ID}, hoverEdges)
	if err == nil && len(edges) > 0 {
		list := ""
		if uses, total, err := neighbours(ctx, st, edges, edgeDst, hoverUses); err == nil {
			list = entityList(uses, total, hoverUses)
		}
		parts = append(parts, "uses "+list)
	}
	if len(parts) == 0 {
		return ""
	}
	return "**Related:** " + strings.Join(parts, "; ")
}

// entityList names entities as `qname` (path:line) and says how many more
// of total there are beyond the limit listed.
func entityList(ents []store.Entity, total, limit int) string {
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, fmt.Sprintf("`%s` (%s:%d)", e.QName, e.Path, e.StartLine))
	}
	out := strings.Join(names, ", ")
	if more := total - min(total, limit); more > 0 {
		out += fmt.Sprintf(", and %d more", more)
	}
	return out
}

// hoverMemoryList lists the memories attached to the hovered entity's
// file: gotchas first (by severity), one line each.
func hoverMemoryList(hits []memory.Hit) string {
	if len(hits) == 0 {
		return ""
	}
	hits = append([]memory.Hit(nil), hits...)
	sort.SliceStable(hits, func(i, j int) bool {
		gi, gj := hits[i].Type == memory.Gotcha, hits[j].Type == memory.Gotcha
		if gi != gj {
			return gi
		}
		if gi && severityRank(hits[i].Severity) != severityRank(hits[j].Severity) {
			return severityRank(hits[i].Severity) > severityRank(hits[j].Severity)
		}
		return hits[i].Relevance > hits[j].Relevance
	})
	var b strings.Builder
	fmt.Fprintf(&b, "**Memories** (%d):", len(hits))
	for i, h := range hits {
		if i == hoverMemories {
			fmt.Fprintf(&b, "\n- … %d more: `ctxls memory list`", len(hits)-i)
			break
		}
		label := string(h.Type)
		if h.Type == memory.Gotcha {
			label = "⚠ gotcha"
			if h.Severity != "" {
				label += " (" + h.Severity + ")"
			}
		}
		fmt.Fprintf(&b, "\n- %s: %s `%s`", label, oneLine(h.Title, 120), h.Slug)
	}
	return b.String()
}

func severityRank(s string) int {
	switch s {
	case "critical":
		return 4
	case "high":
		return 3
	case "medium":
		return 2
	case "low":
		return 1
	}
	return 0
}
