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
	var n float64
	df := map[string]float64{}
	var hits []memory.Hit
	var matched [][]string
	types := make([]string, 0, len(q.Types))
	for _, t := range q.Types {
		types = append(types, string(t))
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		// One snapshot for the statistics and the ranking.
		rows, err := tx.Query(ctx, `SELECT term, count(*) FROM terms WHERE project = $1 AND term = ANY($2) GROUP BY term`, s.project, terms)
		if err != nil {
			return err
		}
		var term string
		var c float64
		if _, err := pgx.ForEachRow(rows, []any{&term, &c}, func() error { df[term] = c; return nil }); err != nil {
			return err
		}
		if len(df) == 0 {
			return nil
		}
		// BM25 (FTS5's form) over the weighted term frequencies; the
		// scoring stays in the server, which returns only the best.
		// Filters join the memories before the limit; without them only
		// the best are joined.
		sqlText := searchSQL
		if len(types) > 0 || len(q.Tags) > 0 {
			sqlText = searchFilteredSQL
		}
		rows, err = tx.Query(ctx, sqlText, s.project, mapKeys(df), mapValues(df), types, nonNil(q.Tags), bm25K1, bm25B, q.Limit)
		if err != nil {
			return err
		}
		hits, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.Hit, error) {
			var h memory.Hit
			var typ string
			var m []string
			sm := &h.Summary
			err := r.Scan(&sm.Slug, &typ, &sm.Title, &sm.Tags, &sm.Severity, &sm.Files, &sm.Created, &sm.Updated, &h.Score, &m, &n)
			s.fillSummary(sm, typ)
			matched = append(matched, m)
			return h, err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	idf := make(map[string]float64, len(terms))
	for _, t := range terms {
		idf[t] = math.Log(1 + (n-df[t]+0.5)/(df[t]+0.5))
	}
	for i := range hits {
		hits[i].Relevance = memory.Coverage(terms, matched[i], idf)
	}
	return hits, nil
}

func mapKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapValues(m map[string]float64) []float64 {
	keys := mapKeys(m)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// scoredSQL scores the memories holding any of the query's terms with
// BM25 (FTS5's form) over the weighted term frequencies, in the server.
// $1 project, $2 terms, $3 their document counts, $6 k1, $7 b.
const scoredSQL = `WITH stats AS (
		SELECT count(*)::float8 AS n, coalesce(avg(doclen), 1)::float8 AS avgdl FROM memories WHERE project = $1),
	df AS (SELECT u.term, u.df FROM unnest($2::text[], $3::float8[]) AS u(term, df)),
	scored AS (
		SELECT t.slug, array_agg(t.term) AS matched,
			sum(greatest(ln((stats.n - df.df + 0.5) / (df.df + 0.5)), 1e-6) * t.wtf * ($6::float8 + 1)
				/ (t.wtf + $6::float8 * (1 - $7::float8 + $7::float8 * t.doclen / stats.avgdl))) AS score
		FROM terms t JOIN df USING (term) CROSS JOIN stats
		WHERE t.project = $1
		GROUP BY t.slug)`

// searchSQL returns the best $8 of scoredSQL ($4 and $5 are unused).
var searchSQL = scoredSQL + `,
	best AS (SELECT * FROM scored ORDER BY score DESC, slug LIMIT $8)
	SELECT ` + summaryColsOf("m") + `, b.score, b.matched, (SELECT n FROM stats)
	FROM best b JOIN memories m ON m.project = $1 AND m.slug = b.slug
	WHERE cardinality($4::text[]) >= 0 AND cardinality($5::text[]) >= 0
	ORDER BY b.score DESC, b.slug`

// searchFilteredSQL is searchSQL keeping memories of types $4 (any when
// empty) that have every tag of $5.
var searchFilteredSQL = scoredSQL + `
	SELECT ` + summaryColsOf("m") + `, s.score, s.matched, (SELECT n FROM stats)
	FROM scored s JOIN memories m ON m.project = $1 AND m.slug = s.slug
	WHERE (cardinality($4::text[]) = 0 OR m.type = ANY($4)) AND m.tags @> $5
	ORDER BY s.score DESC, s.slug LIMIT $8`

func distinct(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
