package store

import (
	"context"
	"fmt"
)

// FilesByID returns the path, class and size of the files with the given
// ids, keyed by id: what ranking reads per file, from the files table
// alone (a file entity's row would bring its signature and outline).
func (s *Store) FilesByID(ctx context.Context, ids []int64) (map[int64]File, error) {
	out := make(map[int64]File, len(ids))
	err := inChunks(ids, func(chunk []int64) error {
		rows, err := s.db.QueryContext(ctx, `SELECT id, path, class, size FROM files WHERE id IN (`+placeholders(len(chunk))+`)`, int64Args(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("files by id: %w", err))
		}
		defer rows.Close()
		for rows.Next() {
			var f File
			if err := rows.Scan(&f.ID, &f.Path, &f.Class, &f.Size); err != nil {
				return classify(err)
			}
			out[f.ID] = f
		}
		return classify(rows.Err())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ParsedFiles counts the parsed files (those not skipped), as the last
// index run recorded it (Writer.Recount), or counts them when no run has.
func (s *Store) ParsedFiles(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?),
		(SELECT count(*) FROM files WHERE skip = ''))`, MetaParsedFiles).Scan(&n); err != nil {
		return 0, classify(fmt.Errorf("count parsed files: %w", err))
	}
	return n, nil
}

// ParsedFilesUnder counts the parsed files under a directory ("core/logx"),
// at any depth. It reads a range of the unique index on the path.
func (s *Store) ParsedFilesUnder(ctx context.Context, dir string) (int, error) {
	// Paths under dir sort between "dir/" and "dir0" ('0' follows '/').
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE path >= ? AND path < ? AND skip = ''`,
		dir+"/", dir+"0").Scan(&n); err != nil {
		return 0, classify(fmt.Errorf("count files under %s: %w", dir, err))
	}
	return n, nil
}

// PathsUnder returns the paths of the tracked files under a directory
// ("core/logx"), at any depth, parsed or not: what a removed or renamed
// directory took away. It reads a range of the unique index on the path.
func (s *Store) PathsUnder(ctx context.Context, dir string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM files WHERE path >= ? AND path < ? ORDER BY path`, dir+"/", dir+"0")
	if err != nil {
		return nil, classify(fmt.Errorf("files under %s: %w", dir, err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, classify(fmt.Errorf("files under %s: %w", dir, err))
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(fmt.Errorf("files under %s: %w", dir, err))
	}
	return out, nil
}

// FileCount counts the tracked files, parsed or not.
func (s *Store) FileCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM files`).Scan(&n); err != nil {
		return 0, classify(fmt.Errorf("count files: %w", err))
	}
	return n, nil
}
