package retrieval

import (
	"context"
	"math"
	"slices"
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
	// Arcs in a fixed order: edges as read, then containment by seed. A
	// node's outgoing weight and its walk sums follow that order, so a
	// run gives the same bits every time (a map's order once changed them).
	type arc struct {
		from, to int64
		w        float64
	}
	arcs := make([]arc, 0, 2*(len(out)+len(in))+3*len(ids))
	link := func(a, b int64, w float64) {
		if a != b {
			arcs = append(arcs, arc{a, b, w})
		}
	}
	for _, e := range append(out, in...) {
		link(e.Src, e.Dst, 1)
		link(e.Dst, e.Src, backWeight)
	}
	for _, id := range ids {
		e, ok := ents[id]
		if !ok {
			continue
		}
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
	nodes := make([]int64, 0, len(ids)+len(arcs))
	nodes = append(nodes, ids...)
	for _, a := range arcs {
		nodes = append(nodes, a.from, a.to)
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	posOf := func(id int64) int {
		i, _ := slices.BinarySearch(nodes, id)
		return i
	}
	// Each node's arcs in order, as one array (first[i] to first[i+1]),
	// with each arc's share of its node's outgoing weight.
	first := make([]int, len(nodes)+1)
	from := make([]int, len(arcs))
	for k, a := range arcs {
		from[k] = posOf(a.from)
		first[from[k]+1]++
	}
	for i := range nodes {
		first[i+1] += first[i]
	}
	to := make([]int, len(arcs))
	share := make([]float64, len(arcs))
	next := slices.Clone(first[:len(nodes)])
	for k, a := range arcs {
		j := next[from[k]]
		next[from[k]]++
		to[j], share[j] = posOf(a.to), a.w
	}
	for i := range nodes {
		var outW float64
		for j := first[i]; j < first[i+1]; j++ {
			outW += share[j]
		}
		for j := first[i]; j < first[i+1]; j++ {
			share[j] /= outW
		}
	}
	// Personalisation vector.
	var total float64
	for _, s := range seeds {
		total += s.w
	}
	p := make([]float64, len(nodes))
	for _, s := range seeds {
		p[posOf(s.id)] = s.w / total
	}
	r := slices.Clone(p)
	sum := make([]float64, len(nodes))
	for range iterations {
		for i := range sum {
			sum[i] = restart * p[i]
		}
		var dangling float64
		for i, v := range r {
			if first[i] == first[i+1] {
				dangling += v
				continue
			}
			for j := first[i]; j < first[i+1]; j++ {
				sum[to[j]] += (1 - restart) * v * share[j]
			}
		}
		for i := range sum {
			sum[i] += (1 - restart) * dangling * p[i]
		}
		r, sum = sum, r
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
