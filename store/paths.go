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

// FileStat is what a walk compares with the disk to find changed files.
type FileStat struct {
	Path  string
	ID    int64
	Size  int64
	MTime int64 // UnixNano
	Skip  string
}

// FileStats returns the stat fields of every tracked file: a fifth of the
// columns of Files, which is what a re-index after a small change spent
// most of its reading on.
func (s *Store) FileStats(ctx context.Context) ([]FileStat, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, id, size, mtime, skip FROM files`)
	if err != nil {
		return nil, classify(fmt.Errorf("list files: %w", err))
	}
	defer rows.Close()
	var out []FileStat
	for rows.Next() {
		var f FileStat
		if err := rows.Scan(&f.Path, &f.ID, &f.Size, &f.MTime, &f.Skip); err != nil {
			return nil, classify(err)
		}
		out = append(out, f)
	}
	return out, classify(rows.Err())
}

// FilesByPath returns the tracked files among paths keyed by path.
func (s *Store) FilesByPath(ctx context.Context, paths []string) (map[string]File, error) {
	out := make(map[string]File, len(paths))
	err := inChunks(paths, func(chunk []string) error {
		rows, err := s.db.QueryContext(ctx, `SELECT `+fileCols+` FROM files WHERE path IN (`+placeholders(len(chunk))+`)`, stringArgs(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("read files: %w", err))
		}
		files, err := scanFiles(rows, nil)
		if err != nil {
			return err
		}
		for _, f := range files {
			out[f.Path] = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
