package store

import (
	"context"
	"fmt"
)

// PathIDs returns the id of every tracked file keyed by path. It reads two
// columns of the files table, where Files reads ten: an update of a few
// files needs the whole list only to resolve paths (imports, same
// directory), and loading every full row cost more than the update's parse.
func (s *Store) PathIDs(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, id FROM files`)
	if err != nil {
		return nil, classify(fmt.Errorf("list files: %w", err))
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var p string
		var id int64
		if err := rows.Scan(&p, &id); err != nil {
			return nil, classify(err)
		}
		out[p] = id
	}
	return out, classify(rows.Err())
}
