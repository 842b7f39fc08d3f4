package store

import (
	"context"
	"fmt"
)

// Commit is one commit of the workspace's git history.
type Commit struct {
	Hash string
	// At is the committer time, Unix seconds.
	At int64
	// Terms is the analysed message, terms separated by spaces.
	Terms string
	// Files are the paths it touched (slash-separated, relative to the
	// root); empty when Skip is set.
	Files []string
	// NFiles counts the files it touched, recorded or not.
	NFiles int
	// Skip says why Files were not recorded ("mass": a change to so many
	// files that it says nothing about any of them).
	Skip string
	// ID, when not 0, is the row id to store it under. Ids order commits
	// of the same committer second, smaller first, as git lists them
	// (history.Update numbers them so); 0 takes the next free id.
	ID int64
}

// CommitHit is a commit whose message matches a query.
type CommitHit struct {
	ID     int64
	Score  float64 // BM25, larger is better
	At     int64
	NFiles int
}

// CommitHashes returns the stored commits, hash → id.
func (s *Store) CommitHashes(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT hash, id FROM commits`)
	if err != nil {
		return nil, classify(fmt.Errorf("read commits: %w", err))
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var h string
		var id int64
		if err := rows.Scan(&h, &id); err != nil {
			return nil, classify(err)
		}
		out[h] = id
	}
	return out, classify(rows.Err())
}

// HistoryUpdate is one change of the stored history, applied in one
// transaction together with the meta keys that describe it.
type HistoryUpdate struct {
	// Add are commits to store.
	Add []Commit
	// Remove are ids of stored commits no longer reachable from HEAD.
	Remove []int64
	// Clear removes every stored commit first (no history, or another
	// analysis version).
	Clear bool
	// Meta are meta keys to set with the change.
	Meta map[string]string
}

// UpdateHistory applies u.
func (s *Store) UpdateHistory(ctx context.Context, u HistoryUpdate) error {
	tx, err := s.beginIndexWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if u.Clear {
		for _, q := range []string{`DELETE FROM commits`, `DELETE FROM commit_files`, `DELETE FROM fts_commits`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return classify(fmt.Errorf("clear history: %w", err))
			}
		}
	}
	if err := inChunks(u.Remove, func(ids []int64) error {
		in := placeholders(len(ids))
		for _, q := range []string{
			`DELETE FROM commits WHERE id IN (` + in + `)`,
			`DELETE FROM commit_files WHERE commit_id IN (` + in + `)`,
			`DELETE FROM fts_commits WHERE rowid IN (` + in + `)`,
		} {
			if _, err := tx.ExecContext(ctx, q, int64Args(ids)...); err != nil {
				return classify(fmt.Errorf("remove commits: %w", err))
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if len(u.Add) > 0 {
		insCommit, err := tx.PrepareContext(ctx, `INSERT INTO commits(id, hash, at, nfiles, skip) VALUES(?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err)
		}
		defer insCommit.Close()
		insFile, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO commit_files(commit_id, path) VALUES(?, ?)`)
		if err != nil {
			return classify(err)
		}
		defer insFile.Close()
		insText, err := tx.PrepareContext(ctx, `INSERT INTO fts_commits(rowid, msg) VALUES(?, ?)`)
		if err != nil {
			return classify(err)
		}
		defer insText.Close()
		for _, c := range u.Add {
			var want any // NULL: the next free id
			if c.ID != 0 {
				want = c.ID
			}
			res, err := insCommit.ExecContext(ctx, want, c.Hash, c.At, c.NFiles, c.Skip)
			if err != nil {
				return classify(fmt.Errorf("store commit %s: %w", c.Hash, err))
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for _, p := range c.Files {
				if _, err := insFile.ExecContext(ctx, id, p); err != nil {
					return classify(fmt.Errorf("store commit %s: %w", c.Hash, err))
				}
			}
			if c.Terms != "" {
				if _, err := insText.ExecContext(ctx, id, c.Terms); err != nil {
					return classify(fmt.Errorf("store commit %s: %w", c.Hash, err))
				}
			}
		}
	}
	for k, v := range u.Meta {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", k, v); err != nil {
			return classify(err)
		}
	}
	return classify(tx.Commit())
}

// HistoryCounts returns how many commits are stored and how many of them
// were skipped as mass changes.
func (s *Store) HistoryCounts(ctx context.Context) (commits, skipped int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(skip != ''), 0) FROM commits`).Scan(&commits, &skipped)
	return commits, skipped, classify(err)
}

// SimilarCommits returns the limit commits whose analysed messages match
// terms best (an OR query ranked by BM25; a term given twice counts twice),
// leaving out commits whose files were not recorded.
func (s *Store) SimilarCommits(ctx context.Context, terms []string, limit int) ([]CommitHit, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	// Equal scores (commits with the same message) are ordered by hash;
	// the search reads past the limit (tieDepth) so that a tie at the cut
	// is decided the same way however the history was stored.
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT c.id, h.score, c.at, c.nfiles FROM
		(SELECT rowid AS id, -bm25(fts_commits) AS score FROM fts_commits WHERE fts_commits MATCH ? ORDER BY rank LIMIT %d) h
		JOIN commits c ON c.id = h.id WHERE c.skip = '' AND c.nfiles > 0 ORDER BY h.score DESC, c.hash LIMIT %d`, tieDepth(limit), limit), orQuery(terms))
	if err != nil {
		return nil, classify(fmt.Errorf("commit search: %w", err))
	}
	defer rows.Close()
	var out []CommitHit
	for rows.Next() {
		var h CommitHit
		if err := rows.Scan(&h.ID, &h.Score, &h.At, &h.NFiles); err != nil {
			return nil, classify(err)
		}
		out = append(out, h)
	}
	return out, classify(rows.Err())
}

// recentCommitsSQL reads the newest commits that touched files, through
// the index on committer time. Commits of one second (a rebased series)
// are in git's order by id (Commit.ID).
const recentCommitsSQL = `SELECT id FROM commits WHERE nfiles > 0 ORDER BY at DESC, id LIMIT ?`

// RecentFiles returns, for each tracked file touched by one of the newest
// n commits that touched files (merges record none), the position of the
// newest of them that touched it: 0 for the newest commit. Commits are
// ordered by committer time, as git log orders them. A mass change counts
// as a commit and credits none of its files (they were not recorded).
func (s *Store) RecentFiles(ctx context.Context, n int) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, recentCommitsSQL, n)
	if err != nil {
		return nil, classify(fmt.Errorf("recent commits: %w", err))
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return nil, classify(err)
	}
	files, err := s.CommitFiles(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i := len(ids) - 1; i >= 0; i-- { // oldest first: the newest position wins
		for _, p := range files[ids[i]] {
			out[p] = i
		}
	}
	return out, nil
}

// CommitFiles returns the recorded files of the given commits that the
// index still tracks (parsed files only), commit id → paths.
func (s *Store) CommitFiles(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := inChunks(ids, func(chunk []int64) error {
		rows, err := s.db.QueryContext(ctx, `SELECT cf.commit_id, cf.path FROM commit_files cf JOIN files f ON f.path = cf.path
			WHERE f.skip = '' AND cf.commit_id IN (`+placeholders(len(chunk))+`) ORDER BY cf.commit_id, cf.path`, int64Args(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("commit files: %w", err))
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var p string
			if err := rows.Scan(&id, &p); err != nil {
				return classify(err)
			}
			out[id] = append(out[id], p)
		}
		return classify(rows.Err())
	})
	return out, err
}

// FileCommitCounts returns how many recorded commits touched each of
// paths (those no commit touched are absent): how often a file changes.
func (s *Store) FileCommitCounts(ctx context.Context, paths []string) (map[string]int, error) {
	out := map[string]int{}
	err := inChunks(paths, func(chunk []string) error {
		rows, err := s.db.QueryContext(ctx, `SELECT path, count(*) FROM commit_files WHERE path IN (`+placeholders(len(chunk))+`) GROUP BY path`, stringArgs(chunk)...)
		if err != nil {
			return classify(fmt.Errorf("file commit counts: %w", err))
		}
		defer rows.Close()
		for rows.Next() {
			var p string
			var n int
			if err := rows.Scan(&p, &n); err != nil {
				return classify(err)
			}
			out[p] = n
		}
		return classify(rows.Err())
	})
	return out, err
}

// FileIDsByPath returns the ids of tracked files by path.
func (s *Store) FileIDsByPath(ctx context.Context, paths []string) (map[string]int64, error) {
	out := map[string]int64{}
	err := inChunks(paths, func(chunk []string) error {
		rows, err := s.db.QueryContext(ctx, `SELECT path, id FROM files WHERE path IN (`+placeholders(len(chunk))+`)`, stringArgs(chunk)...)
		if err != nil {
			return classify(err)
		}
		defer rows.Close()
		for rows.Next() {
			var p string
			var id int64
			if err := rows.Scan(&p, &id); err != nil {
				return classify(err)
			}
			out[p] = id
		}
		return classify(rows.Err())
	})
	return out, err
}
