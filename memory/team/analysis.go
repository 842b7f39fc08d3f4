package team

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/memory"
)

// analysesFrom is the schema version that records, per project, the
// analyzer its terms were written with (table analyzers).
const analysesFrom = 2

// reanalyze writes the project's terms again when they were written by
// another analyzer than this build's: a query is analysed by this build,
// and a term whose analysis changed ("notify" was "notifi", now "notif")
// would no longer meet the memories that hold it. It runs once per
// analyzer change, in the first Open by a role that may write; a reader
// leaves the terms as they are and searches them, as before the change.
// Terms written by a newer ctxls are left alone: two builds of a team
// would otherwise rewrite them back and forth.
func (s *Store) reanalyze(ctx context.Context) error {
	if s.version < analysesFrom {
		return nil
	}
	current := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) (bool, error) {
		var v string
		err := q.QueryRow(ctx, `SELECT version FROM analyzers WHERE project = $1`, s.project).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read the analyzer of the terms: %w", err)
		}
		return !analyzerOlder(v, analyzer.Version), nil
	}
	if ok, err := current(s.pool); err != nil || ok {
		return err
	}
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		// Every memory of the project, locked as every write locks its
		// rows (lockRows): in slug order, in one statement.
		rows, err := tx.Query(ctx, `SELECT slug, doc FROM memories WHERE project = $1 ORDER BY slug FOR UPDATE`, s.project)
		if err != nil {
			return err
		}
		type stored struct{ slug, doc string }
		docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (stored, error) {
			var d stored
			err := r.Scan(&d.slug, &d.doc)
			return d, err
		})
		if err != nil {
			return err
		}
		// Another Open may have done it while this one waited.
		if ok, err := current(tx); err != nil || ok {
			return err
		}
		slugs := make([]string, len(docs))
		for i, d := range docs {
			slugs[i] = d.slug
		}
		if _, err := tx.Exec(ctx, `DELETE FROM terms WHERE project = $1 AND slug = ANY($2)`, s.project, slugs); err != nil {
			return err
		}
		for _, d := range docs {
			m, err := memory.Parse([]byte(d.doc), d.slug+".md", memory.Enterprise, s.now())
			if err != nil {
				// Read would refuse it as well; its terms stay out.
				continue
			}
			terms, weights, n := weighTerms(m)
			if _, err := tx.Exec(ctx, `UPDATE memories SET doclen = $3 WHERE project = $1 AND slug = $2`, s.project, d.slug, n); err != nil {
				return err
			}
			if err := s.putTerms(ctx, tx, d.slug, terms, weights, n); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO analyzers (project, version) VALUES ($1, $2)
			ON CONFLICT (project) DO UPDATE SET version = EXCLUDED.version`, s.project, analyzer.Version)
		return err
	})
	if insufficientPrivilege(err) { // a reader
		return nil
	}
	if err != nil {
		return fmt.Errorf("write the terms with analyzer %s: %w", analyzer.Version, err)
	}
	return nil
}

// analyzerOlder reports whether analyzer version v is older than ours;
// versions count up, and one that is not a number is older than any.
func analyzerOlder(v, ours string) bool {
	n, err := strconv.Atoi(v)
	o, _ := strconv.Atoi(ours)
	return err != nil || n < o
}
