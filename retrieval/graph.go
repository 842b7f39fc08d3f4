package retrieval

import (
	"context"
	"math"
	"sort"

	"github.com/ctxls/ctxls/store"
)

// Graph spreading parameters.
const (
	// restart is the random walk's probability of jumping back to a seed:
	// high, because relevance should stay near what is in play.
	restart    = 0.3
	iterations = 20
	maxSeeds   = 24
	maxEdges   = 4000
	// backWeight is the weight of walking an edge against its direction
	// (from a callee to its caller): callers matter, but less than callees.
	backWeight = 0.5
)

// spread runs a personalised PageRank over the neighbourhood of the seeds and
// records each node's share in cand.graph (normalised to the best node).
// Nodes reached only through the graph become candidates too.
func spread(ctx context.Context, st *store.Store, cands map[int64]*cand, get func(int64) *cand) error {
	var maxLex float64
	for _, c := range cands {
		maxLex = math.Max(maxLex, c.lex)
	}
	type seed struct {
		id int64
		w  float64
	}
	var seeds []seed
	for id, c := range cands {
		w := c.exact + c.active
		if maxLex > 0 {
			w += c.lex / maxLex * (0.5 + 0.5*c.coverage)
		}
		if w > 0 {
			seeds = append(seeds, seed{id, w})
		}
	}
	sort.Slice(seeds, func(a, b int) bool {
		if seeds[a].w != seeds[b].w {
			return seeds[a].w > seeds[b].w
		}
		return seeds[a].id < seeds[b].id
	})
	if len(seeds) > maxSeeds {
		seeds = seeds[:maxSeeds]
	}
	if len(seeds) == 0 {
		return nil
	}
	ids := make([]int64, len(seeds))
	for i, s := range seeds {
		ids[i] = s.id
	}
	out, err := st.EdgesFrom(ctx, ids, maxEdges)
	if err != nil {
		return err
	}
	in, err := st.EdgesTo(ctx, ids, maxEdges)
	if err != nil {
		return err
	}
	// Containment: an entity and its file are related; entities of a seed
	// file are candidates through it.
	ents, err := st.EntitiesByID(ctx, ids)
	if err != nil {
		return err
	}
	type arc struct {
		to int64
		w  float64
	}
	adj := map[int64][]arc{}
	link := func(a, b int64, w float64) {
		if a == b {
			return
		}
		adj[a] = append(adj[a], arc{b, w})
	}
	for _, e := range append(out, in...) {
		link(e.Src, e.Dst, 1)
		link(e.Dst, e.Src, backWeight)
	}
	for _, e := range ents {
		if e.ParentID != 0 {
			link(e.ID, e.ParentID, 0.5)
			link(e.ParentID, e.ID, 0.5)
		}
		if e.FileID != e.ID && e.FileID != e.ParentID {
			link(e.ID, e.FileID, 0.3)
		}
	}
	// The walk runs over dense arrays with nodes in id order: summing in a
	// map's random order made near-ties flip between runs of one query.
	nodes := make([]int64, 0, len(adj)+len(seeds))
	pos := make(map[int64]int, len(adj)+len(seeds)) // id → index in nodes
	add := func(id int64) {
		if _, ok := pos[id]; !ok {
			pos[id] = -1 // placed after the sort
			nodes = append(nodes, id)
		}
	}
	for _, s := range seeds {
		add(s.id)
	}
	for n, as := range adj {
		add(n)
		for _, a := range as {
			add(a.to)
		}
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a] < nodes[b] })
	for i, id := range nodes {
		pos[id] = i
	}
	type darc struct {
		to int
		w  float64 // the arc's share of its node's outgoing weight
	}
	dadj := make([][]darc, len(nodes))
	for i, id := range nodes {
		as := adj[id]
		var outW float64
		for _, a := range as {
			outW += a.w
		}
		for _, a := range as {
			dadj[i] = append(dadj[i], darc{pos[a.to], a.w / outW})
		}
	}
	// Personalisation vector.
	var total float64
	for _, s := range seeds {
		total += s.w
	}
	p := make([]float64, len(nodes))
	for _, s := range seeds {
		p[pos[s.id]] = s.w / total
	}
	r := append([]float64(nil), p...)
	next := make([]float64, len(nodes))
	for range iterations {
		for i := range next {
			next[i] = restart * p[i]
		}
		var dangling float64
		for i, v := range r {
			if len(dadj[i]) == 0 {
				dangling += v
				continue
			}
			for _, a := range dadj[i] {
				next[a.to] += (1 - restart) * v * a.w
			}
		}
		for i := range next {
			next[i] += (1 - restart) * dangling * p[i]
		}
		r, next = next, r
	}
	var best float64
	for _, v := range r {
		best = math.Max(best, v)
	}
	if best == 0 {
		return nil
	}
	for i, v := range r {
		// A node the walk never reached stays out of the candidates, as
		// before.
		if v == 0 {
			continue
		}
		get(nodes[i]).graph = v / best
	}
	return nil
}
