// Package collect is the context collector of the seed's ContextCollector:
// sources register entries for a session, and one injection consumes them,
// merged in priority order, without repeating what the session already saw.
//
// Every hook call is a separate process, so the collector's state lives in
// the store (tables session_pending, session_injected, session_stats) and
// Consume runs in one write transaction: concurrent hook processes of one
// session never inject the same entry twice.
package collect

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/store"
)

// Priority orders entries in the merged context.
type Priority int

// Priorities, most important first.
const (
	Critical Priority = iota
	High
	Normal
	Low
)

var priorityNames = [...]string{"critical", "high", "normal", "low"}

// String returns the priority's name.
func (p Priority) String() string {
	if p < Critical || p > Low {
		return "normal"
	}
	return priorityNames[p]
}

// Separator joins merged entries.
const Separator = "\n\n---\n\n"

// Entry is one piece of context from one source.
type Entry struct {
	Source   string         `json:"source"`
	ID       string         `json:"id"`
	Content  string         `json:"content"`
	Priority Priority       `json:"priority"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Fingerprint, when set, stands for Content in the per-session dedup:
	// what identifies the entry's substance, so that it is not injected
	// again when only a detail that does not matter changed (a code
	// entry's line number after an edit above it).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Covers are keys of the parts the entry carries (the members of a
	// list): once it is injected, Injected reports each of them, so that
	// the source can later send only the parts that are new.
	Covers []string `json:"covers,omitempty"`
}

// fingerprintKey and coversKey carry Entry.Fingerprint and Entry.Covers
// in the stored metadata.
const (
	fingerprintKey = "_fingerprint"
	coversKey      = "_covers"
)

// dedupHash is what the per-session dedup compares for e.
func (e Entry) dedupHash() string {
	if e.Fingerprint != "" {
		return Hash(e.Fingerprint)
	}
	return Hash(e.Content)
}

// Key is the dedup key source:id.
func (e Entry) Key() string { return e.Source + ":" + e.ID }

// Result is what Consume merged.
type Result struct {
	Merged    string
	Entries   []Entry
	DedupHits int // entries skipped because the session already saw them
	Dropped   int // entries that did not fit the budget
	// HistoryErr is ConsumePrompt's failure to record the prompt history;
	// the entries were injected all the same.
	HistoryErr error
}

// Collector is one session's collector.
type Collector struct {
	st      *store.Store
	session string
	now     func() time.Time
}

// New returns the collector of a session.
func New(st *store.Store, session string) *Collector {
	if session == "" {
		session = "default"
	}
	return &Collector{st: st, session: session, now: time.Now}
}

// Register adds entries; an entry with the key of a pending one replaces it.
func (c *Collector) Register(ctx context.Context, entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	tx, err := c.st.BeginState(ctx)
	if err != nil {
		return fmt.Errorf("register context: %w", err)
	}
	defer tx.Rollback()
	// created orders the pending entries: the registration time in
	// milliseconds, times 1000, plus the entry's position in this call, so
	// that a source's entries keep the order it gave them (by relevance).
	now := c.now().UnixMilli() * 1000
	for i, e := range entries {
		if strings.TrimSpace(e.Content) == "" {
			continue
		}
		md := e.Metadata
		if e.Fingerprint != "" || len(e.Covers) > 0 {
			md = make(map[string]any, len(e.Metadata)+2)
			for k, v := range e.Metadata {
				md[k] = v
			}
			if e.Fingerprint != "" {
				md[fingerprintKey] = e.Fingerprint
			}
			if len(e.Covers) > 0 {
				md[coversKey] = e.Covers
			}
		}
		meta, err := json.Marshal(md)
		if err != nil {
			meta = []byte("{}")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_pending(session, key, source, id, content, priority, metadata, created)
			VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(session, key) DO UPDATE SET content = excluded.content,
			priority = excluded.priority, metadata = excluded.metadata, created = excluded.created`,
			c.session, e.Key(), e.Source, e.ID, e.Content, int(e.Priority), string(meta), now+int64(min(i, 999))); err != nil {
			return fmt.Errorf("register context %s: %w", e.Key(), err)
		}
	}
	return tx.Commit()
}

// Consume takes the session's pending entries, drops those already injected
// with the same content, merges the rest in priority order (then
// registration order) within budget characters, and records them as
// injected. Pending entries are cleared either way.
func (c *Collector) Consume(ctx context.Context, budget int) (Result, error) {
	return c.consume(ctx, budget, nil)
}

// ConsumePrompt is Consume for a prompt: in the same transaction it also
// records the prompt and each entry injected for it in the session's prompt
// history (store.RecordPrompt), so that a person can see what their
// assistant was told and whether it then used it (ctxls sessions). An
// entry's file, section and relevance come from its Metadata keys "path",
// "section" and "relevance".
func (c *Collector) ConsumePrompt(ctx context.Context, budget int, prompt string) (Result, error) {
	return c.consume(ctx, budget, func(tx *sql.Tx, entries []Entry) error {
		p := store.Prompt{Session: c.session, At: c.now(), Text: prompt, Injected: make([]store.Injection, 0, len(entries))}
		for _, e := range entries {
			in := store.Injection{Source: e.Source, ID: e.ID}
			in.Path, _ = e.Metadata["path"].(string)
			in.Section, _ = e.Metadata["section"].(string)
			in.Relevance, _ = e.Metadata["relevance"].(float64)
			p.Injected = append(p.Injected, in)
		}
		return store.RecordPrompt(ctx, tx, p)
	})
}

// consume is Consume; record, if set, is called with what was injected
// before the transaction commits.
func (c *Collector) consume(ctx context.Context, budget int, record func(*sql.Tx, []Entry) error) (Result, error) {
	var res Result
	tx, err := c.st.BeginState(ctx)
	if err != nil {
		return res, fmt.Errorf("consume context: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT p.source, p.id, p.content, p.priority, p.metadata, coalesce(i.hash, '')
		FROM session_pending p LEFT JOIN session_injected i ON i.session = p.session AND i.key = p.key
		WHERE p.session = ? ORDER BY p.priority, p.created, p.key`, c.session)
	if err != nil {
		return res, fmt.Errorf("consume context: %w", err)
	}
	type pending struct {
		e    Entry
		seen string
	}
	var all []pending
	for rows.Next() {
		var p pending
		var meta string
		var prio int
		if err := rows.Scan(&p.e.Source, &p.e.ID, &p.e.Content, &prio, &meta, &p.seen); err != nil {
			rows.Close()
			return res, err
		}
		p.e.Priority = Priority(prio)
		json.Unmarshal([]byte(meta), &p.e.Metadata)
		if fp, ok := p.e.Metadata[fingerprintKey].(string); ok {
			p.e.Fingerprint = fp
			delete(p.e.Metadata, fingerprintKey)
		}
		if covers, ok := p.e.Metadata[coversKey].([]any); ok {
			for _, k := range covers {
				if k, ok := k.(string); ok {
					p.e.Covers = append(p.e.Covers, k)
				}
			}
			delete(p.e.Metadata, coversKey)
		}
		all = append(all, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, err
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].e.Priority < all[b].e.Priority })
	var b strings.Builder
	now := c.now().UnixMilli()
	for _, p := range all {
		h := p.e.dedupHash()
		if p.seen == h {
			res.DedupHits++
			continue
		}
		add := len(p.e.Content)
		if b.Len() > 0 {
			add += len(Separator)
		}
		if b.Len()+add > budget {
			res.Dropped++
			continue
		}
		if b.Len() > 0 {
			b.WriteString(Separator)
		}
		b.WriteString(p.e.Content)
		res.Entries = append(res.Entries, p.e)
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_injected(session, key, hash, at) VALUES(?,?,?,?)
			ON CONFLICT(session, key) DO UPDATE SET hash = excluded.hash, at = excluded.at`, c.session, p.e.Key(), h, now); err != nil {
			return res, err
		}
		for _, k := range p.e.Covers {
			if _, err := tx.ExecContext(ctx, `INSERT INTO session_injected(session, key, hash, at) VALUES(?,?,?,?)
				ON CONFLICT(session, key) DO UPDATE SET at = excluded.at`, c.session, k, Hash(k), now); err != nil {
				return res, err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_pending WHERE session = ?`, c.session); err != nil {
		return res, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO session_stats(session, injections, dedup_hits, updated) VALUES(?,?,?,?)
		ON CONFLICT(session) DO UPDATE SET injections = injections + excluded.injections,
		dedup_hits = dedup_hits + excluded.dedup_hits, updated = excluded.updated`,
		c.session, len(res.Entries), res.DedupHits, now); err != nil {
		return res, err
	}
	if record != nil {
		// The history must never cost the injection: a failed write of it
		// is undone alone and reported, and the rest commits.
		if _, err := tx.ExecContext(ctx, `SAVEPOINT history`); err != nil {
			return res, fmt.Errorf("consume context: %w", err)
		}
		if err := record(tx, res.Entries); err != nil {
			res.HistoryErr = err
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO history`); err != nil {
				return res, fmt.Errorf("consume context: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE history`); err != nil {
			return res, fmt.Errorf("consume context: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("consume context: %w", err)
	}
	res.Merged = b.String()
	return res, nil
}

// injectedHash returns the hash of what the session was given under key,
// and whether it was given anything.
func (c *Collector) injectedHash(ctx context.Context, key string) (string, bool) {
	var h string
	err := c.st.DB().QueryRowContext(ctx, `SELECT hash FROM session_injected WHERE session = ? AND key = ?`, c.session, key).Scan(&h)
	return h, err == nil
}

// WasInjected reports whether e, as it is now, was already injected in the
// session: Consume would drop it.
func (c *Collector) WasInjected(ctx context.Context, e Entry) bool {
	h, ok := c.injectedHash(ctx, e.Key())
	return ok && h == e.dedupHash()
}

// Injected reports whether the session was given anything under this key,
// whatever its content; sources whose rendering varies between calls (a
// relevance percentage) dedup by key with it.
func (c *Collector) Injected(ctx context.Context, key string) bool {
	_, ok := c.injectedHash(ctx, key)
	return ok
}

// Forget clears what the session was given, so that it is offered again
// (after compaction the model has lost it).
func (c *Collector) Forget(ctx context.Context) error {
	_, err := c.st.DB().ExecContext(ctx, `DELETE FROM session_injected WHERE session = ?`, c.session)
	return err
}

// Stats returns the session's injection and dedup counters.
func (c *Collector) Stats(ctx context.Context) (injections, dedupHits int, err error) {
	err = c.st.DB().QueryRowContext(ctx, `SELECT injections, dedup_hits FROM session_stats WHERE session = ?`, c.session).Scan(&injections, &dedupHits)
	if err != nil {
		return 0, 0, nil
	}
	return injections, dedupHits, nil
}

// Hash identifies content for dedup.
func Hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:12])
}
