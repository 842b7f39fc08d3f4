package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The memories of the memory plugin's markdown store (package memory) are
// derived from their files like the code is: one row per file in memories
// and, unless it is skipped, one document in fts_memories. Package memory
// decides what goes in them; these are its statements.

// MemoryStat is what a sync compares with a memory file's stat.
type MemoryStat struct {
	ID    int64
	Path  string
	Size  int64
	MTime int64 // UnixNano
}

// MemoryStats returns the stat fields of the memories of the given scopes.
func (s *Store) MemoryStats(ctx context.Context, scopes []string) ([]MemoryStat, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, path, size, mtime FROM memories WHERE scope IN (`+placeholders(len(scopes))+`)`, stringArgs(scopes)...)
	if err != nil {
		return nil, classify(fmt.Errorf("read memory index: %w", err))
	}
	defer rows.Close()
	var out []MemoryStat
	for rows.Next() {
		var m MemoryStat
		if err := rows.Scan(&m.ID, &m.Path, &m.Size, &m.MTime); err != nil {
			return nil, classify(err)
		}
		out = append(out, m)
	}
	return out, classify(rows.Err())
}

// CountMemories counts the indexed memories (files that are not skipped).
func (s *Store) CountMemories(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE skip = ''`).Scan(&n)
	return n, classify(err)
}

// MemoryPaths returns the path of every memory file in the index.
func (s *Store) MemoryPaths(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM memories`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, classify(err)
		}
		out = append(out, p)
	}
	return out, classify(rows.Err())
}

// MemoryRow is one memory file's row in memories and, unless Skip is set,
// its document in fts_memories (analysed terms, space-separated).
type MemoryRow struct {
	ID, Size, MTime, Created, Updated int64
	Path, Skip, Scope, Slug, Type     string
	Title, Tags, Severity, Files      string
	Terms                             string
	FTSTitle, FTSTags, FTSFiles       string
	FTSBody                           string
}

// WriteMemories deletes the memories of the ids gone and writes rows
// (sorted by ID: FTS5 flushes its pending terms to a new segment whenever a
// rowid is not above the last one written in the transaction) in one
// transaction of the index.
func (s *Store) WriteMemories(ctx context.Context, gone []int64, rows []MemoryRow) error {
	// The statements are short and many: a cancellable context would make
	// the driver watch each one in a goroutine. Callers check ctx between
	// batches instead.
	qctx := quick(ctx)
	tx, err := s.beginIndexWrite(qctx)
	if err != nil {
		return fmt.Errorf("update memory index: %w", err)
	}
	defer tx.Rollback()
	for _, id := range gone {
		if _, err := tx.ExecContext(qctx, `DELETE FROM fts_memories WHERE rowid = ?`, id); err != nil {
			return classify(fmt.Errorf("update memory index: %w", err))
		}
		if _, err := tx.ExecContext(qctx, `DELETE FROM memories WHERE id = ?`, id); err != nil {
			return classify(fmt.Errorf("update memory index: %w", err))
		}
	}
	insRow, err := prepareInserter(qctx, tx, `INSERT OR REPLACE INTO memories(id, path, size, mtime, skip, scope, slug, type, title, tags, severity, files, created, updated, terms) VALUES`, 15)
	if err != nil {
		return classify(fmt.Errorf("update memory index: %w", err))
	}
	insDoc, err := prepareInserter(qctx, tx, `INSERT INTO fts_memories(rowid, title, tags, files, body) VALUES`, 5)
	if err != nil {
		return classify(fmt.Errorf("update memory index: %w", err))
	}
	err = insRow.insert(qctx, len(rows), func(i int, dst []any) []any {
		r := &rows[i]
		return append(dst, r.ID, r.Path, r.Size, r.MTime, r.Skip, r.Scope, r.Slug, r.Type, r.Title, r.Tags, r.Severity, r.Files, r.Created, r.Updated, r.Terms)
	})
	if err != nil {
		return classify(fmt.Errorf("index memories: %w", err))
	}
	docs := make([]*MemoryRow, 0, len(rows))
	for i := range rows {
		if rows[i].Skip == "" {
			docs = append(docs, &rows[i])
		}
	}
	err = insDoc.insert(qctx, len(docs), func(i int, dst []any) []any {
		r := docs[i]
		return append(dst, r.ID, r.FTSTitle, r.FTSTags, r.FTSFiles, r.FTSBody)
	})
	if err != nil {
		return classify(fmt.Errorf("index memories: %w", err))
	}
	if err := tx.Commit(); err != nil {
		return classify(fmt.Errorf("update memory index: %w", err))
	}
	return nil
}

// MetaMemoryAnalyzer is the meta key of the analyzer version the indexed
// memories' terms were written with.
const MetaMemoryAnalyzer = "memory_analyzer"

// ForgetMemoriesAnalyzedBefore empties the memory index when its terms were
// written by another analyzer version than version, and records version,
// in one transaction. Memories are synced by size and time, which an
// analyzer change leaves alone: emptied, the next syncs analyze every file
// again, keeping their progress across calls cut short as any sync does.
// It reports whether it emptied the index.
func (s *Store) ForgetMemoriesAnalyzedBefore(ctx context.Context, version string) (bool, error) {
	if v, err := s.Meta(ctx, MetaMemoryAnalyzer); err != nil || v == version {
		return false, err
	}
	qctx := quick(ctx)
	tx, err := s.beginIndexWrite(qctx)
	if err != nil {
		return false, fmt.Errorf("update memory index: %w", err)
	}
	defer tx.Rollback()
	var v string
	err = tx.QueryRowContext(qctx, `SELECT value FROM meta WHERE key = ?`, MetaMemoryAnalyzer).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, classify(fmt.Errorf("update memory index: %w", err))
	}
	if v == version { // another process did it meanwhile
		return false, nil
	}
	for _, q := range []string{
		`INSERT INTO fts_memories(fts_memories) VALUES('delete-all')`,
		`DELETE FROM memories`,
	} {
		if _, err := tx.ExecContext(qctx, q); err != nil {
			return false, classify(fmt.Errorf("update memory index: %w", err))
		}
	}
	if _, err := tx.ExecContext(qctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, MetaMemoryAnalyzer, version); err != nil {
		return false, classify(fmt.Errorf("update memory index: %w", err))
	}
	if err := tx.Commit(); err != nil {
		return false, classify(fmt.Errorf("update memory index: %w", err))
	}
	return true, nil
}

// MemorySummary is what a search or a lookup reads of a memory.
type MemorySummary struct {
	Scope, Slug, Type, Title, Path string
	Tags                           string // space-separated
	Severity                       string
	Files                          string // newline-separated
	Created, Updated               int64  // UnixMilli
	Terms                          string // distinct analysed terms, space-separated
	// Score is the BM25F score of a search (higher is better).
	Score float64
}

const memorySummaryCols = `m.scope, m.slug, m.type, m.title, m.tags, m.severity, m.files, m.path, m.created, m.updated, m.terms`

func scanMemorySummary(rows *sql.Rows, extra ...any) (MemorySummary, error) {
	var m MemorySummary
	dst := append([]any{&m.Scope, &m.Slug, &m.Type, &m.Title, &m.Tags, &m.Severity, &m.Files, &m.Path, &m.Created, &m.Updated, &m.Terms}, extra...)
	return m, classify(rows.Scan(dst...))
}

// MemoryFilter restricts a memory search (empty: any).
type MemoryFilter struct {
	Scopes, Types, Tags []string
}

// MemoryQuery is a ranked search of the memories.
type MemoryQuery struct {
	// Match is an FTS5 expression over the analysed terms.
	Match string
	// Weights are the BM25F weights of title, tags, files and body.
	Weights [4]float64
	Filter  MemoryFilter
	// Fetch is how many ranked candidates the filter chooses from (it
	// applies after ranking); Limit, how many results at most.
	Fetch, Limit int
}

// SearchMemories ranks the memories matching q.Match with BM25F, best
// first.
func (s *Store) SearchMemories(ctx context.Context, q MemoryQuery) ([]MemorySummary, error) {
	where, args := q.Filter.sql()
	w := q.Weights
	// bm25() is only available in the FTS query itself, so the score is
	// computed there and carried out by rank. Its weights must be
	// literals.
	sqlText := `SELECT ` + memorySummaryCols + `, -f.rank
		FROM (SELECT rowid, bm25(fts_memories, ` + fmt.Sprintf("%g, %g, %g, %g", w[0], w[1], w[2], w[3]) + `) AS rank FROM fts_memories WHERE fts_memories MATCH ? ORDER BY rank LIMIT ?) f
		JOIN memories m ON m.id = f.rowid WHERE m.skip = ''` + where + ` ORDER BY f.rank LIMIT ?`
	all := append([]any{q.Match, q.Fetch}, args...)
	all = append(all, q.Limit)
	rows, err := s.db.QueryContext(ctx, sqlText, all...)
	if err != nil {
		return nil, classify(fmt.Errorf("search memories: %w", err))
	}
	defer rows.Close()
	var out []MemorySummary
	for rows.Next() {
		var score float64
		m, err := scanMemorySummary(rows, &score)
		if err != nil {
			return nil, err
		}
		m.Score = score
		out = append(out, m)
	}
	return out, classify(rows.Err())
}

// sql is f as conditions to AND to a query of memories m.
func (f MemoryFilter) sql() (string, []any) {
	var b strings.Builder
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		b.WriteString(" AND " + col + " IN (" + placeholders(len(vals)) + ")")
		args = append(args, stringArgs(vals)...)
	}
	in("m.scope", f.Scopes)
	in("m.type", f.Types)
	for _, t := range f.Tags {
		b.WriteString(" AND (' ' || m.tags || ' ') LIKE ?")
		args = append(args, "% "+t+" %")
	}
	return b.String(), args
}

// Empty reports whether f lets every memory through.
func (f MemoryFilter) Empty() bool {
	return len(f.Scopes) == 0 && len(f.Types) == 0 && len(f.Tags) == 0
}

// MemoryDocFreqs returns how many memories hold each term (0 for none).
func (s *Store) MemoryDocFreqs(ctx context.Context, terms []string) (map[string]float64, error) {
	// One lookup per term: fts5vocab answers term = ? from the index, while
	// term IN (...) scans the whole vocabulary.
	stmt, err := s.db.PrepareContext(ctx, `SELECT doc FROM fts_memories_vocab WHERE term = ?`)
	if err != nil {
		return nil, classify(fmt.Errorf("memory term statistics: %w", err))
	}
	defer stmt.Close()
	out := make(map[string]float64, len(terms))
	for _, t := range terms {
		var df float64
		if err := stmt.QueryRowContext(ctx, t).Scan(&df); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, classify(fmt.Errorf("memory term statistics: %w", err))
		}
		out[t] = df
	}
	return out, nil
}

// AttachedMemories returns the memories attached to any file (their files
// frontmatter is set), by slug.
func (s *Store) AttachedMemories(ctx context.Context) ([]MemorySummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+memorySummaryCols+` FROM memories m WHERE m.files != '' AND m.skip = '' ORDER BY m.slug`)
	if err != nil {
		return nil, classify(fmt.Errorf("attached memories: %w", err))
	}
	defer rows.Close()
	var out []MemorySummary
	for rows.Next() {
		m, err := scanMemorySummary(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, classify(rows.Err())
}
