package team

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/memory"
)

// All reads every memory of the project, sorted by slug, in one snapshot.
func (s *Store) All(ctx context.Context) ([]*Record, error) { return s.all(ctx, s.pool) }

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (s *Store) all(ctx context.Context, q querier) ([]*Record, error) {
	rows, err := q.Query(ctx, `SELECT slug, doc, version, links FROM memories WHERE project = $1 ORDER BY slug`, s.project)
	if err != nil {
		return nil, classify(err)
	}
	now := s.now()
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*Record, error) {
		var slug, doc string
		var version int64
		var links []string
		if err := r.Scan(&slug, &doc, &version, &links); err != nil {
			return nil, err
		}
		m, err := memory.Parse([]byte(doc), slug+".md", memory.Enterprise, now)
		if err != nil {
			return nil, fmt.Errorf("memory %s is stored malformed: %w", slug, err)
		}
		m.Path, m.Links = s.Locator(slug), links
		return &Record{Memory: m, Version: version}, nil
	})
	if err != nil {
		return nil, classify(err)
	}
	return out, nil
}

// Health checks the enterprise scope as memory checks a file scope:
// broken links, graph invariants, orphans, problems and quality.
func (s *Store) Health(ctx context.Context, qc memory.QualityConfig) (*memory.HealthReport, error) {
	recs, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	g, err := s.Graph(ctx)
	if err != nil {
		return nil, err
	}
	mems := make([]*memory.Memory, len(recs))
	for i, r := range recs {
		mems[i] = r.Memory
	}
	return memory.CheckHealth(memory.Enterprise, mems, nil, g, qc, s.now()), nil
}
