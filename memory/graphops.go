package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Rename changes a memory's slug: its file (beside the old one), its
// index entry, every graph edge to or from it and every other memory's
// links. The new file is written before the old one is removed, all under
// the scope's lock; on an error before that, nothing changes.
func (s *Store) Rename(ctx context.Context, scope Scope, from, to string) error {
	for _, sl := range []string{from, to} {
		if err := CheckSlug(sl); err != nil {
			return err
		}
	}
	if from == to {
		return fmt.Errorf("rename %s: the new slug is the old one", from)
	}
	err := s.locked(ctx, scope, func(st *scopeState) error {
		now := s.now()
		m, err := st.read(from, now)
		if err != nil {
			return err
		}
		if _, ok := st.index.Memories[to]; ok {
			return fmt.Errorf("%s in the %s scope: %w", to, scope, ErrExists)
		}
		oldPath := m.Path
		m.Path = filepath.Join(filepath.Dir(oldPath), to+".md")
		if _, err := os.Stat(m.Path); err == nil {
			return fmt.Errorf("%s: %w", m.Path, ErrExists)
		}
		m.Slug = to
		m.Links = slices.DeleteFunc(m.Links, func(l string) bool { return l == to })
		if err := Validate(m, now); err != nil {
			return err
		}
		if err := st.save(m); err != nil {
			return err
		}
		if err := os.Remove(oldPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", oldPath, err)
		}
		delete(st.index.Memories, from)
		os.Remove(filepath.Join(st.dir, s.cfg.Embedding.CacheDirectory, from+".json"))
		if st.graph.Rename(from, to) {
			st.graphChanged = true
		}
		for other := range st.index.Memories {
			if other == to {
				continue
			}
			o, err := st.read(other, now)
			if err != nil || !slices.Contains(o.Links, from) {
				continue
			}
			for i, l := range o.Links {
				if l == from {
					o.Links[i] = to
				}
			}
			o.Links = dedup(o.Links)
			if err := st.save(o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.reindex(ctx, scope)
}

// Rename moves every edge of from to to; it reports whether any changed.
func (g *Graph) Rename(from, to string) bool {
	changed := false
	if es, ok := g.Adj[from]; ok {
		g.Adj[to] = append(g.Adj[to], es...)
		delete(g.Adj, from)
		changed = true
	}
	for s, es := range g.Adj {
		for i := range es {
			if es[i].Target == from {
				es[i].Target = to
				changed = true
			}
		}
		g.Adj[s] = es
	}
	for i := range g.nodes {
		if g.nodes[i].ID == from {
			g.nodes[i].ID = to
		}
	}
	return changed
}

// Reach is a memory reached from another through the graph.
type Reach struct {
	Slug  string `json:"slug"`
	Depth int    `json:"depth"`
	// Via is the memory it was reached from, and Label that edge's label.
	Via   string `json:"via"`
	Label string `json:"label"`
}

// Impact lists the memories reachable from slug within maxDepth edges
// (every depth when maxDepth <= 0), nearest first: what a change to slug
// may concern.
func (g *Graph) Impact(slug string, maxDepth int) []Reach {
	seen := map[string]bool{slug: true}
	var out []Reach
	frontier := []string{slug}
	for depth := 1; len(frontier) > 0 && (maxDepth <= 0 || depth <= maxDepth); depth++ {
		var next []string
		for _, s := range frontier {
			es := slices.Clone(g.Adj[s])
			sort.Slice(es, func(a, b int) bool { return es[a].Target < es[b].Target })
			for _, e := range es {
				if seen[e.Target] {
					continue
				}
				seen[e.Target] = true
				out = append(out, Reach{Slug: e.Target, Depth: depth, Via: s, Label: e.Label})
				next = append(next, e.Target)
			}
		}
		frontier = next
	}
	return out
}

// GraphLink is one undirected link of a graph, written in its forward direction.
type GraphLink struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
}

// Links lists each link once (the forward edge of each pair, as graph.json
// stores them in the plugin's format), sorted.
func (g *Graph) Links() []GraphLink {
	var out []GraphLink
	for s, es := range g.Adj {
		for _, e := range es {
			if forward(e.Label, s, e.Target) {
				out = append(out, GraphLink{From: s, To: e.Target, Label: e.Label})
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].From != out[b].From {
			return out[a].From < out[b].From
		}
		if out[a].To != out[b].To {
			return out[a].To < out[b].To
		}
		return out[a].Label < out[b].Label
	})
	return out
}
