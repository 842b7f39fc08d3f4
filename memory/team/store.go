// Package team is the enterprise memory scope on PostgreSQL: the memories,
// graph and full-text index a team shares, one database for every machine.
// Memories keep the file scopes' fields, validation and file format (the
// file as written is stored, so export gives it back unchanged); every
// link is stored in both directions, with the inverse label, in the
// transaction that makes it; an update names the version it read and fails
// with ErrConflict when another writer got there first. Search scores the
// analyzer's terms with the file scopes' BM25F weights (decision 0097).
//
// Nothing here builds SQL from input: values are parameters, and the only
// name put into SQL, the schema, is a validated identifier.
package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/memory"
)

// Options configure Open.
type Options struct {
	// DSN is the connection string; it is never logged or put into an
	// error.
	DSN string
	// Schema holds the tables ("" is ctxls).
	Schema string
	// Project is the project key separating this project's rows.
	Project string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxConns bounds the pool (0 means 4).
	MaxConns int32
}

// Store is an open enterprise scope.
type Store struct {
	pool    *pgxpool.Pool
	schema  string
	project string
	now     func() time.Time
	version int
	// aborted counts writes the server aborted (Aborted).
	aborted atomic.Int64
}

// Errors of the store.
var (
	// ErrConflict means the memory changed since the version the caller
	// read: read it again and redo the change.
	ErrConflict = errors.New("the memory was changed by another writer")
	// ErrUnreachable means the database could not be reached.
	ErrUnreachable = errors.New("the enterprise memory database is unreachable")
)

// Open connects to the database and brings its schema to this build's
// version (once, under an advisory lock).
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Schema == "" {
		opts.Schema = "ctxls"
	}
	if !config.ValidSchemaName(opts.Schema) {
		return nil, fmt.Errorf("enterprise memory: schema %q must be a lowercase identifier", opts.Schema)
	}
	if opts.DSN == "" {
		return nil, errors.New("enterprise memory: no DSN: set memory.enterprise.dsn or CTXLS_ENTERPRISE_DSN")
	}
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		// pgx's message quotes the DSN with its password; give the
		// reason only.
		return nil, fmt.Errorf("enterprise memory: the DSN is not a valid PostgreSQL connection string: %s", dsnReason(err))
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 4
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "ctxls"
	// Every statement names its tables without the schema.
	cfg.ConnConfig.RuntimeParams["search_path"] = opts.Schema
	s := &Store{schema: opts.Schema, project: opts.Project, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("enterprise memory: %w", err)
	}
	err = s.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
		s.version, err = migrate(ctx, c.Conn(), s.schema)
		return err
	})
	if err == nil {
		err = s.reanalyze(ctx)
	}
	if err != nil {
		s.pool.Close()
		return nil, classify(err)
	}
	return s, nil
}

// dsnReason is a parse error's reason without the connection string.
func dsnReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return "malformed"
}

// classify marks connection failures as ErrUnreachable, so callers can
// tell an outage from a refusal.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("enterprise memory: %w", err)
	}
	if errors.Is(err, ErrNewerSchema) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("enterprise memory: %w", err)
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, context.DeadlineExceeded) || isConnectError(err) {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return fmt.Errorf("enterprise memory: %w", err)
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "failed to connect")
}

// Close closes the connections.
func (s *Store) Close() { s.pool.Close() }

// Schema is the schema's name.
func (s *Store) Schema() string { return s.schema }

// Version is the schema version found (or made) by Open.
func (s *Store) Version() int { return s.version }

// Pool is the connection pool, for health checks and notifications.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Record is a memory with its version.
type Record struct {
	*memory.Memory
	// Version counts the memory's writes; pass it to Update and Delete.
	Version int64
}

// Locator is what stands for a memory's file path in summaries and hits.
func (s *Store) Locator(slug string) string { return "postgres:" + s.schema + "/" + slug }

// tx runs fn in a transaction and commits it.
func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, s.pool, fn)
	return classify(err)
}

// writeRetries bounds how often a write is tried again after the server
// chose it as a deadlock's victim or could not serialize it.
const writeRetries = 4

// relockRetries bounds how often a write is run again because the rows it
// must lock changed between choosing them and locking them (errRelock).
const relockRetries = 16

// errRelock means a write transaction found, holding its locks, that it
// needs a row it did not lock (a memory linked to it meanwhile, a link
// its Update function added on a row changed meanwhile). Locking that row
// now would break the lock order, so the transaction is rolled back and
// run again, choosing its rows afresh.
var errRelock = errors.New("the rows to lock changed while they were being locked")

// writeTx is tx for the writes (Write, Update, Delete, Rename, Link,
// Unlink). Each of them first locks every memories row it will change or
// reference, in ascending slug order and in one statement (lockRows,
// lockWithLinkers), and takes no other row lock on memories afterwards:
// writers that meet wait for one another in one order and never deadlock,
// where writers locking in scan order did (two updates linking a and b
// from either end), each deadlock costing the server a
// deadlock_timeout's wait and one writer an abort.
//
// A transaction that finds its rows changed under it (errRelock) is run
// again at once. An abort by the server as a deadlock's victim (40P01) or
// for a serialization failure (40001) is counted (Aborted) and retried a
// few times after a short random wait, as a safety net: the lock order
// leaves no deadlock among these writes, but a role's own statements or a
// future write might. fn must be safe to run again: each of those bodies
// reads what it changes inside its transaction and keeps no state outside
// it.
func (s *Store) writeTx(ctx context.Context, fn func(pgx.Tx) error) error {
	aborts, relocks := 0, 0
	for {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		var pe *pgconn.PgError
		switch {
		case errors.Is(err, errRelock) && relocks < relockRetries:
			relocks++
			continue
		case errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001"):
			s.aborted.Add(1)
			if aborts >= writeRetries {
				return classify(err)
			}
			aborts++
			select {
			case <-ctx.Done():
				return classify(err)
			case <-time.After(time.Duration(1+rand.IntN(20*aborts)) * time.Millisecond):
			}
			continue
		}
		return classify(err)
	}
}

// Aborted counts the write transactions of this Store that the server
// aborted as a deadlock's victim (40P01) or for a serialization failure
// (40001), retried or not. With every write locking in one order it stays
// 0; a count above it is a lock-order bug worth a report.
func (s *Store) Aborted() int64 { return s.aborted.Load() }

// lockRows locks the rows of the memories among slugs, in ascending slug
// order, in one statement, and returns those that exist. (PostgreSQL sorts
// before it applies the locking clause, so the rows are locked in the
// ORDER BY's order; the order is the database's collation, the same for
// every writer.) Every write locks
// what it will change or reference this way before any other statement
// that locks rows (writeTx): an insert's foreign-key check takes KEY SHARE
// on both memories an edge joins, and an update locks every row it
// changes, but only rows this transaction holds already. A memory made
// after this statement is not among those returned, and the write treats
// it as absent (a link to it stays in the frontmatter, as a link written
// before its target is).
func (s *Store) lockRows(ctx context.Context, tx pgx.Tx, slugs []string) (map[string]bool, error) {
	return s.lockQuery(ctx, tx, `SELECT slug FROM memories WHERE project = $1 AND slug = ANY($2) ORDER BY slug FOR UPDATE`, s.project, slugs)
}

// lockWithLinkers locks, as lockRows does, the rows of slug, of extra and
// of every memory whose links name slug: those Delete and Rename rewrite.
// The linkers are chosen from the statement's snapshot, before it waits
// for slug's lock; one that linked slug while this waited is missing from
// the set. So, holding slug's lock, it reads the linkers again: no memory
// can start or stop naming slug from then until this transaction ends,
// since every write that changes a links column holds the rows of both
// ends of each link it adds or removes (link and unlink through Link,
// Unlink, Write and Update; Rename and Delete through this; Import locks
// the memories its rows name). A linker found then outside the set is
// errRelock: the transaction starts again rather than lock it out of order.
func (s *Store) lockWithLinkers(ctx context.Context, tx pgx.Tx, slug string, extra ...string) (map[string]bool, error) {
	locked, err := s.lockQuery(ctx, tx, `SELECT slug FROM memories WHERE project = $1 AND (slug = ANY($2) OR $3 = ANY(links))
		ORDER BY slug FOR UPDATE`, s.project, append([]string{slug}, extra...), slug)
	if err != nil || !locked[slug] {
		return locked, err
	}
	rows, err := tx.Query(ctx, `SELECT slug FROM memories WHERE project = $1 AND $2 = ANY(links)`, s.project, slug)
	if err != nil {
		return nil, fmt.Errorf("lock the memories linking %s: %w", slug, err)
	}
	linkers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("lock the memories linking %s: %w", slug, err)
	}
	for _, l := range linkers {
		if !locked[l] {
			return nil, fmt.Errorf("lock the memories linking %s: %s links it now: %w", slug, l, errRelock)
		}
	}
	return locked, nil
}

func (s *Store) lockQuery(ctx context.Context, tx pgx.Tx, q string, args ...any) (map[string]bool, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("lock memories: %w", explain(err))
	}
	slugs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("lock memories: %w", explain(err))
	}
	locked := make(map[string]bool, len(slugs))
	for _, sl := range slugs {
		locked[sl] = true
	}
	return locked, nil
}

// Write creates a memory in the enterprise scope: missing timestamps are
// now, the memory is validated, and links to existing memories become
// relates-to edges in both directions, all in one transaction. It returns
// the memory's version (1).
func (s *Store) Write(ctx context.Context, m *memory.Memory) (int64, error) {
	now := s.now()
	m.Scope = memory.Enterprise
	if m.Created.IsZero() {
		m.Created = now
	}
	if m.Updated.IsZero() {
		m.Updated = m.Created
	}
	m.Tags, m.Links, m.Files = dedup(m.Tags), dedup(m.Links), dedup(m.Files)
	if err := memory.Validate(m, now); err != nil {
		return 0, err
	}
	m.Path = s.Locator(m.Slug)
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		// The slug too: if it exists the insert fails, having waited
		// for its writer in the same order as the rest.
		locked, err := s.lockRows(ctx, tx, append([]string{m.Slug}, m.Links...))
		if err != nil {
			return err
		}
		if err := s.insert(ctx, tx, m, 1); err != nil {
			return err
		}
		if err := s.linkExisting(ctx, tx, m.Slug, m.Links, locked, now); err != nil {
			return err
		}
		return s.notify(ctx, tx, m.Slug)
	})
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// insert adds a memory's row and its terms; ErrExists when the slug is
// taken.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, m *memory.Memory, version int64) error {
	doc, err := memory.Marshal(m)
	if err != nil {
		return err
	}
	terms, weights, n := weighTerms(m)
	tag, err := tx.Exec(ctx, `INSERT INTO memories (project, slug, type, title, tags, severity, files, created, updated, doc, version, doclen, links)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (project, slug) DO NOTHING`,
		s.project, m.Slug, string(m.Type), m.Title, nonNil(m.Tags), m.Severity, nonNil(m.Files), m.Created, m.Updated, string(doc), version, n, nonNil(m.Links))
	if err != nil {
		return fmt.Errorf("write memory %s: %w", m.Slug, explain(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s in the enterprise scope: %w (use update)", m.Slug, memory.ErrExists)
	}
	return s.putTerms(ctx, tx, m.Slug, terms, weights, n)
}

func (s *Store) putTerms(ctx context.Context, tx pgx.Tx, slug string, terms []string, weights []float32, doclen int) error {
	_, err := tx.Exec(ctx, `INSERT INTO terms (project, term, slug, wtf, doclen) SELECT $1, t, $2, w, $5 FROM unnest($3::text[], $4::real[]) AS u(t, w)`,
		s.project, slug, terms, weights, doclen)
	if err != nil {
		return fmt.Errorf("index memory %s: %w", slug, explain(err))
	}
	return nil
}

// weighTerms returns a memory's distinct terms with their BM25F-weighted
// frequencies, and its length in terms.
func weighTerms(m *memory.Memory) ([]string, []float32, int) {
	fields := memory.FieldTerms(analyzer.New(), m)
	w := memory.BM25Weights()
	wtf := map[string]float64{}
	var order []string
	n := 0
	for f, terms := range fields {
		n += len(terms)
		for _, t := range terms {
			if _, ok := wtf[t]; !ok {
				order = append(order, t)
			}
			wtf[t] += w[f]
		}
	}
	weights := make([]float32, len(order))
	for i, t := range order {
		weights[i] = float32(wtf[t])
	}
	return order, weights, n
}

// linkExisting makes relates-to edges from slug to each of links that is
// a memory of the project, locked by this transaction (lockRows returned
// it); others stay in the frontmatter, as in the file scopes, and health
// reports them. A link to a memory written since the lock, which the edge
// would need locked out of order, is errRelock: run again, the write
// locks it and links it.
func (s *Store) linkExisting(ctx context.Context, tx pgx.Tx, slug string, links []string, locked map[string]bool, now time.Time) error {
	var absent []string
	for _, l := range links {
		if l == slug {
			continue
		}
		if !locked[l] {
			absent = append(absent, l)
			continue
		}
		if err := s.link(ctx, tx, slug, l, memory.DefaultLabel, now); err != nil && !errors.Is(err, memory.ErrDuplicateLink) {
			return err
		}
	}
	if len(absent) == 0 {
		return nil
	}
	var born bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE project = $1 AND slug = ANY($2))`, s.project, absent).Scan(&born); err != nil {
		return fmt.Errorf("link %s: %w", slug, err)
	}
	if born {
		return fmt.Errorf("link %s: a memory it names was written meanwhile: %w", slug, errRelock)
	}
	return nil
}

// link inserts an edge and its reverse with the inverse label; the
// transaction holds both memories' rows (lockRows).
func (s *Store) link(ctx context.Context, tx pgx.Tx, from, to, label string, now time.Time) error {
	// The in-memory graph's rules (self-links, label syntax) apply here too.
	if err := memory.NewGraph().Link(from, to, label, now); err != nil {
		return err
	}
	if label == "" {
		label = memory.DefaultLabel
	}
	tag, err := tx.Exec(ctx, `INSERT INTO edges (project, source, target, label, created) VALUES ($1, $2, $3, $4, $6), ($1, $3, $2, $5, $6)
		ON CONFLICT DO NOTHING`, s.project, from, to, label, memory.Inverse(label), now)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation
			return fmt.Errorf("link %s -> %s: %w (links stay within a scope)", from, to, memory.ErrNotFound)
		}
		return fmt.Errorf("link %s -> %s: %w", from, to, explain(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("link %s -[%s]-> %s: %w", from, label, to, memory.ErrDuplicateLink)
	}
	// (One row means half of the pair existed, as in a graph edited by
	// hand: the insert completed it, which is what Repair does.)
	// Both memories' links mirror the edge, as the files' frontmatter does.
	_, err = tx.Exec(ctx, `UPDATE memories SET links = array_append(links, CASE slug WHEN $2 THEN $3 ELSE $2 END)
		WHERE project = $1 AND slug IN ($2, $3) AND NOT (CASE slug WHEN $2 THEN $3 ELSE $2 END) = ANY(links)`, s.project, from, to)
	if err != nil {
		return fmt.Errorf("link %s -> %s: %w", from, to, explain(err))
	}
	return nil
}

// notify tells listening daemons that a memory changed; PostgreSQL
// delivers it when the transaction commits, and never if it rolls back.
func (s *Store) notify(ctx context.Context, tx pgx.Tx, slug string) error {
	payload, _ := json.Marshal(Change{Project: s.project, Slug: slug})
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, Channel, string(payload))
	return err
}

// Channel is the LISTEN/NOTIFY channel of memory changes; a payload is a
// Change as JSON.
const Channel = "ctxls_memory"

// Change is a notification's payload: which memory of which project
// changed (written, updated, linked or deleted).
type Change struct {
	Project string `json:"project"`
	Slug    string `json:"slug"`
}

// Get reads a memory and its version.
func (s *Store) Get(ctx context.Context, slug string) (*Record, error) {
	if err := memory.CheckSlug(slug); err != nil {
		return nil, err
	}
	var rec *Record
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		rec, err = s.get(ctx, tx, slug, false)
		return err
	})
	return rec, err
}

// get reads a memory; forUpdate locks its row until the transaction ends.
func (s *Store) get(ctx context.Context, tx pgx.Tx, slug string, forUpdate bool) (*Record, error) {
	rec, _, err := s.read(ctx, tx, slug, forUpdate)
	return rec, err
}

// read is get that also returns the memory's file as stored.
func (s *Store) read(ctx context.Context, tx pgx.Tx, slug string, forUpdate bool) (*Record, string, error) {
	q := `SELECT doc, version, links FROM memories WHERE project = $1 AND slug = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var doc string
	var version int64
	var links []string
	err := tx.QueryRow(ctx, q, s.project, slug).Scan(&doc, &version, &links)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", fmt.Errorf("%s in the enterprise scope: %w", slug, memory.ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("read memory %s: %w", slug, err)
	}
	m, err := memory.Parse([]byte(doc), slug+".md", memory.Enterprise, s.now())
	if err != nil {
		return nil, "", fmt.Errorf("memory %s is stored malformed: %w", slug, err)
	}
	m.Path = s.Locator(slug)
	// The links column, kept in step with the graph, is the truth.
	m.Links = links
	return &Record{Memory: m, Version: version}, doc, nil
}

// Update changes a memory with fn, provided it is still at version (the
// version the caller read; 0 takes whatever is current, for a change made
// in one step). It sets the updated time, validates, saves, re-indexes and
// mirrors added or removed links in the graph, in one transaction; on any
// error nothing is written. A memory changed since version gives
// ErrConflict.
//
// The rows to lock are the memory's and those of its links before and
// after fn, and only fn tells the latter: so fn runs first on the memory
// read without a lock, the union is locked (lockRows), and the memory read
// again. fn runs again on that fresh copy if the memory changed in between
// (fn must be safe to run twice); if its links then name a memory not
// locked, the transaction starts again (errRelock).
func (s *Store) Update(ctx context.Context, slug string, version int64, fn func(*memory.Memory) error) (*Record, error) {
	if err := memory.CheckSlug(slug); err != nil {
		return nil, err
	}
	var out *Record
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		pre, preDoc, err := s.read(ctx, tx, slug, false)
		if err != nil {
			return err
		}
		preLinks := slices.Clone(pre.Links)
		want := append([]string{slug}, preLinks...)
		// fn is not run for a stale version: the check under the lock
		// gives the conflict, as it did when fn only ran there.
		var planned *memory.Memory
		if version == 0 || pre.Version == version {
			if fn(pre.Memory) == nil {
				planned = pre.Memory
				want = append(want, dedup(planned.Links)...)
			}
		}
		locked, err := s.lockRows(ctx, tx, want)
		if err != nil {
			return err
		}
		if !locked[slug] {
			return fmt.Errorf("%s in the enterprise scope: %w", slug, memory.ErrNotFound)
		}
		rec, doc, err := s.read(ctx, tx, slug, false)
		if err != nil {
			return err
		}
		if version != 0 && rec.Version != version {
			return fmt.Errorf("update %s: you read version %d, the scope has version %d: %w; read it again and redo the change",
				slug, version, rec.Version, ErrConflict)
		}
		before := slices.Clone(rec.Links)
		// Links change without a version (link, unlink, a linked
		// memory's delete) and a deleted slug can be written again at
		// version 1: the plan holds if the whole row is as read.
		m := planned
		if m == nil || rec.Version != pre.Version || doc != preDoc || !slices.Equal(rec.Links, preLinks) {
			m = rec.Memory
			if err := fn(m); err != nil {
				return err
			}
		}
		if m.Slug != slug {
			return fmt.Errorf("update cannot change a slug (%s → %s)", slug, m.Slug)
		}
		now := s.now()
		m.Tags, m.Links, m.Files = dedup(m.Tags), dedup(m.Links), dedup(m.Files)
		for _, l := range slices.Concat(before, m.Links) {
			if !slices.Contains(want, l) {
				return fmt.Errorf("update %s: link %s: %w", slug, l, errRelock)
			}
		}
		m.Updated = now
		if m.Updated.Before(m.Created) {
			m.Created = m.Updated
		}
		if err := memory.Validate(m, now); err != nil {
			return err
		}
		data, err := memory.Marshal(m)
		if err != nil {
			return err
		}
		terms, weights, n := weighTerms(m)
		_, err = tx.Exec(ctx, `UPDATE memories SET type = $3, title = $4, tags = $5, severity = $6, files = $7, created = $8, updated = $9,
			doc = $10, doclen = $11, links = $12, version = version + 1 WHERE project = $1 AND slug = $2`,
			s.project, slug, string(m.Type), m.Title, nonNil(m.Tags), m.Severity, nonNil(m.Files), m.Created, m.Updated, string(data), n, nonNil(m.Links))
		if err != nil {
			return fmt.Errorf("update memory %s: %w", slug, explain(err))
		}
		if _, err := tx.Exec(ctx, `DELETE FROM terms WHERE project = $1 AND slug = $2`, s.project, slug); err != nil {
			return fmt.Errorf("update memory %s: %w", slug, err)
		}
		if err := s.putTerms(ctx, tx, slug, terms, weights, n); err != nil {
			return err
		}
		var added []string
		for _, l := range m.Links {
			if !slices.Contains(before, l) {
				added = append(added, l)
			}
		}
		if err := s.linkExisting(ctx, tx, slug, added, locked, now); err != nil {
			return err
		}
		for _, l := range before {
			// A link to a memory absent when locked has no edge.
			if !slices.Contains(m.Links, l) && locked[l] {
				if _, err := s.unlink(ctx, tx, slug, l, ""); err != nil {
					return err
				}
			}
		}
		if err := s.notify(ctx, tx, slug); err != nil {
			return err
		}
		out = &Record{Memory: m, Version: rec.Version + 1}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes a memory, its terms and every edge to or from it, if it
// is still at version (0: any version).
func (s *Store) Delete(ctx context.Context, slug string, version int64) error {
	if err := memory.CheckSlug(slug); err != nil {
		return err
	}
	return s.writeTx(ctx, func(tx pgx.Tx) error {
		locked, err := s.lockWithLinkers(ctx, tx, slug)
		if err != nil {
			return err
		}
		if !locked[slug] {
			return fmt.Errorf("%s in the enterprise scope: %w", slug, memory.ErrNotFound)
		}
		var have int64
		err = tx.QueryRow(ctx, `DELETE FROM memories WHERE project = $1 AND slug = $2 RETURNING version`, s.project, slug).Scan(&have)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%s in the enterprise scope: %w", slug, memory.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("delete memory %s: %w", slug, explain(err))
		}
		if version != 0 && have != version {
			return fmt.Errorf("delete %s: you read version %d, the scope has version %d: %w", slug, version, have, ErrConflict)
		}
		// Other memories' links to it go too (the edges went by cascade,
		// which locks no memory); they are all locked (lockWithLinkers),
		// and only rows locked are written.
		if _, err := tx.Exec(ctx, `UPDATE memories SET links = array_remove(links, $2) WHERE project = $1 AND $2 = ANY(links) AND slug = ANY($3)`,
			s.project, slug, slices.Collect(maps.Keys(locked))); err != nil {
			return fmt.Errorf("delete memory %s: %w", slug, err)
		}
		return s.notify(ctx, tx, slug)
	})
}

// Rename changes a memory's slug, provided it is still at version (0: any):
// its row, its terms and edges (the foreign keys cascade) and every other
// memory's links, in one transaction. Of two writers renaming the same
// memory at once, the second waits on the row's lock and then finds it
// gone: it fails with ErrNotFound and changes nothing; a new slug already
// taken is ErrExists.
func (s *Store) Rename(ctx context.Context, from, to string, version int64) error {
	for _, sl := range []string{from, to} {
		if err := memory.CheckSlug(sl); err != nil {
			return err
		}
	}
	if from == to {
		return fmt.Errorf("rename %s: the new slug is the old one", from)
	}
	return s.writeTx(ctx, func(tx pgx.Tx) error {
		// to as well: taken, it makes the rename fail, after its writer.
		locked, err := s.lockWithLinkers(ctx, tx, from, to)
		if err != nil {
			return err
		}
		rec, err := s.get(ctx, tx, from, false)
		if err == nil && !locked[from] {
			err = fmt.Errorf("%s in the enterprise scope: %w", from, memory.ErrNotFound)
		}
		if errors.Is(err, memory.ErrNotFound) {
			return fmt.Errorf("rename %s: %w (another writer may have renamed or deleted it; nothing changed)", from, err)
		}
		if err != nil {
			return err
		}
		if version != 0 && rec.Version != version {
			return fmt.Errorf("rename %s: you read version %d, the scope has version %d: %w", from, version, rec.Version, ErrConflict)
		}
		m := rec.Memory
		m.Slug = to
		m.Links = slices.DeleteFunc(m.Links, func(l string) bool { return l == to })
		if err := memory.Validate(m, s.now()); err != nil {
			return err
		}
		doc, err := memory.Marshal(m)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE memories SET slug = $3, doc = $4, links = $5, version = version + 1
			WHERE project = $1 AND slug = $2 AND NOT EXISTS (SELECT 1 FROM memories WHERE project = $1 AND slug = $3)`,
			s.project, from, to, string(doc), nonNil(m.Links))
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation: taken meanwhile
				return fmt.Errorf("rename %s: %s in the enterprise scope: %w", from, to, memory.ErrExists)
			}
			return fmt.Errorf("rename %s: %w", from, explain(err))
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("rename %s: %s in the enterprise scope: %w", from, to, memory.ErrExists)
		}
		// The links column is the truth (get); the other memories' docs
		// are rewritten from it when they are next updated.
		// (The linkers are locked, as for Delete; the edges follow by
		// cascade, which locks no memory.)
		if _, err := tx.Exec(ctx, `UPDATE memories SET links = array_replace(links, $2, $3), version = version + 1
			WHERE project = $1 AND $2 = ANY(links) AND slug = ANY($4)`, s.project, from, to, slices.Collect(maps.Keys(locked))); err != nil {
			return fmt.Errorf("rename %s: relink: %w", from, explain(err))
		}
		if err := s.notify(ctx, tx, from); err != nil {
			return err
		}
		return s.notify(ctx, tx, to)
	})
}

// Link adds a bidirectional edge from → to (the reverse with the inverse
// label) in one transaction.
func (s *Store) Link(ctx context.Context, from, to, label string) error {
	for _, sl := range []string{from, to} {
		if err := memory.CheckSlug(sl); err != nil {
			return err
		}
	}
	// Self-links and bad labels are refused before any lock, as link
	// refuses them.
	if err := memory.NewGraph().Link(from, to, label, s.now()); err != nil {
		return err
	}
	return s.writeTx(ctx, func(tx pgx.Tx) error {
		locked, err := s.lockRows(ctx, tx, []string{from, to})
		if err != nil {
			return err
		}
		// A missing end would fail the edge's foreign key; say so before,
		// as that error does (link), rather than check a row not locked.
		for _, sl := range []string{from, to} {
			if !locked[sl] {
				return fmt.Errorf("link %s -> %s: %s in the enterprise scope: %w (links stay within a scope)", from, to, sl, memory.ErrNotFound)
			}
		}
		if err := s.link(ctx, tx, from, to, label, s.now()); err != nil {
			return err
		}
		return s.notify(ctx, tx, from)
	})
}

// Unlink removes the edges between from and to with label (all when label
// is "") in both directions.
func (s *Store) Unlink(ctx context.Context, from, to, label string) error {
	return s.writeTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.lockRows(ctx, tx, []string{from, to}); err != nil {
			return err
		}
		n, err := s.unlink(ctx, tx, from, to, label)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("unlink %s -> %s: %w", from, to, memory.ErrNoLink)
		}
		return s.notify(ctx, tx, from)
	})
}

func (s *Store) unlink(ctx context.Context, tx pgx.Tx, from, to, label string) (int64, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM edges WHERE project = $1 AND (
		(source = $2 AND target = $3 AND ($4 = '' OR label = $4)) OR (source = $3 AND target = $2 AND ($4 = '' OR label = $5)))`,
		s.project, from, to, label, memory.Inverse(label))
	if err != nil {
		return 0, fmt.Errorf("unlink %s -> %s: %w", from, to, explain(err))
	}
	// A link stays listed while an edge with another label remains.
	_, err = tx.Exec(ctx, `UPDATE memories m SET links = array_remove(links, CASE slug WHEN $2 THEN $3 ELSE $2 END)
		WHERE project = $1 AND slug IN ($2, $3) AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.project = $1 AND e.source = m.slug
			AND e.target = CASE m.slug WHEN $2 THEN $3 ELSE $2 END)`, s.project, from, to)
	if err != nil {
		return 0, fmt.Errorf("unlink %s -> %s: %w", from, to, explain(err))
	}
	return tag.RowsAffected(), nil
}

// Graph returns the project's graph.
func (s *Store) Graph(ctx context.Context) (*memory.Graph, error) { return s.graph(ctx, s.pool) }

func (s *Store) graph(ctx context.Context, q querier) (*memory.Graph, error) {
	rows, err := q.Query(ctx, `SELECT source, target, label, created FROM edges WHERE project = $1 ORDER BY source, created, target, label`, s.project)
	if err != nil {
		return nil, classify(err)
	}
	g := memory.NewGraph()
	var src, tgt, label string
	var at time.Time
	_, err = pgx.ForEachRow(rows, []any{&src, &tgt, &label, &at}, func() error {
		g.Adj[src] = append(g.Adj[src], memory.Edge{Target: tgt, Label: label, Timestamp: memory.FormatTime(at)})
		return nil
	})
	if err != nil {
		return nil, classify(err)
	}
	return g, nil
}

// List returns the summaries of the project's memories, sorted by slug.
func (s *Store) List(ctx context.Context) ([]memory.Summary, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+summaryCols+` FROM memories WHERE project = $1 ORDER BY slug`, s.project)
	if err != nil {
		return nil, classify(err)
	}
	out, err := pgx.CollectRows(rows, s.scanSummary)
	if err != nil {
		return nil, classify(err)
	}
	return out, nil
}

const summaryCols = `slug, type, title, tags, severity, files, created, updated`

// summaryColsOf is summaryCols of a table alias.
func summaryColsOf(alias string) string {
	return alias + "." + strings.ReplaceAll(summaryCols, ", ", ", "+alias+".")
}

// scanSummary reads a row of summaryCols.
func (s *Store) scanSummary(r pgx.CollectableRow) (memory.Summary, error) {
	var sm memory.Summary
	var typ string
	err := r.Scan(&sm.Slug, &typ, &sm.Title, &sm.Tags, &sm.Severity, &sm.Files, &sm.Created, &sm.Updated)
	s.fillSummary(&sm, typ)
	return sm, err
}

// fillSummary completes a summary read from summaryCols.
func (s *Store) fillSummary(sm *memory.Summary, typ string) {
	sm.Type, sm.Scope, sm.Path = memory.Type(typ), memory.Enterprise, s.Locator(sm.Slug)
	sm.Created, sm.Updated = sm.Created.UTC(), sm.Updated.UTC()
	if len(sm.Files) == 0 {
		sm.Files = nil
	}
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func dedup(ss []string) []string {
	var out []string
	for _, s := range ss {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
