package store

import (
	"context"
	"fmt"
	"strconv"
)

// EntityIDsInFile returns the ids of a file's entities, at most limit of
// them. A file with more has the first limit in the order of EntitiesInFile
// (the file entity first, then source order); otherwise the order is
// unspecified and the ids come from the file-id index alone. Entity ids are
// hashes, so a file's rows lie on as many random pages as it has entities,
// and in a short-lived process every page read is a page fault: callers
// that only follow edges need neither the rows nor their order.
func (s *Store) EntityIDsInFile(ctx context.Context, path string, limit int) ([]int64, error) {
	ids, err := s.entityIDs(ctx, `SELECT e.id FROM entities e JOIN files f ON f.id = e.file_id WHERE f.path = ?`, path)
	if err != nil || len(ids) <= limit {
		return ids, err
	}
	ids, err = s.entityIDs(ctx, `SELECT e.id FROM entities e JOIN files f ON f.id = e.file_id
		WHERE f.path = ? ORDER BY e.kind != 'file', e.start_line, e.end_line DESC`, path)
	return ids[:min(limit, len(ids))], err
}

func (s *Store) entityIDs(ctx context.Context, query, path string) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, query, path)
	if err != nil {
		return nil, classify(fmt.Errorf("entities of %s: %w", path, err))
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, classify(err)
		}
		out = append(out, id)
	}
	return out, classify(rows.Err())
}

// Located is an entity's qualified name and where it starts: what a list of
// neighbours shows of it.
type Located struct {
	QName string
	Path  string
	Line  int
}

// Locate returns the qualified name and location of each of ids, keyed by
// id; ids that name no entity (stale edge targets) are absent.
func (s *Store) Locate(ctx context.Context, ids []int64) (map[int64]Located, error) {
	out := make(map[int64]Located, len(ids))
	err := inChunks(ids, func(chunk []int64) error {
		rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.qname, e.start_line, f.path FROM entities e JOIN files f ON f.id = e.file_id
			WHERE e.id IN (`+placeholders(len(chunk))+`)`, int64Args(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("locate entities: %w", err))
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var l Located
			if err := rows.Scan(&id, &l.QName, &l.Line, &l.Path); err != nil {
				return classify(err)
			}
			out[id] = l
		}
		return classify(rows.Err())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// limitSQL is a LIMIT written into the statement rather than bound: SQLite
// re-prepares a statement whenever a new value is bound to its LIMIT (the
// planner may use it), so a bound limit cost a second prepare on every run
// and made the statement cache useless for it.
func limitSQL(n int) string { return strconv.Itoa(n) }
