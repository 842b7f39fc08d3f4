package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Pending is an entry a context source registered for a session and the
// collector has not injected yet (package collect owns its meaning).
type Pending struct {
	Key      string // source:id, the dedup key
	Source   string
	ID       string
	Content  string
	Priority int
	Metadata string // JSON
	// Created orders entries of one priority: registration order.
	Created int64
	// InjectedHash is the hash of what the session was last given under
	// Key, "" when nothing; filled by Consumption.Pending.
	InjectedHash string
}

// RegisterPending adds a session's pending entries in one write of the
// state file; an entry with the key of a pending one replaces it.
func (s *Store) RegisterPending(ctx context.Context, session string, entries []Pending) error {
	tx, err := s.beginStateWrite(ctx)
	if err != nil {
		return fmt.Errorf("register context: %w", err)
	}
	defer tx.Rollback()
	for _, e := range entries {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_pending(session, key, source, id, content, priority, metadata, created)
			VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(session, key) DO UPDATE SET content = excluded.content,
			priority = excluded.priority, metadata = excluded.metadata, created = excluded.created`,
			session, e.Key, e.Source, e.ID, e.Content, e.Priority, e.Metadata, e.Created); err != nil {
			return classify(fmt.Errorf("register context %s: %w", e.Key, err))
		}
	}
	return classify(tx.Commit())
}

// InjectedHash returns the hash of what a session was given under key, and
// whether it was given anything.
func (s *Store) InjectedHash(ctx context.Context, session, key string) (string, bool, error) {
	var h string
	err := s.db.QueryRowContext(ctx, `SELECT hash FROM session_injected WHERE session = ? AND key = ?`, session, key).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, classify(fmt.Errorf("read injected context: %w", err))
	}
	return h, true, nil
}

// ForgetInjected clears what a session was given, so that it is offered
// again.
func (s *Store) ForgetInjected(ctx context.Context, session string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM session_injected WHERE session = ?`, session)
	return classify(err)
}

// InjectionStats returns a session's injection and dedup counters; a
// session never seen has none (and no error).
func (s *Store) InjectionStats(ctx context.Context, session string) (injections, dedupHits int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT injections, dedup_hits FROM session_stats WHERE session = ?`, session).Scan(&injections, &dedupHits)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	return injections, dedupHits, classify(err)
}

// Consumption is the collector's consuming transaction on a session's
// state: read what is pending, mark what is injected, count, and record
// the prompt history, all committed at once so that concurrent hook
// processes of one session never inject an entry twice.
type Consumption struct {
	tx      *sql.Tx
	session string
}

// BeginConsume starts a session's consuming transaction; Commit or
// Rollback ends it.
func (s *Store) BeginConsume(ctx context.Context, session string) (*Consumption, error) {
	tx, err := s.beginStateWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("consume context: %w", err)
	}
	return &Consumption{tx: tx, session: session}, nil
}

// Pending returns the session's pending entries with the hash of what it
// was given under each key, by priority, then registration order.
func (c *Consumption) Pending(ctx context.Context) ([]Pending, error) {
	rows, err := c.tx.QueryContext(ctx, `SELECT p.key, p.source, p.id, p.content, p.priority, p.metadata, p.created, coalesce(i.hash, '')
		FROM session_pending p LEFT JOIN session_injected i ON i.session = p.session AND i.key = p.key
		WHERE p.session = ? ORDER BY p.priority, p.created, p.key`, c.session)
	if err != nil {
		return nil, classify(fmt.Errorf("consume context: %w", err))
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		var p Pending
		if err := rows.Scan(&p.Key, &p.Source, &p.ID, &p.Content, &p.Priority, &p.Metadata, &p.Created, &p.InjectedHash); err != nil {
			return nil, classify(err)
		}
		out = append(out, p)
	}
	return out, classify(rows.Err())
}

// Injected records that the session was given hash under key at (UnixMilli).
func (c *Consumption) Injected(ctx context.Context, key, hash string, at int64) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO session_injected(session, key, hash, at) VALUES(?,?,?,?)
		ON CONFLICT(session, key) DO UPDATE SET hash = excluded.hash, at = excluded.at`, c.session, key, hash, at)
	return classify(err)
}

// Covered records that the session was given a part under key (a list's
// member); a part already recorded keeps its hash and gets the new time.
func (c *Consumption) Covered(ctx context.Context, key, hash string, at int64) error {
	_, err := c.tx.ExecContext(ctx, `INSERT INTO session_injected(session, key, hash, at) VALUES(?,?,?,?)
		ON CONFLICT(session, key) DO UPDATE SET at = excluded.at`, c.session, key, hash, at)
	return classify(err)
}

// Done clears the session's pending entries and adds to its counters.
func (c *Consumption) Done(ctx context.Context, injections, dedupHits int, at int64) error {
	if _, err := c.tx.ExecContext(ctx, `DELETE FROM session_pending WHERE session = ?`, c.session); err != nil {
		return classify(err)
	}
	_, err := c.tx.ExecContext(ctx, `INSERT INTO session_stats(session, injections, dedup_hits, updated) VALUES(?,?,?,?)
		ON CONFLICT(session) DO UPDATE SET injections = injections + excluded.injections,
		dedup_hits = dedup_hits + excluded.dedup_hits, updated = excluded.updated`,
		c.session, injections, dedupHits, at)
	return classify(err)
}

// RecordPrompt records a prompt and what was injected for it in the prompt
// history (RecordPrompt). The history must never cost the injection: a
// failed write of it is undone alone and returned as historyErr, and the
// rest of the transaction goes on; err is a failure of the transaction.
func (c *Consumption) RecordPrompt(ctx context.Context, p Prompt) (historyErr, err error) {
	if _, err := c.tx.ExecContext(ctx, `SAVEPOINT history`); err != nil {
		return nil, classify(fmt.Errorf("consume context: %w", err))
	}
	if historyErr = RecordPrompt(ctx, c.tx, p); historyErr != nil {
		if _, err := c.tx.ExecContext(ctx, `ROLLBACK TO history`); err != nil {
			return historyErr, classify(fmt.Errorf("consume context: %w", err))
		}
	}
	if _, err := c.tx.ExecContext(ctx, `RELEASE history`); err != nil {
		return historyErr, classify(fmt.Errorf("consume context: %w", err))
	}
	return historyErr, nil
}

// Commit ends the consumption, making it visible to other processes.
func (c *Consumption) Commit() error {
	if err := c.tx.Commit(); err != nil {
		return classify(fmt.Errorf("consume context: %w", err))
	}
	return nil
}

// Rollback abandons the consumption; after Commit it does nothing.
func (c *Consumption) Rollback() error { return c.tx.Rollback() }
