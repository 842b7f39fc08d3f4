// Package store keeps the workspace index in one SQLite file,
// <root>/.ctxls/index.db: files, entities, references and a full-text index.
// What ctxls records rather than derives (sessions, activity) is in
// <root>/.ctxls/state.db, attached to every connection (state.go).
//
// The store is the state shared by the long-running language server and the
// short-lived hook and CLI processes. It runs in WAL mode so that any number
// of readers proceed while one process writes; writers take the write lock
// of the one file they write up front (beginIndexWrite, beginStateWrite) and
// wait for each other with a busy timeout, so that an index run never holds
// up the hooks' writes of session state, nor they it.
//
// Every SQL statement of ctxls is here, behind named methods: the index
// (files, entities, references, full-text), the git history, the memories
// (memories.go), the collector's session tables (collector.go), the prompt
// history and the activity. Other packages never see the database
// (TestLayering in package layering_test holds it).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/mattn/go-sqlite3"
)

// ErrNoIndex is returned by Open in read-only mode when no index exists.
var ErrNoIndex = errors.New("no index: run 'ctxls index' first")

// ErrOutdated is returned by Open in read-only mode for an index of an
// older schema version, which only a writer migrates ('ctxls index', a
// hook, the daemon).
var ErrOutdated = errors.New("the index was written by an older ctxls")

// ErrCorrupt is returned when the index file is damaged or is not a ctxls
// index. Writers recover by moving it aside and rebuilding.
var ErrCorrupt = errors.New("index is corrupt or not a ctxls index")

// Store is an open index.
type Store struct {
	db *sql.DB
	// state is a connection of the state database's own, for its write
	// transactions (beginStateWrite); nil for a read-only store.
	state    *sql.DB
	path     string
	readOnly bool
	// Recovered is set when Open moved a corrupt or foreign file aside and
	// started a new index; it holds where the old file went.
	Recovered string
	// commits counts the index write transactions this Store committed
	// (Commits).
	commits atomic.Uint64
	// single: every statement runs on one connection, so SQLite's
	// data_version read on it tells of other processes' commits
	// (Generation).
	single bool
	// opened identifies the index and state files a writer opened
	// (Displaced).
	opened [2]os.FileInfo
}

// Displaced says whether the index or state file this writer opened is no
// longer at its path: deleted (rm -rf .ctxls, git clean -fdx) or replaced
// by a file another process created since. Either way its connections
// write where no other process reads, and the path's existence alone does
// not tell: a hook may create the new file before the server looks. A
// read-only store is never displaced.
func (s *Store) Displaced() bool {
	if s.readOnly {
		return false
	}
	for i, path := range []string{s.path, statePath(s.path)} {
		fi, err := os.Stat(path)
		if err != nil || s.opened[i] == nil || !os.SameFile(fi, s.opened[i]) {
			return true
		}
	}
	return false
}

// noteOpened records the files a writer opened, for Displaced.
func (s *Store) noteOpened() *Store {
	for i, path := range []string{s.path, statePath(s.path)} {
		s.opened[i], _ = os.Stat(path)
	}
	return s
}

// Commits returns how many index write transactions this Store has
// committed. A reader that sees it change between a query and the reads
// that follow knows the query may describe rows since replaced: in the hook
// daemon a re-index of the files a hook is about to render runs on the same
// connection between the hook's statements.
func (s *Store) Commits() uint64 { return s.commits.Load() }

// Generation returns a number that changes whenever the index gets a new
// commit: one of this Store's (Commits) or, on a store of one connection
// (Options.SingleConnection, ReadOnly), one of any other connection or
// process, which SQLite's data_version counts. A hook's query and the
// freshness check of the files it renders are separate statements: a
// background index run that re-indexes a file between them leaves the
// file matching the disk while the results still hold its old lines. On
// a store of many connections only its own commits show: each connection
// counts others' commits on its own.
func (s *Store) Generation(ctx context.Context) uint64 {
	g := s.commits.Load()
	if !s.single {
		return g
	}
	var v uint64
	if err := s.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return g
	}
	return g + v
}

// SeesOtherCommits reports whether Generation counts the commits of other
// connections and processes too (a store of one connection), so that an
// unchanged Generation means an unchanged index.
func (s *Store) SeesOtherCommits() bool { return s.single }

// Path returns the index file of a workspace root.
func Path(root string) string { return filepath.Join(workspace.Dir(root), "index.db") }

// Options control Open.
type Options struct {
	// ReadOnly opens an existing index for queries only; it never creates,
	// migrates or repairs.
	ReadOnly bool
	// BusyTimeout is how long a statement waits for another process's lock.
	// Zero means 5 s.
	BusyTimeout time.Duration
	// SingleConnection runs every statement, reads and writes, on one
	// connection. SQLite empties a connection's page cache of a file
	// whenever another connection has changed it; a process that writes
	// between its reads (the hook daemon: a re-index after an edit, the
	// collector) keeps its cache warm only so. Statements then never run
	// in parallel, and a caller must not start one while it holds a
	// transaction or unclosed rows of another.
	SingleConnection bool
	// Existing makes a writer require the state directory instead of
	// creating it (ErrNoIndex when it is missing). A process started in
	// the background for a workspace (the hook daemon, a background
	// rebuild) must not bring back a directory removed meanwhile: it would
	// outlive its workspace, holding files nobody removes.
	Existing bool
}

// Open opens the index of the workspace at root. A writer creates the state
// directory and the schema as needed, and replaces a corrupt, foreign or
// outdated index with a new one (see Store.Recovered).
func Open(ctx context.Context, root string, opts Options) (*Store, error) {
	path := Path(root)
	if opts.ReadOnly {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoIndex
		}
		s, err := open(ctx, path, opts)
		if err != nil {
			return nil, err
		}
		if err := s.check(ctx); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
	if opts.Existing {
		if _, err := os.Stat(workspace.Dir(root)); errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoIndex
		}
	}
	if err := workspace.EnsureDir(root); err != nil {
		return nil, err
	}
	s, err := open(ctx, path, opts)
	// The state database is checked on the index's own connection; a
	// separate one in every hook process tripled the time to open the
	// store. Only when it is missing, unfinished or damaged does
	// prepareState repair it.
	var attachErr *stateAttachError
	if errors.As(err, &attachErr) || err == nil && !s.stateReady(ctx) {
		if s != nil {
			s.Close()
		}
		if err := prepareState(ctx, statePath(path), busyTimeout(opts)); err != nil {
			return nil, err
		}
		s, err = open(ctx, path, opts)
	}
	if err == nil {
		err = s.check(ctx)
		if errors.Is(err, errOutdated) || errors.Is(err, errEmpty) {
			err = s.migrate(ctx)
		}
		if err == nil {
			err = s.ensureIndexes(ctx)
		}
		if err == nil {
			return s.noteOpened(), nil
		}
		s.Close()
	}
	if !errors.Is(err, ErrCorrupt) {
		return nil, err
	}
	// Move the damaged file aside (never delete what we do not understand)
	// and start over.
	aside, err := moveAside(path)
	if err != nil {
		return nil, err
	}
	if err := prepareState(ctx, statePath(path), busyTimeout(opts)); err != nil {
		return nil, err
	}
	s, err = open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.ensureIndexes(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.Recovered = aside
	return s.noteOpened(), nil
}

// idleConns is how many connections a pooled writer store (the language
// server) keeps open between statements.
const idleConns = 8

func busyTimeout(opts Options) time.Duration {
	if opts.BusyTimeout == 0 {
		return 5 * time.Second
	}
	return opts.BusyTimeout
}

func open(ctx context.Context, path string, opts Options) (*Store, error) {
	busy := busyTimeout(opts)
	// _stmt_cache_size keeps finalized statements for reuse on the
	// connection: retrieval runs the same full-text statement once per
	// term and the same neighbour statements once per context item, and
	// preparing SQL was ~7 % of a hook process's CPU.
	//
	// _txlock=deferred: BEGIN IMMEDIATE takes the write lock of every
	// database of the connection, the attached state file's too, so an
	// index run's transactions kept the hooks' state writes waiting
	// (issue 23). Index writes claim the index's lock alone (beginIndexWrite).
	dsn := fileURI(path) + "?_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10) +
		"&_txlock=deferred&_foreign_keys=0&_cache_size=-32000&_stmt_cache_size=64"
	if opts.ReadOnly {
		dsn += "&mode=ro"
	} else {
		// The file is created here, once: a pool connection opened after
		// the file was deleted under a long-running process must fail, not
		// create an empty database that hides the deletion from the
		// process's check for it (the server's ensureStore) for good.
		if err := createDatabase(path); err != nil {
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		dsn += "&mode=rw&_journal_mode=WAL&_synchronous=NORMAL"
	}
	db := sql.OpenDB(newConnector(dsn, statePath(path), opts.ReadOnly))
	if opts.ReadOnly || opts.SingleConnection {
		// A single connection keeps its memory map and SQLite's page cache
		// warm across the statements of one query process.
		db.SetMaxOpenConns(1)
	} else {
		// Hooks run their sources in parallel on one store: with the
		// default two idle connections, the others were closed after each
		// statement and the next one opened anew, with a cold page cache.
		db.SetMaxIdleConns(idleConns)
	}
	s := &Store{db: db, path: path, readOnly: opts.ReadOnly, single: opts.ReadOnly || opts.SingleConnection}
	if !opts.ReadOnly {
		s.state = openStateWriter(statePath(path), busy, opts.SingleConnection)
	}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		var attachErr *stateAttachError
		if errors.As(err, &attachErr) {
			return nil, err // the index may be fine: Open repairs the state
		}
		return nil, classify(fmt.Errorf("open index %s: %w", path, err))
	}
	return s, nil
}

var (
	errEmpty    = errors.New("index is empty")
	errOutdated = errors.New("index schema is outdated")
)

// check verifies that the file is a ctxls index of a known version.
func (s *Store) check(ctx context.Context) error {
	var appID, userVersion int
	if err := s.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return classify(fmt.Errorf("read index header: %w", err))
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&userVersion); err != nil {
		return classify(fmt.Errorf("read index header: %w", err))
	}
	switch {
	case appID == 0 && userVersion == 0:
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
			return classify(err)
		}
		if n != 0 {
			return fmt.Errorf("%w: %s holds another application's tables", ErrCorrupt, s.path)
		}
		if s.readOnly {
			return ErrNoIndex
		}
		return errEmpty
	case appID != applicationID:
		return fmt.Errorf("%w: %s has application id %#x", ErrCorrupt, s.path, appID)
	case userVersion == SchemaVersion:
		return nil
	case userVersion < SchemaVersion && !s.readOnly:
		return errOutdated
	case userVersion < SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this ctxls reads %d: run 'ctxls index'", ErrOutdated, s.path, userVersion, SchemaVersion)
	default:
		// A newer or unknown schema: a reader cannot use it; a writer
		// rebuilds (the index is derived data).
		if s.readOnly {
			return fmt.Errorf("index %s has schema version %d, this ctxls reads %d: run 'ctxls index'", s.path, userVersion, SchemaVersion)
		}
		return fmt.Errorf("%w: %s has unknown schema version %d", ErrCorrupt, s.path, userVersion)
	}
}

// beginIndexWrite starts a write transaction on the index file that holds its
// write lock from the start, as BEGIN IMMEDIATE would, waiting for other
// writers up to the busy timeout; but unlike BEGIN IMMEDIATE it leaves the
// attached state database unlocked, so that hooks record their sessions
// and activity (beginStateWrite) while an index run writes. Every write of
// the index file (the code tables, the memories, the history) goes through
// it.
func (s *Store) beginIndexWrite(ctx context.Context) (*sql.Tx, error) {
	// meta exists in every index Open returns.
	return s.beginIndex(ctx, "UPDATE main.meta SET value = value WHERE 0")
}

// beginIndex begins a deferred transaction and runs claim, a statement that
// writes the index and nothing else, to take the index's write lock alone.
// It runs first, before the transaction reads: a transaction that read and
// then writes fails at once (SQLITE_BUSY_SNAPSHOT, which the busy timeout
// does not wait out) when another writer committed in between, while a
// first statement that writes waits for the lock.
func (s *Store) beginIndex(ctx context.Context, claim string) (*sql.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("index %s is open read-only", s.path)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(fmt.Errorf("begin index write: %w", err))
	}
	if _, err := tx.ExecContext(ctx, claim); err != nil {
		tx.Rollback()
		return nil, classify(fmt.Errorf("begin index write: %w", err))
	}
	return tx, nil
}

// migrate brings the schema to SchemaVersion inside one transaction.
func (s *Store) migrate(ctx context.Context) error {
	// An empty file has no meta table yet; the application id is set at
	// the end anyway, and check has refused a file of another application.
	tx, err := s.beginIndex(ctx, fmt.Sprintf("PRAGMA main.application_id = %d", applicationID))
	if err != nil {
		return fmt.Errorf("migrate index: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return classify(err)
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return classify(fmt.Errorf("migrate index to version %d: %w", v+1, err))
		}
		if fill := backfills[v]; fill != nil {
			if err := fill(ctx, tx); err != nil {
				return classify(fmt.Errorf("migrate index to version %d: %w", v+1, err))
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// classify maps SQLite's corruption errors to ErrCorrupt.
func classify(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB) {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return err
}

// IsCorrupt says whether err comes from a damaged index file, whether or
// not it went through the store's own error classification (packages that
// own tables of their own query DB directly).
func IsCorrupt(err error) bool {
	return errors.Is(classify(err), ErrCorrupt)
}

// Close closes the database.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.state != nil {
		err = errors.Join(err, s.state.Close())
	}
	return err
}

// DB exposes the database for packages that own tables of their own
// (activity, collector state). Callers must not touch the index tables.
func (s *Store) DB() *sql.DB { return s.db }

// Path returns the index file's path.
func (s *Store) Path() string { return s.path }

// Meta returns a value from the meta table ("" when absent).
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify(err)
}

// SetMeta stores a value in the meta table.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return classify(err)
}

// ensureIndexes creates missing secondary indexes.
func (s *Store) ensureIndexes(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (`+placeholders(len(secondaryIndexNames))+`)`,
		stringArgs(secondaryIndexNames)...).Scan(&n); err != nil {
		return classify(err)
	}
	if n == len(secondaryIndexes) {
		return nil
	}
	for _, q := range secondaryIndexes {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return classify(fmt.Errorf("create index: %w", err))
		}
	}
	return nil
}

// Compact rewrites the index file without its free pages and with every
// table's rows in key order (VACUUM): after a cold run, whose entities'
// unique index of ids fills in the random order of the hashes and leaves
// its pages about 80 % full, and after a rebuild, which frees every page of the
// tables it replaced (decision 0115). The copy is built in a temporary
// file, not in memory as the connection's other temporary data is, and the
// file is read through the page cache rather than the memory map, so that
// compacting a large index does not need its size in memory.
//
// First the code's full-text indexes are merged into one segment each: a
// run writes them in batches, whose segments every later query reads one
// by one (decision 0117).
func (s *Store) Compact(ctx context.Context) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA temp_store = FILE; PRAGMA main.mmap_size = 0`); err != nil {
		return classify(err)
	}
	// The connection goes back to the pool: it must be as the others
	// again, whatever VACUUM did.
	defer c.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA temp_store = MEMORY; PRAGMA main.mmap_size = %d`, mmapSize))
	for _, t := range []string{"fts", "fts_files", "fts_files_aside"} {
		if _, err := c.ExecContext(ctx, fmt.Sprintf(`INSERT INTO main.%[1]s(%[1]s) VALUES('optimize')`, t)); err != nil {
			return classify(fmt.Errorf("compact index: merge %s: %w", t, err))
		}
	}
	if _, err := c.ExecContext(ctx, `VACUUM main`); err != nil {
		return classify(fmt.Errorf("compact index: %w", err))
	}
	// VACUUM wrote every page through the write-ahead log: give its space
	// back (a reader may hold the log's end; it shrinks at a later
	// checkpoint then).
	if _, err := c.ExecContext(ctx, `PRAGMA main.wal_checkpoint(TRUNCATE)`); err != nil {
		return classify(fmt.Errorf("compact index: %w", err))
	}
	return nil
}
