package team

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/memory"
)

// BM25 parameters: FTS5's bm25() defaults, which the file scopes' search
// uses (k1 = 1.2, b = 0.75), so scores mean the same in both stores.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Search ranks the project's memories for a text, best first: the query's
// analyzer terms are looked up in the term table, scored with BM25F (the
// file scopes' field weights folded into each term's frequency) and given
// the same Relevance (IDF-weighted coverage) as file-scope hits.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	if len(q.Scopes) > 0 && !slices.Contains(q.Scopes, memory.Enterprise) {
		return nil, nil
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	terms := distinct(analyzer.Terms(q.Text))
	if len(terms) == 0 {
		return nil, nil
	}
	type cand struct {
		score   float64
		matched []string
	}
	var n, avgdl float64
	df := map[string]float64{}
	cands := map[string]*cand{}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// One snapshot for the statistics and the postings.
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(avg(doclen), 0) FROM memories WHERE project = $1`, s.project).Scan(&n, &avgdl); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT t.term, t.slug, t.wtf, m.doclen FROM terms t JOIN memories m USING (project, slug)
			WHERE t.project = $1 AND t.term = ANY($2)`, s.project, terms)
		if err != nil {
			return err
		}
		type posting struct {
			term, slug string
			wtf        float64
			dl         float64
		}
		var ps []posting
		var p posting
		var wtf float32
		var dl int32
		_, err = pgx.ForEachRow(rows, []any{&p.term, &p.slug, &wtf, &dl}, func() error {
			p.wtf, p.dl = float64(wtf), float64(dl)
			ps = append(ps, p)
			df[p.term]++
			return nil
		})
		if err != nil {
			return err
		}
		for _, p := range ps {
			c := cands[p.slug]
			if c == nil {
				c = &cand{}
				cands[p.slug] = c
			}
			norm := 1.0
			if avgdl > 0 {
				norm = 1 - bm25B + bm25B*p.dl/avgdl
			}
			c.score += bm25IDF(n, df[p.term]) * p.wtf * (bm25K1 + 1) / (p.wtf + bm25K1*norm)
			c.matched = append(c.matched, p.term)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	idf := make(map[string]float64, len(terms))
	for _, t := range terms {
		idf[t] = math.Log(1 + (n-df[t]+0.5)/(df[t]+0.5))
	}
	slugs := make([]string, 0, len(cands))
	for sl := range cands {
		slugs = append(slugs, sl)
	}
	sort.Slice(slugs, func(a, b int) bool {
		ca, cb := cands[slugs[a]], cands[slugs[b]]
		if ca.score != cb.score {
			return ca.score > cb.score
		}
		return slugs[a] < slugs[b]
	})
	sums, err := s.summaries(ctx, slugs)
	if err != nil {
		return nil, err
	}
	var hits []memory.Hit
	for _, sl := range slugs {
		sm, ok := sums[sl]
		if !ok || !keep(sm, q) {
			continue
		}
		c := cands[sl]
		hits = append(hits, memory.Hit{Summary: sm, Score: c.score, Relevance: memory.Coverage(terms, c.matched, idf)})
		if len(hits) == q.Limit {
			break
		}
	}
	return hits, nil
}

// bm25IDF is FTS5's BM25 IDF, floored as FTS5 floors it so that a term in
// most memories still adds a little.
func bm25IDF(n, df float64) float64 {
	idf := math.Log((n - df + 0.5) / (df + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// keep applies a query's type and tag filters.
func keep(sm memory.Summary, q memory.Query) bool {
	if len(q.Types) > 0 && !slices.Contains(q.Types, sm.Type) {
		return false
	}
	for _, t := range q.Tags {
		if !slices.Contains(sm.Tags, t) {
			return false
		}
	}
	return true
}

// summaries reads the summaries of the given memories.
func (s *Store) summaries(ctx context.Context, slugs []string) (map[string]memory.Summary, error) {
	out := make(map[string]memory.Summary, len(slugs))
	if len(slugs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+summaryCols+` FROM memories WHERE project = $1 AND slug = ANY($2)`, s.project, slugs)
	if err != nil {
		return nil, classify(err)
	}
	list, err := pgx.CollectRows(rows, s.scanSummary)
	if err != nil {
		return nil, classify(err)
	}
	for _, sm := range list {
		out[sm.Slug] = sm
	}
	return out, nil
}

func distinct(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
