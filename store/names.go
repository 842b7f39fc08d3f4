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

// EntityByQName returns the entity of the file at path with the given kind
// and qualified name; when overloads share it, the first in the file.
func (s *Store) EntityByQName(ctx context.Context, path, kind, qname string) (Entity, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+entityCols+` FROM files f JOIN entities e ON e.file_id = f.id
		WHERE f.path = ? AND e.qname = ? AND e.kind = ? ORDER BY e.start_line LIMIT 1`, path, qname, kind)
	if err != nil {
		return Entity{}, false, classify(fmt.Errorf("entity %s in %s: %w", qname, path, err))
	}
	es, err := scanEntities(rows)
	if err != nil || len(es) == 0 {
		return Entity{}, false, err
	}
	return es[0], true, nil
}

// EntityCount returns how many entities the index holds (files included),
// cheaply enough to call after every update.
func (s *Store) EntityCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM entities`).Scan(&n); err != nil {
		return 0, classify(fmt.Errorf("count entities: %w", err))
	}
	return n, nil
}
