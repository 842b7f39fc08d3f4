package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Activity is one recorded event of what the person or the assistant did.
type Activity struct {
	At      time.Time
	Session string
	Origin  string // "editor" or "assistant"
	Type    string
	Path    string
	Symbols []string
	Line    int
	Text    string
}

// maxActivity bounds the activity table; older rows are pruned on insert.
const maxActivity = 5000

// RecordActivity appends events and prunes old ones. An assistant's tool
// call on a file also marks the session's earlier injections of that file
// as used (see sessions.go), in the same transaction.
func (s *Store) RecordActivity(ctx context.Context, acts ...Activity) error {
	if len(acts) == 0 {
		return nil
	}
	tx, err := s.beginStateWrite(ctx)
	if err != nil {
		return fmt.Errorf("record activity: %w", err)
	}
	defer tx.Rollback()
	for _, a := range acts {
		if a.At.IsZero() {
			a.At = time.Now()
		}
		if len(a.Text) > 2000 {
			a.Text = a.Text[:2000]
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO activity(at, session, origin, type, path, symbols, line, text) VALUES(?,?,?,?,?,?,?,?)`,
			a.At.UnixMilli(), a.Session, a.Origin, a.Type, a.Path, strings.Join(a.Symbols, " "), a.Line, a.Text); err != nil {
			return classify(fmt.Errorf("record activity: %w", err))
		}
		if err := markUsed(ctx, tx, a); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM activity WHERE id <= (SELECT max(id) FROM activity) - ?`, maxActivity); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// RecentActivity returns events newer than since, newest first, at most
// limit.
func (s *Store) RecentActivity(ctx context.Context, since time.Time, limit int) ([]Activity, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, session, origin, type, path, symbols, line, text FROM activity
		WHERE at >= ? ORDER BY id DESC LIMIT `+limitSQL(limit), since.UnixMilli())
	if err != nil {
		return nil, classify(fmt.Errorf("recent activity: %w", err))
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		var a Activity
		var at int64
		var syms string
		if err := rows.Scan(&at, &a.Session, &a.Origin, &a.Type, &a.Path, &syms, &a.Line, &a.Text); err != nil {
			return nil, classify(err)
		}
		a.At = time.UnixMilli(at)
		if syms != "" {
			a.Symbols = strings.Fields(syms)
		}
		out = append(out, a)
	}
	return out, classify(rows.Err())
}

// WorkingSet returns the files most recently opened or edited (newest
// first, distinct), from events newer than since.
func (s *Store) WorkingSet(ctx context.Context, since time.Time, limit int) ([]string, error) {
	// Newest first, each path at its latest event, stopping at limit paths:
	// a few rows on the hooks' path, where grouping the whole window (up to
	// maxActivity rows) was a sixth of a prompt's time. "+at" keeps SQLite
	// walking the rowids backwards instead of sorting the window's rows.
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM activity
		WHERE +at >= ? AND path != '' AND type IN ('file_open', 'file_edit', 'selection', 'symbol_hover', 'tool')
		ORDER BY id DESC`, since.UnixMilli())
	if err != nil {
		return nil, classify(fmt.Errorf("working set: %w", err))
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for rows.Next() && (limit <= 0 || len(out) < limit) {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, classify(err)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, classify(rows.Err())
}
