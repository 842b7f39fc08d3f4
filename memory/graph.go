package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
)

// Edge is one direction of a link between two memories of a scope.
type Edge struct {
	Target    string `json:"target"`
	Label     string `json:"label"`
	Timestamp string `json:"timestamp"`
}

// DefaultLabel is the label of a link made without one.
const DefaultLabel = "relates-to"

// inverses pairs each directed label with the label of its reverse edge.
// Labels not listed are symmetric, like relates-to and similar-to.
var inverses = map[string]string{
	"implements":                "implemented-by",
	"part-of":                   "contains",
	"builds-on":                 "foundation-for",
	"supersedes":                "superseded-by",
	"extends":                   "extended-by",
	"documents":                 "documented-by",
	"resolves":                  "resolved-by",
	"relates-to":                "relates-to",
	"similar-to":                "similar-to",
	"related-to":                "related-to",
	"auto-linked-by-similarity": "auto-linked-by-similarity",
}

func init() {
	for k, v := range inverses {
		if _, ok := inverses[v]; !ok {
			inverses[v] = k
		}
	}
}

// Inverse returns the label of the reverse edge of label.
func Inverse(label string) string {
	if inv, ok := inverses[label]; ok {
		return inv
	}
	return label
}

// forward reports whether label is written in the forward direction when a
// graph is saved as a list of undirected edges.
func forward(label, source, target string) bool {
	inv := Inverse(label)
	if inv == label {
		return source < target
	}
	_, known := forwardLabels[label]
	return known
}

var forwardLabels = map[string]bool{"implements": true, "part-of": true, "builds-on": true,
	"supersedes": true, "extends": true, "documents": true, "resolves": true}

// Graph formats on disk.
const (
	// FormatAdjacency is the seed's graph.json: slug → edges.
	FormatAdjacency = "adjacency"
	// FormatNodesEdges is the TypeScript plugin's graph.json: {nodes,
	// edges} with one undirected edge per link.
	FormatNodesEdges = "nodes-edges"
)

// Graph is a scope's adjacency list. Every edge is stored in both
// directions, the reverse one with the inverse label.
type Graph struct {
	Adj map[string][]Edge
	// Format is the on-disk format the graph was read in and is saved in.
	Format string
	// Merged counts duplicate edges of the file that were folded into one.
	Merged int
	nodes  []Node
}

// Node is a node of the plugin's graph format.
type Node struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Type  string `json:"type"`
}

// NewGraph returns an empty graph in the seed's format.
func NewGraph() *Graph { return &Graph{Adj: map[string][]Edge{}, Format: FormatAdjacency} }

// Graph errors.
var (
	ErrSelfLink      = errors.New("a memory cannot link to itself")
	ErrDuplicateLink = errors.New("the link already exists")
	ErrNoLink        = errors.New("no such link")
)

// Has reports whether the edge from→to with label exists.
func (g *Graph) Has(from, to, label string) bool {
	return slices.ContainsFunc(g.Adj[from], func(e Edge) bool { return e.Target == to && e.Label == label })
}

// Link adds from→to with label and its reverse edge.
func (g *Graph) Link(from, to, label string, at time.Time) error {
	if label == "" {
		label = DefaultLabel
	}
	if from == to {
		return fmt.Errorf("link %s: %w", from, ErrSelfLink)
	}
	if !ValidSlug(label) || len(label) > MaxLabel {
		return fmt.Errorf("invalid label %q: lowercase and hyphenated, 1-%d characters", label, MaxLabel)
	}
	inv := Inverse(label)
	if g.Has(from, to, label) || g.Has(to, from, inv) {
		return fmt.Errorf("link %s -[%s]-> %s: %w", from, label, to, ErrDuplicateLink)
	}
	ts := FormatTime(at)
	g.Adj[from] = append(g.Adj[from], Edge{Target: to, Label: label, Timestamp: ts})
	g.Adj[to] = append(g.Adj[to], Edge{Target: from, Label: inv, Timestamp: ts})
	return nil
}

// Unlink removes the edges between from and to with label (any label when
// label is "") in both directions.
func (g *Graph) Unlink(from, to, label string) error {
	n := g.remove(from, func(e Edge) bool { return e.Target == to && (label == "" || e.Label == label) })
	n += g.remove(to, func(e Edge) bool { return e.Target == from && (label == "" || e.Label == Inverse(label)) })
	if n == 0 {
		return fmt.Errorf("unlink %s -> %s: %w", from, to, ErrNoLink)
	}
	return nil
}

func (g *Graph) remove(slug string, drop func(Edge) bool) int {
	before := len(g.Adj[slug])
	kept := slices.DeleteFunc(g.Adj[slug], drop)
	if len(kept) == 0 {
		delete(g.Adj, slug)
	} else {
		g.Adj[slug] = kept
	}
	return before - len(kept)
}

// Remove deletes a memory's node and every edge to or from it; it returns
// the other memories that lost an edge.
func (g *Graph) Remove(slug string) []string {
	var touched []string
	for _, e := range g.Adj[slug] {
		if g.remove(e.Target, func(x Edge) bool { return x.Target == slug }) > 0 {
			touched = append(touched, e.Target)
		}
	}
	delete(g.Adj, slug)
	// Reverse edges without a forward one (a damaged file) go too.
	for s := range g.Adj {
		if g.remove(s, func(x Edge) bool { return x.Target == slug }) > 0 && !slices.Contains(touched, s) {
			touched = append(touched, s)
		}
	}
	g.nodes = slices.DeleteFunc(g.nodes, func(n Node) bool { return n.ID == slug })
	sort.Strings(touched)
	return touched
}

// Neighbours returns the slugs linked to slug, sorted and distinct.
func (g *Graph) Neighbours(slug string) []string {
	var out []string
	for _, e := range g.Adj[slug] {
		if !slices.Contains(out, e.Target) {
			out = append(out, e.Target)
		}
	}
	sort.Strings(out)
	return out
}

// GraphIssue is a violated graph invariant.
type GraphIssue struct {
	Kind   string `json:"kind"` // self-edge, duplicate, one-sided, wrong-inverse, broken-link, invalid-label
	Source string `json:"source"`
	Target string `json:"target"`
	Label  string `json:"label"`
}

func (i GraphIssue) String() string {
	return fmt.Sprintf("%s: %s -[%s]-> %s", i.Kind, i.Source, i.Label, i.Target)
}

// Check returns every violated invariant: no self-edges, no duplicates,
// every edge has its reverse with the inverse label, and (when exists is
// given) every endpoint is a memory of the scope.
func (g *Graph) Check(exists func(slug string) bool) []GraphIssue {
	var out []GraphIssue
	for _, s := range slices.Sorted(maps.Keys(g.Adj)) {
		seen := map[Edge]bool{}
		for _, e := range g.Adj[s] {
			issue := func(kind string) { out = append(out, GraphIssue{kind, s, e.Target, e.Label}) }
			key := Edge{Target: e.Target, Label: e.Label}
			switch {
			case e.Target == s:
				issue("self-edge")
			case seen[key]:
				issue("duplicate")
			case !ValidSlug(e.Label) || len(e.Label) > MaxLabel:
				issue("invalid-label")
			}
			seen[key] = true
			if exists != nil && (!exists(e.Target) || !exists(s)) {
				issue("broken-link")
			}
			if e.Target != s && !g.Has(e.Target, s, Inverse(e.Label)) {
				if slices.ContainsFunc(g.Adj[e.Target], func(x Edge) bool { return x.Target == s }) {
					issue("wrong-inverse")
				} else {
					issue("one-sided")
				}
			}
		}
	}
	return out
}

// Repair makes the graph satisfy its invariants: self-edges and duplicates
// are dropped, missing reverse edges added, and (when exists is given)
// edges to missing memories removed. It returns what it changed.
func (g *Graph) Repair(exists func(string) bool) []GraphIssue {
	issues := g.Check(exists)
	if len(issues) == 0 {
		return nil
	}
	fixed := NewGraph()
	fixed.Format, fixed.nodes = g.Format, g.nodes
	for _, s := range slices.Sorted(maps.Keys(g.Adj)) {
		for _, e := range g.Adj[s] {
			if e.Target == s || exists != nil && (!exists(s) || !exists(e.Target)) {
				continue
			}
			if fixed.Has(s, e.Target, e.Label) {
				continue
			}
			if fixed.Has(e.Target, s, Inverse(e.Label)) {
				continue
			}
			at, _ := ParseTime(e.Timestamp)
			if err := fixed.Link(s, e.Target, e.Label, at); err != nil {
				continue
			}
			// Keep the original timestamps.
			fixed.Adj[s][len(fixed.Adj[s])-1].Timestamp = e.Timestamp
			fixed.Adj[e.Target][len(fixed.Adj[e.Target])-1].Timestamp = e.Timestamp
		}
	}
	g.Adj = fixed.Adj
	return issues
}

// ParseGraph reads graph.json in either format. A plugin graph's
// undirected edges become edge pairs with inverse labels; an edge without
// a label is relates-to.
func ParseGraph(data []byte) (*Graph, error) {
	g := NewGraph()
	if len(bytes.TrimSpace(data)) == 0 {
		return g, nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("graph.json: %w", err)
	}
	_, hasNodes := probe["nodes"]
	_, hasEdges := probe["edges"]
	if hasNodes || hasEdges {
		var pg struct {
			Nodes []Node `json:"nodes"`
			Edges []struct {
				Source, Target, Relation, Label string
				Timestamp                       string `json:"timestamp"`
			} `json:"edges"`
		}
		if err := json.Unmarshal(data, &pg); err != nil {
			return nil, fmt.Errorf("graph.json (nodes and edges): %w", err)
		}
		g.Format, g.nodes = FormatNodesEdges, pg.Nodes
		for _, e := range pg.Edges {
			label := e.Relation
			if label == "" {
				label = e.Label
			}
			if label == "" {
				label = DefaultLabel
			}
			if g.Has(e.Source, e.Target, label) || g.Has(e.Target, e.Source, Inverse(label)) {
				g.Merged++
				continue
			}
			// Kept as found (even a self-edge): health reports it, nothing
			// is dropped on load.
			g.Adj[e.Source] = append(g.Adj[e.Source], Edge{Target: e.Target, Label: label, Timestamp: e.Timestamp})
			if e.Source != e.Target {
				g.Adj[e.Target] = append(g.Adj[e.Target], Edge{Target: e.Source, Label: Inverse(label), Timestamp: e.Timestamp})
			}
		}
		return g, nil
	}
	for k, raw := range probe {
		var edges []Edge
		if err := json.Unmarshal(raw, &edges); err != nil {
			return nil, fmt.Errorf("graph.json: edges of %s: %w", k, err)
		}
		if len(edges) > 0 {
			g.Adj[k] = edges
		}
	}
	return g, nil
}

// Marshal renders graph.json in the graph's format. nodes supplies the
// plugin format's node list (id, title, type) from the scope's memories.
func (g *Graph) Marshal(nodes []Node) ([]byte, error) {
	if g.Format != FormatNodesEdges {
		adj := g.Adj
		if adj == nil {
			adj = map[string][]Edge{}
		}
		return json.MarshalIndent(adj, "", "  ")
	}
	type pe struct {
		Source    string `json:"source"`
		Target    string `json:"target"`
		Relation  string `json:"relation"`
		Timestamp string `json:"timestamp,omitempty"`
	}
	out := struct {
		Nodes []Node `json:"nodes"`
		Edges []pe   `json:"edges"`
	}{Nodes: nodes, Edges: []pe{}}
	if out.Nodes == nil {
		out.Nodes = []Node{}
	}
	for _, s := range slices.Sorted(maps.Keys(g.Adj)) {
		for _, e := range g.Adj[s] {
			if forward(e.Label, s, e.Target) || s == e.Target {
				out.Edges = append(out.Edges, pe{s, e.Target, e.Label, e.Timestamp})
			}
		}
	}
	return json.MarshalIndent(out, "", "  ")
}
