package store

import (
	"context"
	"fmt"
)

// EntitiesMatching returns entities (files excluded) whose name contains
// query, case-insensitively: exact matches first, then prefixes, then the
// shortest names. It serves the editor's workspace symbol search.
func (s *Store) EntitiesMatching(ctx context.Context, query string, limit int) ([]Entity, error) {
	like := "%" + escapeLike(query) + "%"
	prefix := escapeLike(query) + "%"
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM entities e JOIN files f ON f.id = e.file_id
		WHERE e.kind != 'file' AND e.name LIKE ? ESCAPE '\'
		ORDER BY e.name = ? COLLATE NOCASE DESC, e.name LIKE ? ESCAPE '\' DESC, length(e.name), f.path, e.start_line
		LIMIT ?`, like, query, prefix, limit)
	if err != nil {
		return nil, classify(fmt.Errorf("entities matching %q: %w", query, err))
	}
	return scanEntities(rows)
}
