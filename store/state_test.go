package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/damage"
	"github.com/ctxls/ctxls/internal/workspace"
)

// removeState removes root's state database with its WAL and shared
// memory, as `rm .ctxls/state.db*` would.
func removeState(t *testing.T, root string) {
	t.Helper()
	for _, p := range []string{StatePath(root), StatePath(root) + "-wal", StatePath(root) + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// tablesIn lists the tables of one schema of s's connections.
func tablesIn(t *testing.T, s *Store, schema string) map[string]bool {
	t.Helper()
	rows, err := s.DB().Query(fmt.Sprintf(`SELECT name FROM %s.sqlite_master WHERE type = 'table'`, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out[n] = true
	}
	return out
}

func TestStateDatabaseHoldsSessionsAndActivity(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(StatePath(root)); err != nil {
		t.Fatalf("no state database: %v", err)
	}
	main, state := tablesIn(t, s, "main"), tablesIn(t, s, "state")
	for _, name := range []string{"session_pending", "session_injected", "session_stats", "activity"} {
		if main[name] || !state[name] {
			t.Errorf("table %s: in index %v, in state %v", name, main[name], state[name])
		}
	}
	if !main["entities"] || state["entities"] {
		t.Errorf("entities: in index %v, in state %v", main["entities"], state["entities"])
	}
	// Another process sees the activity through a fresh store, and a
	// reader through its read-only one.
	for _, ro := range []bool{false, true} {
		o, err := Open(ctx, root, Options{ReadOnly: ro})
		if err != nil {
			t.Fatal(err)
		}
		ws, err := o.WorkingSet(ctx, time.Now().Add(-time.Hour), 5)
		o.Close()
		if err != nil || len(ws) != 1 || ws[0] != "a.go" {
			t.Errorf("read-only %v: working set %v, %v", ro, ws, err)
		}
	}
}

func TestReaderWithoutStateSeesNoActivity(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	openTest(t, root).Close()
	removeState(t, root)
	s, err := Open(ctx, root, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.RecentActivity(ctx, time.Time{}, 10)
	if err != nil || len(acts) != 0 {
		t.Fatalf("RecentActivity = %v, %v; want nothing", acts, err)
	}
	if _, err := os.Stat(StatePath(root)); err == nil {
		t.Error("a reader created the state database")
	}
}

// A damaged or foreign state file is moved aside; the index, derived data
// that is expensive to rebuild, is kept.
func TestBadStateIsMovedAsideKeepingTheIndex(t *testing.T) {
	for name, content := range map[string]func(path string) error{
		"garbage": func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("not a database ", 300)), 0o644) },
		"foreign": func(p string) error {
			db, err := sql.Open("sqlite3", "file:"+p)
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Exec(`PRAGMA application_id = 42; CREATE TABLE t(x)`)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			s := openTest(t, root)
			w, err := s.BeginWrite(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.PutFile(ctx, sampleFile("a.go", 5), false); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			removeState(t, root)
			if err := content(StatePath(root)); err != nil {
				t.Fatal(err)
			}

			s = openTest(t, root)
			if s.Recovered != "" {
				t.Errorf("the index was replaced (%s) for a bad state file", s.Recovered)
			}
			if ents, err := s.EntitiesInFile(ctx, "a.go"); err != nil || len(ents) == 0 {
				t.Errorf("index lost its entities: %v, %v", ents, err)
			}
			if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
				t.Errorf("RecordActivity on the new state: %v", err)
			}
			aside, _ := filepath.Glob(StatePath(root) + ".corrupt-*")
			if len(aside) != 1 {
				t.Errorf("moved aside: %v", aside)
			}
		})
	}
}

func TestRepair(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := w.PutFile(ctx, sampleFile(fmt.Sprintf("pkg/f%d.go", i), int64(10*i+10)), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: fmt.Sprintf("f%d.go", i), Text: strings.Repeat("x", 500)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	repair := func(wantIndex, wantState bool) {
		t.Helper()
		r, err := Repair(ctx, root)
		if err != nil || (r.Index != "") != wantIndex || (r.State != "") != wantState {
			t.Fatalf("Repair = %+v, %v; want index moved %v, state moved %v", r, err, wantIndex, wantState)
		}
	}

	repair(false, false) // sound
	if err := damage.Pages(StatePath(root), 0); err != nil {
		t.Fatal(err)
	}
	repair(false, true)
	if _, err := os.Stat(StatePath(root)); !os.IsNotExist(err) {
		t.Errorf("the damaged state file is still in place: %v", err)
	}
	// The next Open starts a new state file and keeps the index.
	s = openTest(t, root)
	if s.Recovered != "" {
		t.Errorf("index replaced: %s", s.Recovered)
	}
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Damaged pages of the index that Open does not read: queries fail
	// until Repair moves the file aside; the state file stays.
	if err := damage.Pages(Path(root), 2.0/3); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, root)
	if s.Recovered != "" {
		t.Fatalf("Open read the damaged pages (moved the index to %s): damage others", s.Recovered)
	}
	if _, err := s.FileStats(ctx); !IsCorrupt(err) {
		t.Fatalf("FileStats on damaged pages: %v, want ErrCorrupt", err)
	}
	s.Close()
	if damaged, err := Check(ctx, root); err != nil || len(damaged) != 1 || damaged[0] != Path(root) {
		t.Fatalf("Check = %v, %v; want the index", damaged, err)
	}
	repair(true, false)
	s = openTest(t, root)
	if stats, err := s.FileStats(ctx); err != nil || len(stats) != 0 {
		t.Errorf("new index: %d files, %v", len(stats), err)
	}
	if ws, err := s.WorkingSet(ctx, time.Time{}, 10); err != nil || len(ws) == 0 {
		t.Errorf("activity after the index was replaced: %v, %v; want the state file kept", ws, err)
	}
	s.Close()

	for _, p := range []string{Path(root), StatePath(root)} {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(p + suffix)
		}
	}
	repair(false, false) // absent
}

// A state file of version 1 (no kv table) is brought to this version in
// place, its sessions and activity kept.
func TestStateVersion1IsUpgradedInPlace(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`DROP TABLE state.kv; PRAGMA state.user_version = 1`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, root)
	if err := s.SetStateValue(ctx, "k", "v"); err != nil {
		t.Fatalf("kv after the upgrade: %v", err)
	}
	if v, err := s.StateValue(ctx, "k"); err != nil || v != "v" {
		t.Errorf("StateValue = %q, %v", v, err)
	}
	if ws, err := s.WorkingSet(ctx, time.Now().Add(-time.Hour), 5); err != nil || len(ws) != 1 {
		t.Errorf("activity after the upgrade: %v, %v", ws, err)
	}
	if aside, _ := filepath.Glob(StatePath(root) + ".corrupt-*"); len(aside) != 0 {
		t.Errorf("a version-1 state file was moved aside: %v", aside)
	}
}

// A connection a writer's pool opens after its files were deleted fails: it
// must not create empty files in their place, which would hide the deletion
// from a long-running process's check for it (the server reopens its store
// when the files are gone).
func TestDeletedFilesAreNotRecreatedByNewConnections(t *testing.T) {
	for _, name := range []string{"index", "state"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			s := openTest(t, root)
			path := Path(root)
			if name == "state" {
				path = StatePath(root)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
			// Hold every idle connection so that the next one is new.
			var held []*sql.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			var err error
			for range idleConns + 1 {
				var c *sql.Conn
				if c, err = s.DB().Conn(ctx); err != nil {
					break
				}
				held = append(held, c)
				if err = c.PingContext(ctx); err != nil {
					break
				}
			}
			if err == nil {
				t.Errorf("every connection opened with the %s file deleted", name)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s file recreated by a new connection: %v", name, err)
			}
			// An ATTACH that took the URI for a file name would create it.
			for _, dir := range []string{".", root, workspace.Dir(root)} {
				if stray, _ := filepath.Glob(filepath.Join(dir, "file:*")); len(stray) > 0 {
					t.Errorf("stray files: %v", stray)
				}
			}
		})
	}
}

// An index run holds the index's write lock for whole batches of files;
// the hooks' writes of activity and session state go to the state file and
// must not wait for it (issue 23: behind a re-index, every prompt hook ran
// out of its deadline waiting for "database is locked"). The index write
// here is held by another store, as an index run in another process holds
// it, and for longer than the writer of the state may wait.
func TestStateWritesDoNotWaitForAnIndexWriter(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	indexer := openTest(t, root)
	w, err := indexer.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	if err := w.PutFile(ctx, sampleFile("a.go", 1), false); err != nil {
		t.Fatal(err)
	}

	const wait = 300 * time.Millisecond
	for _, single := range []bool{true, false} {
		hook, err := Open(ctx, root, Options{BusyTimeout: wait, SingleConnection: single})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = hook.RecordActivity(ctx, Activity{Session: "s", Origin: "assistant", Type: "prompt", Text: "q"})
		if err == nil {
			var tx *sql.Tx
			if tx, err = hook.beginStateWrite(ctx); err == nil {
				if _, err = tx.ExecContext(ctx, `INSERT INTO session_stats(session, updated) VALUES('s', 1)
					ON CONFLICT(session) DO UPDATE SET updated = excluded.updated`); err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
			}
		}
		took := time.Since(start)
		if err != nil {
			t.Errorf("single connection %v: state write during an index write: %v (after %v)", single, err, took)
		} else if took >= wait {
			t.Errorf("single connection %v: state write took %v: it waited for the index writer", single, took)
		}
		// What was written is there for the index's own connections.
		var n int
		if err := hook.DB().QueryRowContext(ctx, `SELECT count(*) FROM activity WHERE session = 's'`).Scan(&n); err != nil || n == 0 {
			t.Errorf("single connection %v: activity rows %d, %v", single, n, err)
		}
		hook.Close()
	}
	// Index writers still exclude each other from the start of their
	// transactions: beginIndexWrite claims the lock before anything is written.
	other, err := Open(ctx, root, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if w2, err := other.BeginWrite(ctx); err == nil {
		w2.Rollback()
		t.Error("a second index writer began while the first held the index")
	}
	// The index writer was never disturbed.
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}

	// Nor does an index writer wait for a state transaction.
	tx, err := other.beginStateWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO session_stats(session, updated) VALUES('t', 1)`); err != nil {
		t.Fatal(err)
	}
	slow, err := Open(ctx, root, Options{BusyTimeout: wait})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	start := time.Now()
	w, err = slow.BeginWrite(ctx)
	if err == nil {
		err = w.PutFile(ctx, sampleFile("b.go", 2), false)
		if err == nil {
			err = w.Commit()
		}
	}
	if took := time.Since(start); err != nil || took >= wait {
		t.Errorf("index write during a state transaction: %v after %v", err, took)
	}
}

// A store whose files were deleted and created anew under it says so, and
// closing it leaves the new files alone: the last connection to a database
// deletes its WAL by name, which now names the new database's WAL (SQLite
// skips that for a database file no longer at its path).
func TestDisplacedStoreLeavesTheNewFilesAlone(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	old := openTest(t, root)
	if err := old.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "old.go"}); err != nil {
		t.Fatal(err)
	}
	if old.Displaced() {
		t.Fatal("displaced before anything moved")
	}
	removeState(t, root)
	s := openTest(t, root)
	if !old.Displaced() || s.Displaced() {
		t.Fatalf("displaced: old %v, new %v; want true, false", old.Displaced(), s.Displaced())
	}
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "new.go"}); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(StatePath(root) + "-wal"); err != nil {
		t.Fatalf("the new state database's WAL: %v", err)
	}
	r, err := Open(ctx, root, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ws, err := r.WorkingSet(ctx, time.Now().Add(-time.Hour), 5)
	if err != nil || len(ws) != 1 || ws[0] != "new.go" {
		t.Fatalf("working set %v, %v; want [new.go]", ws, err)
	}
}
