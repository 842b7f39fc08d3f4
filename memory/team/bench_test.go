package team

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/memory"
)

// benchQueries are prompts of the kind hooks search with.
var benchQueries = []string{"sqlite locking", "hook timeout handling", "graph links between memories", "embedding provider",
	"token budget", "memory health check", "typescript plugin import", "session continuity", "test fixture", "error handling"}

// benchStore fills a schema with the plugin fixture copied copies times
// (slugs suffixed), and a tsvector table of the same terms beside it.
func benchStore(b *testing.B, copies int) *Store {
	b.StopTimer()
	defer b.StartTimer()
	b.Helper()
	pg.Need(b)
	ms := fixtureProject(b)
	s := openTeam(b, fmt.Sprintf("%s_%d", schemaFor(b), copies))
	ctx := context.Background()
	mems, _, err := ms.Scan(ctx, memory.Project)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `CREATE TABLE tsv (project text, slug text, doc tsvector, PRIMARY KEY (project, slug));
		CREATE INDEX tsv_doc ON tsv USING gin (doc)`); err != nil {
		b.Fatal(err)
	}
	an := analyzer.New()
	for c := range copies {
		for _, m := range mems {
			cp := *m
			cp.Slug = fmt.Sprintf("%s-c%d", m.Slug, c)
			cp.Links = nil
			if _, err := s.Write(ctx, &cp); err != nil {
				b.Fatal(err)
			}
			f := memory.FieldTerms(an, &cp)
			// array_to_tsvector takes the analyzer's terms as lexemes,
			// bypassing PostgreSQL's parser; weights A-D are the fields.
			if _, err := s.pool.Exec(ctx, `INSERT INTO tsv VALUES ($1, $2, setweight(array_to_tsvector($3::text[]), 'A') ||
				setweight(array_to_tsvector($4::text[]), 'B') || setweight(array_to_tsvector($5::text[]), 'C') || setweight(array_to_tsvector($6::text[]), 'D'))`,
				s.project, cp.Slug, nonNil(f[0]), nonNil(f[1]), nonNil(f[2]), nonNil(f[3])); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSearch compares the term table (Search) with a GIN-indexed
// tsvector of the same terms ranked by ts_rank, plus the per-term document
// counts that relevance needs (decision 0097). Run with
// go test -tags sqlite_fts5 -run '^$' -bench Search ./memory/team/
func BenchmarkSearch(b *testing.B) {
	for _, copies := range []int{1, 10} {
		s := benchStore(b, copies)
		ctx := context.Background()
		b.Run(fmt.Sprintf("termtable/%dx", copies), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := s.Search(ctx, memory.Query{Text: benchQueries[i%len(benchQueries)], Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tsvector/%dx", copies), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				terms := distinct(analyzer.Terms(benchQueries[i%len(benchQueries)]))
				quoted := make([]string, len(terms))
				for j, t := range terms {
					quoted[j] = "'" + strings.ReplaceAll(t, "'", "''") + "'"
				}
				q := strings.Join(quoted, " | ")
				err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
					for _, t := range quoted {
						var n int
						if err := tx.QueryRow(ctx, `SELECT count(*) FROM tsv WHERE project = $1 AND doc @@ $2::tsquery`, s.project, t).Scan(&n); err != nil {
							return err
						}
					}
					rows, err := tx.Query(ctx, `SELECT slug, ts_rank('{0.125, 0.5, 0.5, 1}', doc, $2::tsquery) r FROM tsv
						WHERE project = $1 AND doc @@ $2::tsquery ORDER BY r DESC LIMIT 10`, s.project, q)
					if err != nil {
						return err
					}
					_, err = pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
						Slug string
						R    float32
					}])
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
