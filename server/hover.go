package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

const (
	maxHoverUsers   = 10
	maxHoverRelated = 8
)

// hoverTarget is the entity a hover is about: from the overlay when the
// document is open (fresh signature and doc), matched to its index row for
// the graph.
type hoverTarget struct {
	path      string // relative to the folder root
	kind      string
	name      string
	qname     string
	line      int
	signature string
	doc       string
	stored    *store.Entity // nil when the index does not know it (yet)
}

// hoverPart renders one block of a hover; "" leaves it out. Adding a block
// (memories attached to the file, gotchas) is adding one function to
// hoverParts.
type hoverPart func(ctx context.Context, f *folder, t *hoverTarget) string

func (s *Server) hoverParts() []hoverPart {
	return []hoverPart{hoverHeader, hoverMemories, hoverUsedBy, hoverRelated}
}

func (s *Server) hover(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	abs := pathOf(string(p.TextDocument.URI))
	f, rel := s.folderFor(abs)
	if f == nil {
		return nil, nil
	}
	var text []byte
	var local *symbols.File
	if d := s.doc(p.TextDocument.URI); d != nil {
		text, local = d.Text, d.Syms
	} else if data, err := readSmallFile(f.root, abs, maxScanned); err == nil {
		text = data
	} else {
		return nil, nil
	}
	if workspace.InDir(rel) {
		// The auto-context (or its preview): a word in it is looked up in
		// the index, never among the preview's own headings.
		local = nil
	}
	word, line := wordAt(text, p.Position)
	if word == "" {
		return nil, nil
	}
	t, err := s.resolveHover(ctx, f, rel, word, line, local)
	if err != nil || t == nil {
		return nil, err
	}
	if !workspace.InDir(rel) {
		f.eng.Record(engine.Activity{Type: engine.SymbolHover, Path: rel, Symbol: word, Line: line})
	}
	var parts []string
	for _, part := range s.hoverParts() {
		if txt := part(ctx, f, t); txt != "" {
			parts = append(parts, txt)
		}
	}
	return protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: strings.Join(parts, "\n\n")}}, nil
}

// resolveHover finds the entity named word: a declaration in the open
// buffer first (the one on this line if it is the declaration itself), then
// the index, preferring the same file, then the same directory.
func (s *Server) resolveHover(ctx context.Context, f *folder, rel, word string, line int, local *symbols.File) (*hoverTarget, error) {
	st := f.store()
	if local != nil {
		best := -1
		for i, e := range local.Entities {
			if e.Kind == symbols.KindFile || e.Name != word {
				continue
			}
			if best < 0 || e.StartLine == line {
				best = i
			}
		}
		if best >= 0 {
			e := local.Entities[best]
			t := &hoverTarget{path: rel, kind: string(e.Kind), name: e.Name, qname: e.QualName, line: e.StartLine, signature: e.Signature, doc: e.Doc}
			stored, ok, err := st.EntityByQName(ctx, rel, string(e.Kind), e.QualName)
			if err != nil {
				return nil, err
			}
			if ok {
				t.stored = &stored
			}
			return t, nil
		}
	}
	ents, err := st.EntitiesByName(ctx, word, 50)
	if err != nil || len(ents) == 0 {
		return nil, err
	}
	best, bestScore := 0, -1
	for i, e := range ents {
		score := 0
		switch {
		case e.Path == rel:
			score = 3
		case path.Dir(e.Path) == path.Dir(rel):
			score = 2
		}
		if e.Name == word {
			score++
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	e := ents[best]
	return &hoverTarget{path: e.Path, kind: e.Kind, name: e.Name, qname: e.QName, line: e.StartLine, signature: e.Signature, doc: e.Doc, stored: &e}, nil
}

// hoverHeader is the signature, the doc and where the entity is defined.
func hoverHeader(_ context.Context, _ *folder, t *hoverTarget) string {
	var b strings.Builder
	if t.signature != "" {
		fence := "```"
		for strings.Contains(t.signature, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%s%s\n%s\n%s\n", fence, fenceLang(t.path), t.signature, fence)
	}
	if t.doc != "" {
		b.WriteString("\n" + t.doc + "\n")
	}
	fmt.Fprintf(&b, "\n*%s* `%s` — defined in `%s:%d`", t.kind, t.qname, t.path, t.line)
	return strings.TrimSpace(b.String())
}

// hoverUsedBy lists where the entity is used: callers and users of a type.
func hoverUsedBy(ctx context.Context, f *folder, t *hoverTarget) string {
	if t.stored == nil {
		return ""
	}
	st := f.store()
	edges, err := st.EdgesTo(ctx, []int64{t.stored.ID}, 200)
	if err != nil || len(edges) == 0 {
		return ""
	}
	return "**Used by** (" + fmt.Sprint(countDistinct(edges, func(e store.Edge) int64 { return e.Src })) + "): " +
		entityList(ctx, st, edges, func(e store.Edge) int64 { return e.Src }, maxHoverUsers)
}

// hoverRelated lists what the entity calls or references, and its container.
func hoverRelated(ctx context.Context, f *folder, t *hoverTarget) string {
	if t.stored == nil {
		return ""
	}
	st := f.store()
	var parts []string
	if t.stored.ParentID != 0 {
		if m, err := st.EntitiesByID(ctx, []int64{t.stored.ParentID}); err == nil {
			if p, ok := m[t.stored.ParentID]; ok && p.Kind != string(symbols.KindFile) {
				parts = append(parts, fmt.Sprintf("in %s `%s`", p.Kind, p.QName))
			}
		}
	}
	edges, err := st.EdgesFrom(ctx, []int64{t.stored.ID}, 200)
	if err == nil && len(edges) > 0 {
		parts = append(parts, "uses "+entityList(ctx, st, edges, func(e store.Edge) int64 { return e.Dst }, maxHoverRelated))
	}
	if len(parts) == 0 {
		return ""
	}
	return "**Related:** " + strings.Join(parts, "; ")
}

func countDistinct(edges []store.Edge, pick func(store.Edge) int64) int {
	seen := map[int64]bool{}
	for _, e := range edges {
		seen[pick(e)] = true
	}
	return len(seen)
}

// entityList names up to limit distinct entities an edge list points at, as
// `qname` (path:line), and says how many more there are.
func entityList(ctx context.Context, st *store.Store, edges []store.Edge, pick func(store.Edge) int64, limit int) string {
	var ids []int64
	seen := map[int64]bool{}
	for _, e := range edges {
		if id := pick(e); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	shown := ids
	if len(shown) > limit {
		shown = shown[:limit]
	}
	byID, err := st.EntitiesByID(ctx, shown)
	if err != nil {
		return ""
	}
	var names []string
	for _, id := range shown {
		if e, ok := byID[id]; ok {
			names = append(names, fmt.Sprintf("`%s` (%s:%d)", e.QName, e.Path, e.StartLine))
		}
	}
	out := strings.Join(names, ", ")
	if more := len(ids) - len(shown); more > 0 {
		out += fmt.Sprintf(", and %d more", more)
	}
	return out
}

// fenceLang names a code block's language from a path's extension.
func fenceLang(p string) string {
	if lang, ok := symbols.LanguageFor(p); ok {
		return strings.ToLower(lang.Name)
	}
	return ""
}
