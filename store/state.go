package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store/ftsrank"
	"github.com/mattn/go-sqlite3"
)

// The state database, <root>/.ctxls/state.db, holds what ctxls records
// rather than derives: the collector's per-session tables and the editor's
// and assistant's activity. Every connection attaches it as schema "state",
// so statements name its tables without a prefix.
//
// It is a file of its own because of SQLite's page cache: a connection drops
// all of a file's cached pages whenever another connection has changed that
// file. When the session tables lived in the index, every hook call's few
// small writes made the next retrieval on the daemon's other connections
// re-read the index, three to four times the work of a warm one
// (docs/decisions/0084). Writes to an attached file leave the index's cache
// alone.

// stateApplicationID marks a SQLite file as ctxls state ("ctxs").
const stateApplicationID = 0x63747873

// stateVersion is the version of the state schema this build writes.
// Version 2 added kv, version 3 the prompt history; stateSchema creates
// what a file lacks.
const stateVersion = 3

// stateSchema creates the state tables in the attached schema.
const stateSchema = `
-- Session state shared by short-lived hook processes (package collect).
CREATE TABLE IF NOT EXISTS state.session_pending (
	session  TEXT NOT NULL,
	key      TEXT NOT NULL,           -- source:id
	source   TEXT NOT NULL,
	id       TEXT NOT NULL,
	content  TEXT NOT NULL,
	priority INTEGER NOT NULL,        -- 0 critical .. 3 low
	metadata TEXT NOT NULL DEFAULT '{}',
	created  INTEGER NOT NULL,
	PRIMARY KEY (session, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state.session_injected (
	session TEXT NOT NULL,
	key     TEXT NOT NULL,
	hash    TEXT NOT NULL,
	at      INTEGER NOT NULL,
	PRIMARY KEY (session, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state.session_stats (
	session    TEXT PRIMARY KEY,
	injections INTEGER NOT NULL DEFAULT 0,
	dedup_hits INTEGER NOT NULL DEFAULT 0,
	updated    INTEGER NOT NULL
) WITHOUT ROWID;

-- Editor and assistant activity (server, hooks): the working set.
CREATE TABLE IF NOT EXISTS state.activity (
	id      INTEGER PRIMARY KEY,
	at      INTEGER NOT NULL,         -- UnixMilli
	session TEXT NOT NULL DEFAULT '',
	origin  TEXT NOT NULL,            -- editor | assistant
	type    TEXT NOT NULL,            -- file_open | file_edit | file_close | symbol_hover | selection | prompt | tool
	path    TEXT NOT NULL DEFAULT '',
	symbols TEXT NOT NULL DEFAULT '', -- space-separated
	line    INTEGER NOT NULL DEFAULT 0,
	text    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS state.activity_at ON activity(at);

-- Small values a process notes for the next (version 2): e.g. when the
-- memories in the index were last checked against their files.
CREATE TABLE IF NOT EXISTS state.kv (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- The prompt history (version 3; sessions.go): each prompt of an assistant
-- session and the entries the prompt hook injected for it, and whether a
-- later tool call of the session touched the entry's file.
CREATE TABLE IF NOT EXISTS state.prompts (
	id      INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: pruning relies on it
	session TEXT NOT NULL,
	ordinal INTEGER NOT NULL,         -- the prompt's number in its session, from 1
	at      INTEGER NOT NULL,         -- UnixMilli
	text    TEXT NOT NULL             -- truncated to MaxPromptText bytes
);
CREATE INDEX IF NOT EXISTS state.prompts_session ON prompts(session, ordinal);
CREATE INDEX IF NOT EXISTS state.prompts_at ON prompts(at);
CREATE TABLE IF NOT EXISTS state.prompt_injections (
	prompt    INTEGER NOT NULL,       -- prompts.id
	session   TEXT NOT NULL,
	source    TEXT NOT NULL,
	id        TEXT NOT NULL,          -- the entry's id in its source: path#qname for code
	path      TEXT NOT NULL DEFAULT '', -- the workspace file it shows, if any
	section   TEXT NOT NULL DEFAULT '',
	relevance REAL,
	used_at   INTEGER,                -- UnixMilli of the first later tool call naming path
	used_by   TEXT                    -- that call's tool
);
CREATE INDEX IF NOT EXISTS state.prompt_injections_prompt ON prompt_injections(prompt);
CREATE INDEX IF NOT EXISTS state.prompt_injections_path ON prompt_injections(session, path);
`

// StatePath returns the state database of a workspace root.
func StatePath(root string) string { return filepath.Join(workspace.Dir(root), "state.db") }

// statePath is the state database beside an index file.
func statePath(index string) string { return filepath.Join(filepath.Dir(index), "state.db") }

// connector opens connections to one index file, each with the state
// database attached.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

// mmapSize is how much of the index file a connection maps.
const mmapSize = 1 << 30

func newConnector(dsn, state string, readOnly bool) *connector {
	return &connector{dsn: dsn, drv: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			// Statement journals and sorts stay in memory: an index write
			// journals every page each multi-row statement touches, and as
			// a temp file that was thousands of pwrite calls per update
			// (docs/decisions/0053). The memory map lets short-lived
			// processes read pages straight from the OS cache.
			if _, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size = %d; PRAGMA temp_store = MEMORY", mmapSize), nil); err != nil {
				return err
			}
			// Entity documents are ranked by ftsrank's function.
			if err := ftsrank.Register(c); err != nil {
				return err
			}
			return attachState(c, state, readOnly)
		},
	}}
}

// attachState attaches the state database as schema "state". A writer's
// Open has made it ready (prepareState); a reader that finds none, or an
// unfinished one, gets an empty one in memory, so that its queries of the
// activity see nothing rather than fail.
func attachState(c *sqlite3.SQLiteConn, path string, readOnly bool) error {
	if !readOnly {
		// mode=rw: Open created the file (prepareState); a connection made
		// after it was deleted must not create an empty one (see open).
		_, err := c.Exec("ATTACH DATABASE ? AS state; PRAGMA state.synchronous = NORMAL", []driver.Value{fileURI(path) + "?mode=rw"})
		if err != nil {
			return &stateAttachError{path, err}
		}
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		if _, err := c.Exec("ATTACH DATABASE ? AS state", []driver.Value{path}); err != nil {
			return fmt.Errorf("attach state %s: %w", path, err)
		}
		if connStateReady(c) {
			return nil
		}
		if _, err := c.Exec("DETACH DATABASE state", nil); err != nil {
			return fmt.Errorf("detach state %s: %w", path, err)
		}
	}
	if _, err := c.Exec("ATTACH DATABASE ':memory:' AS state", nil); err != nil {
		return fmt.Errorf("attach empty state: %w", err)
	}
	if _, err := c.Exec(stateSchema, nil); err != nil {
		return fmt.Errorf("create empty state: %w", err)
	}
	return nil
}

// stateAttachError is a writer's failure to attach the state database,
// which Open answers by repairing the state, not the index.
type stateAttachError struct {
	path string
	err  error
}

func (e *stateAttachError) Error() string { return fmt.Sprintf("attach state %s: %v", e.path, e.err) }
func (e *stateAttachError) Unwrap() error { return e.err }

// connStateReady is stateReady on one connection, for the connect hook.
func connStateReady(c *sqlite3.SQLiteConn) bool {
	rows, err := c.Query("PRAGMA state.user_version", nil)
	if err != nil {
		return false
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if rows.Next(v) != nil {
		return false
	}
	n, ok := v[0].(int64)
	return ok && n == stateVersion
}

// stateReady says whether the state database attached to s's connections
// has this build's schema.
func (s *Store) stateReady(ctx context.Context) bool {
	var appID, version int
	return s.db.QueryRowContext(ctx, "PRAGMA state.application_id").Scan(&appID) == nil &&
		s.db.QueryRowContext(ctx, "PRAGMA state.user_version").Scan(&version) == nil &&
		appID == stateApplicationID && version == stateVersion
}

// prepareState makes path a state database of this build's schema: it
// creates a missing one, and moves a corrupt or foreign one aside (it holds
// sessions and activity, worth keeping for inspection, never the index)
// and starts anew.
func prepareState(ctx context.Context, path string, busy time.Duration) error {
	err := initState(ctx, path, busy)
	if !IsCorrupt(err) {
		return err
	}
	if _, err := moveAside(path); err != nil {
		return err
	}
	return initState(ctx, path, busy)
}

// createDatabase creates the database file at path unless it exists, with
// FilePerm: SQLite would create it readable by all (less the umask), and
// its -wal and -shm files with its mode.
func createDatabase(path string) error {
	// Never open an existing database outside SQLite: closing any
	// descriptor of a file drops every POSIX lock the process holds on it,
	// SQLite's included (https://sqlite.org/howtocorrupt.html, 2.2). A
	// daemon that opened a writer beside its readers lost their locks, and
	// the next process to close the database (a sqlite3 shell, a backup)
	// took itself for the last one and checkpointed and removed the WAL
	// under them: the index read as malformed.
	if _, err := os.Lstat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, workspace.FilePerm)
	if errors.Is(err, fs.ErrExist) {
		return nil // created by another process meanwhile
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// fileURI is path as an SQLite URI filename, with the characters a URI
// gives meaning to escaped: a workspace's path may hold '%', '?' or '#'.
func fileURI(path string) string { return "file:" + uriEscaper.Replace(path) }

var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// quickCheck says whether SQLite finds the file's pages sound.
func quickCheck(ctx context.Context, path string) (bool, error) {
	db, err := sql.Open("sqlite3", fileURI(path)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return false, fmt.Errorf("check %s: %w", path, err)
	}
	defer db.Close()
	var result string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&result); err != nil {
		return false, classify(fmt.Errorf("check %s: %w", path, err))
	}
	return result == "ok", nil
}

// moveAside renames a damaged database (never deleting what may be worth
// inspecting) and removes its WAL and shared-memory files, which belong to
// it and must not be applied to the next file of the name.
func moveAside(path string) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405")
	aside := fmt.Sprintf("%s.corrupt-%s", path, stamp)
	// A second repair within the second must not replace the first's file.
	for n := 2; ; n++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.corrupt-%s.%d", path, stamp, n)
	}
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("move aside corrupt %s: %w", path, err)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	return aside, nil
}

func initState(ctx context.Context, path string, busy time.Duration) error {
	// The file is attached to an empty in-memory database, as every index
	// connection attaches it, so that one schema text serves both.
	db, err := sql.Open("sqlite3", fmt.Sprintf("file::memory:?_busy_timeout=%d&_txlock=immediate", busy.Milliseconds()))
	if err != nil {
		return fmt.Errorf("open state %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := createDatabase(path); err != nil {
		return fmt.Errorf("open state %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, "ATTACH DATABASE ? AS state", path); err != nil {
		return classify(fmt.Errorf("open state %s: %w", path, err))
	}
	var appID, version int
	if err := db.QueryRowContext(ctx, "PRAGMA state.application_id").Scan(&appID); err != nil {
		return classify(fmt.Errorf("read state %s: %w", path, err))
	}
	if err := db.QueryRowContext(ctx, "PRAGMA state.user_version").Scan(&version); err != nil {
		return classify(fmt.Errorf("read state %s: %w", path, err))
	}
	switch {
	case appID == stateApplicationID && version == stateVersion:
		return nil
	case appID != 0 && appID != stateApplicationID, appID == stateApplicationID && version > stateVersion:
		// Not ours, or from a newer ctxls: set aside, never written into.
		return fmt.Errorf("%w: %s has application id %#x, version %d", ErrCorrupt, path, appID, version)
	}
	// WAL lets hooks, the server and the daemon read while one of them
	// writes; the mode is kept in the file.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA state.journal_mode = WAL").Scan(&mode); err != nil {
		return classify(fmt.Errorf("state %s: %w", path, err))
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return classify(fmt.Errorf("state %s: %w", path, err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, stateSchema); err != nil {
		return classify(fmt.Errorf("create state %s: %w", path, err))
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA state.application_id = %d; PRAGMA state.user_version = %d", stateApplicationID, stateVersion)); err != nil {
		return classify(fmt.Errorf("create state %s: %w", path, err))
	}
	return classify(tx.Commit())
}

// StateValue returns a value noted in the state database ("" when absent).
// Unlike Meta, writing one leaves the index file, and so every other
// process's cache of it, alone.
func (s *Store) StateValue(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM state.kv WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify(err)
}

// SetStateValue notes a value in the state database.
func (s *Store) SetStateValue(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO state.kv(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return classify(err)
}

// openStateWriter returns the connection pool (lazy: it connects on first
// use) through which a writer store's state transactions run.
//
// They cannot run on the index's connections: there the state database is
// attached, and BEGIN IMMEDIATE takes the write lock of every database of
// the connection, the index's too. A hook's few rows of activity and
// collector state then waited for an index run's write transaction, and
// past the hook's deadline the prompt lost its context (issue 23). On a
// connection of its own, the state database is the only one a transaction
// locks. Its writes leave the index file, and so the index's page cache,
// alone (decision 84).
func openStateWriter(path string, busy time.Duration, single bool) *sql.DB {
	// mode=rw: Open has prepared the file; a connection made after it was
	// deleted must not create an empty one (see open).
	dsn := fileURI(path) + "?mode=rw&_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10) +
		"&_txlock=immediate&_foreign_keys=0&_synchronous=NORMAL"
	db := sql.OpenDB(&connector{dsn: dsn, drv: &sqlite3.SQLiteDriver{}})
	if single {
		// The process's state writes queue here, in order, rather than
		// polling SQLite's lock with the busy handler's sleeps.
		db.SetMaxOpenConns(1)
	}
	return db
}

// beginStateWrite starts a write transaction on the state database alone
// (sessions, activity, kv), waiting for other writers of that file up to the
// busy timeout but never for a writer of the index. Its statements name the
// state tables without a schema. A read-only store has no state writer of
// its own: its transaction runs on its one connection, where the index is
// read-only and so not locked, and writes what that connection attached
// (the file, or an empty state in memory when there is none).
func (s *Store) beginStateWrite(ctx context.Context) (*sql.Tx, error) {
	db := s.state
	if db == nil {
		db = s.db
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(fmt.Errorf("begin state write: %w", err))
	}
	return tx, nil
}
