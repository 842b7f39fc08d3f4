package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/workspace"
)

// putFile writes one file's rows in a transaction of their own.
func putFile(t *testing.T, s *Store, fd *FileData) {
	t.Helper()
	ctx := context.Background()
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile(ctx, fd, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func openTest(t *testing.T, root string) *Store {
	t.Helper()
	s, err := Open(context.Background(), root, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sampleFile(path string, id int64) *FileData {
	return &FileData{
		File: File{ID: id, Path: path, Lang: "go", Size: 10, MTime: 1, Hash: "h", IndexedAt: 1},
		Entities: []Entity{
			{ID: id, FileID: id, Kind: "file", Name: filepath.Base(path), QName: path, StartLine: 1, EndLine: 9},
			{ID: id + 1, FileID: id, ParentID: id, Kind: "function", Name: "ListenAndServe", QName: "http.ListenAndServe", StartLine: 2, EndLine: 5, Signature: "func ListenAndServe()"},
		},
		Refs: []Ref{{SrcID: id + 1, FileID: id, Kind: RefCalls, Name: "Serve", Qualifier: "srv", Line: 3}},
		Docs: []Doc{
			{ID: id, Path: "net http server"},
			{ID: id + 1, Name: "listenandserve listen serv", QName: "http listenandserve", Signature: "listenandserve"},
		},
	}
}

func TestOpenCreatesSchemaAndGitignore(t *testing.T) {
	root := t.TempDir()
	s := openTest(t, root)
	if s.Recovered != "" {
		t.Fatalf("fresh index reported recovery from %s", s.Recovered)
	}
	gi, err := os.ReadFile(filepath.Join(root, ".ctxls", ".gitignore"))
	if err != nil || !strings.Contains(string(gi), "*") {
		t.Fatalf(".ctxls/.gitignore = %q, %v", gi, err)
	}
	st, err := s.Stats(context.Background())
	if err != nil || st.Files != 0 {
		t.Fatalf("Stats = %+v, %v", st, err)
	}
}

func TestWriteReadSearch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile(ctx, sampleFile("net/http/server.go", 100), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, []string{"listenandserve"}, FieldWeights{5, 3, 2, 2, 1, 1}, 10)
	if err != nil || len(hits) != 1 || hits[0].ID != 101 {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	ents, err := s.EntitiesByName(ctx, "listenandserve", 5)
	if err != nil || len(ents) != 1 || ents[0].Path != "net/http/server.go" {
		t.Fatalf("EntitiesByName = %+v, %v", ents, err)
	}
	e, ok, err := s.EntityAt(ctx, "net/http/server.go", 3)
	if err != nil || !ok || e.ID != 101 {
		t.Fatalf("EntityAt = %+v %v %v", e, ok, err)
	}
	df, total, err := s.TermStats(ctx, []string{"listenandserve", "absent"})
	if err != nil || df["listenandserve"] != 1 || df["absent"] != 0 || total != 2 {
		t.Fatalf("TermStats = %v %d %v", df, total, err)
	}
	files, err := s.FilesByPathSuffix(ctx, "http/server.go", 5)
	if err != nil || len(files) != 1 {
		t.Fatalf("FilesByPathSuffix = %+v, %v", files, err)
	}
	if files, _ := s.FilesByPathSuffix(ctx, "ttp/server.go", 5); len(files) != 0 {
		t.Fatalf("suffix must match whole components, got %+v", files)
	}

	// Replacing the file removes the old rows, including full-text ones.
	w, _ = s.BeginWrite(ctx)
	fd := sampleFile("net/http/server.go", 100)
	fd.Entities = fd.Entities[:1]
	fd.Docs = fd.Docs[:1]
	fd.Refs = nil
	if err := w.PutFile(ctx, fd, true); err != nil {
		t.Fatal(err)
	}
	w.Commit()
	if hits, _ := s.Search(ctx, []string{"listenandserve"}, FieldWeights{1, 1, 1, 1, 1, 1}, 10); len(hits) != 0 {
		t.Fatalf("stale full-text rows after replace: %+v", hits)
	}
	w, _ = s.BeginWrite(ctx)
	if err := w.DeleteFile(ctx, 100); err != nil {
		t.Fatal(err)
	}
	w.Commit()
	st, _ := s.Stats(ctx)
	if st.Files != 0 || st.Entities != 0 || st.Refs != 0 {
		t.Fatalf("after delete: %+v", st)
	}
}

func TestCorruptIndexIsMovedAsideAndRebuilt(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o644)
		}},
		{"foreign sqlite", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE other(x)"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
		{"truncated", func(t *testing.T, path string) {
			root := filepath.Dir(filepath.Dir(path))
			s, err := Open(context.Background(), root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			data, _ := os.ReadFile(path)
			copy(data[:16], "garbage garbage!")
			os.WriteFile(path, data, 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(workspace.Dir(root), 0o755)
			tt.write(t, Path(root))
			if _, err := Open(context.Background(), root, Options{ReadOnly: true}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read-only open of a bad index: err = %v, want ErrCorrupt", err)
			}
			s := openTest(t, root)
			if s.Recovered == "" {
				t.Fatal("Recovered not set")
			}
			if _, err := os.Stat(s.Recovered); err != nil {
				t.Fatalf("old file not kept: %v", err)
			}
			if _, err := s.Stats(context.Background()); err != nil {
				t.Fatalf("rebuilt index unusable: %v", err)
			}
		})
	}
}

func TestReadOnlyWithoutIndex(t *testing.T) {
	if _, err := Open(context.Background(), t.TempDir(), Options{ReadOnly: true}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("err = %v, want ErrNoIndex", err)
	}
}

func TestReadersDuringWrite(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	w, _ := s.BeginWrite(ctx)
	w.PutFile(ctx, sampleFile("a.go", 1000), false)
	w.Commit()

	// A long write transaction in one connection; readers in another
	// process's worth of connections keep seeing the committed state.
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 50; i++ {
		if err := w.PutFile(ctx, sampleFile("b"+string(rune('a'+i%26))+".go", 2000+i*10), false); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(ctx, root, Options{ReadOnly: true, BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := r.Stats(ctx)
			if err == nil && st.Files != 1 {
				err = errors.New("reader saw uncommitted files")
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("reader during write: %v", err)
	}
	w.Rollback()
}

func TestFullTextRowsMapToEntityIDs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{1 << 60, 100, 7 << 50} {
		fd := sampleFile(fmt.Sprintf("pkg%d/server.go", id), id)
		fd.Whole = Doc{Path: "pkg server", Body: "listenandserve listen serv"}
		if err := w.PutFile(ctx, fd, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, []string{"listenandserve"}, FieldWeights{1, 1, 1, 1, 1, 1}, 10)
	if err != nil || len(hits) != 3 {
		t.Fatalf("Search = %+v, %v", hits, err)
	}
	for _, h := range hits {
		if h.ID != 1<<60+1 && h.ID != 101 && h.ID != 7<<50+1 {
			t.Errorf("hit %d is not a function entity's id", h.ID)
		}
	}
	files, err := s.SearchFiles(ctx, CorpusSource, []string{"serv"}, 1, 1, 10)
	if err != nil || len(files) != 3 {
		t.Fatalf("SearchFiles = %+v, %v", files, err)
	}
	for _, h := range files {
		if h.ID != 1<<60 && h.ID != 100 && h.ID != 7<<50 {
			t.Errorf("file hit %d is not a file id", h.ID)
		}
	}
	scores, err := s.ScoreDocs(ctx, "listenandserve", FieldWeights{1, 1, 1, 1, 1, 1}, []int64{101, 100, 999})
	if err != nil || len(scores) != 1 || scores[101] <= 0 {
		t.Fatalf("ScoreDocs = %v, %v", scores, err)
	}
	refs, err := s.Refs(ctx, []int64{100}, nil)
	if err != nil || len(refs) != 1 || refs[0].FileID != 100 || refs[0].SrcID != 101 {
		t.Fatalf("Refs by file = %+v, %v", refs, err)
	}

	// Deleting a file removes its whole-file document too.
	w, _ = s.BeginWrite(ctx)
	if err := w.DeleteFile(ctx, 100); err != nil {
		t.Fatal(err)
	}
	w.Commit()
	if files, _ := s.SearchFiles(ctx, CorpusSource, []string{"serv"}, 1, 1, 10); len(files) != 2 {
		t.Fatalf("after delete SearchFiles = %+v", files)
	}
	if refs, _ := s.Refs(ctx, nil, []string{"Serve"}); len(refs) != 2 {
		t.Fatalf("after delete refs named Serve = %+v", refs)
	}
}

func TestSchemaVersion1IsRebuiltKeepingSessions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	if err := os.MkdirAll(workspace.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+Path(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 1", applicationID),
		`INSERT INTO files(id, path, lang, size, mtime, hash, indexed_at) VALUES(5, 'a.go', 'go', 1, 1, 'h', 1)`,
		`INSERT INTO entities(id, file_id, kind, name, qname, start_line, end_line) VALUES(5, 5, 'file', 'a.go', 'a.go', 1, 1)`,
		`INSERT INTO refs(src_id, file_id, kind, name, line) VALUES(5, 5, 1, 'f', 1)`,
		`INSERT INTO session_stats(session, injections, updated) VALUES('s1', 3, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s := openTest(t, root)
	var version, files, injections int
	s.DB().QueryRow(`PRAGMA user_version`).Scan(&version)
	s.DB().QueryRow(`SELECT count(*) FROM files`).Scan(&files)
	s.DB().QueryRow(`SELECT injections FROM session_stats WHERE session = 's1'`).Scan(&injections)
	if version != SchemaVersion || files != 0 || injections != 3 {
		t.Fatalf("after migration: version %d, files %d, injections %d", version, files, injections)
	}
	// The new index tables work.
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
}

func TestFileSummary(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("srv.go", 100)
	fd.Entities = append(fd.Entities,
		Entity{ID: 102, FileID: 100, ParentID: 101, Kind: "variable", Name: "inner", QName: "inner", StartLine: 3, EndLine: 3},
		Entity{ID: 103, FileID: 100, ParentID: 100, Kind: "type", Name: "Server", QName: "http.Server", StartLine: 6, EndLine: 8})
	putFile(t, s, fd)
	for _, tc := range []struct {
		path  string
		names int
		want  string
	}{
		{"srv.go", 8, "srv.go: ListenAndServe, Server"}, // nested entities are left out
		{"srv.go", 1, "srv.go: ListenAndServe"},
		{"srv.go", 0, "srv.go"},
		{"absent.go", 8, "absent.go"},
	} {
		if got, err := s.FileSummary(ctx, tc.path, tc.names); err != nil || got != tc.want {
			t.Errorf("FileSummary(%q, %d) = %q, %v; want %q", tc.path, tc.names, got, err, tc.want)
		}
	}
}

// A workspace path may hold the characters an SQLite URI gives meaning to.
func TestRootWithURICharacters(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "odd dir#1?x%41")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, root)
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile(ctx, sampleFile("net/http/server.go", 100), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordActivity(ctx, Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range []string{Path(root), StatePath(root)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%v", err)
		}
	}
	if damaged, err := Check(ctx, root); err != nil || len(damaged) != 0 {
		t.Errorf("Check = %v, %v", damaged, err)
	}
	rd, err := Open(ctx, root, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if stats, err := rd.FileStats(ctx); err != nil || len(stats) != 1 {
		t.Errorf("FileStats = %v, %v", stats, err)
	}
	if ws, err := rd.WorkingSet(ctx, time.Time{}, 5); err != nil || len(ws) != 1 {
		t.Errorf("WorkingSet = %v, %v", ws, err)
	}
}

// The state directory and the files in it are private to the user whatever
// the umask, and an existing directory others could read is made private
// on open (workspace.WriteFileAtomic keeps the umask elsewhere).
func TestStateIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		name    string
		prepare func(root string)
	}{
		{"new", func(string) {}},
		{"existing, readable by all", func(root string) {
			os.Mkdir(workspace.Dir(root), 0o755)
			os.Chmod(workspace.Dir(root), 0o755)
			os.WriteFile(filepath.Join(workspace.Dir(root), "ctxls.log"), []byte("x\n"), 0o644)
			os.Mkdir(filepath.Join(workspace.Dir(root), "sub"), 0o755)
			os.WriteFile(filepath.Join(workspace.Dir(root), "sub", "f"), nil, 0o666)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.prepare(root)
			st, err := Open(context.Background(), root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.RecordActivity(context.Background(), Activity{Origin: "editor", Type: "file_open", Path: "a.go"}); err != nil {
				t.Fatal(err)
			}
			if err := workspace.WriteFileAtomic(filepath.Join(workspace.Dir(root), "cache.json"), []byte("{}"), workspace.FilePerm); err != nil {
				t.Fatal(err)
			}
			checkPrivate(t, workspace.Dir(root), "index.db-wal", "state.db-shm")
		})
	}
}

// checkPrivate fails unless dir and every directory in it are workspace.DirPerm and
// every other file in it workspace.FilePerm, and the files named exist.
func checkPrivate(t *testing.T, dir string, want ...string) {
	t.Helper()
	seen := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile (a temporary file)
		}
		seen[d.Name()] = true
		if perm, wantPerm := info.Mode().Perm(), map[bool]os.FileMode{true: workspace.DirPerm, false: workspace.FilePerm}[d.IsDir()]; perm != wantPerm {
			t.Errorf("%s: %v, want %v", p, perm, wantPerm)
		}
		return nil
	})
	for _, w := range want {
		if !seen[w] {
			t.Errorf("%s has no %s", dir, w)
		}
	}
}

// A writer that unmaps the index reads it through the page cache in each of
// its transactions, Next's included, and leaves its connection mapped again
// after each commit, for the readers that use the connection next.
func TestUnmappedWriterRestoresTheMap(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), Options{SingleConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func(q querier) int64 {
		t.Helper()
		rows, err := q.QueryContext(ctx, "PRAGMA main.mmap_size")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var n int64
		if !rows.Next() {
			t.Fatal("PRAGMA mmap_size returned no row")
		}
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Unmap(ctx); err != nil {
		t.Fatal(err)
	}
	if got := size(w.tx); got != 0 {
		t.Errorf("unmapped writer maps %d bytes", got)
	}
	if w, err = w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if got := size(w.tx); got != 0 {
		t.Errorf("writer after Next maps %d bytes", got)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := size(s.DB()); got != mmapSize {
		t.Errorf("after commit the connection maps %d bytes, want %d", got, mmapSize)
	}
}

// Generation changes with this Store's own commits and, on a store of one
// connection, with another connection's (another process's) too: a hook
// must see that a background index run re-indexed between its query and
// its freshness check.
func TestGenerationSeesOtherCommits(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	commit := func(s *Store, value string) {
		t.Helper()
		w, err := s.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetMeta(ctx, "test_generation", value); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	hook, err := Open(ctx, root, Options{SingleConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	other, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	g0 := hook.Generation(ctx)
	if g := hook.Generation(ctx); g != g0 {
		t.Fatalf("generation moved without a commit: %d → %d", g0, g)
	}
	commit(other, "1")
	g1 := hook.Generation(ctx)
	if g1 == g0 {
		t.Fatal("another connection's commit left the generation as it was")
	}
	commit(hook, "2")
	if g := hook.Generation(ctx); g == g1 {
		t.Fatal("the store's own commit left the generation as it was")
	}
}

// TestCappedEdgesIgnoreIndexOrder: a capped list of an entity's users is the
// same whatever order the callers' files were written in, and after one of
// them is written again (an incremental re-index gives its refs new rowids).
func TestCappedEdgesIgnoreIndexOrder(t *testing.T) {
	ctx := context.Background()
	const target = 1001
	caller := func(id int64) *FileData {
		fd := sampleFile(fmt.Sprintf("c%d.go", id), id)
		fd.Refs = []Ref{{SrcID: id + 1, FileID: id, Kind: RefCalls, Name: "Serve", Line: 3, DstID: target}}
		return fd
	}
	callees := func(s *Store) []int64 {
		t.Helper()
		edges, err := s.EdgesTo(ctx, []int64{target}, 2)
		if err != nil {
			t.Fatal(err)
		}
		var srcs []int64
		for _, e := range edges {
			srcs = append(srcs, e.Src)
		}
		return srcs
	}
	want := []int64{11, 21} // the smallest stable ids, whatever the order
	for _, order := range [][]int64{{10, 20, 30}, {30, 20, 10}, {20, 30, 10}} {
		s := openTest(t, t.TempDir())
		putFile(t, s, sampleFile("t.go", 1000))
		for _, id := range order {
			putFile(t, s, caller(id))
		}
		if got := callees(s); !slices.Equal(got, want) {
			t.Errorf("written in order %v: users %v, want %v", order, got, want)
		}
		w, err := s.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.PutFile(ctx, caller(order[0]), true); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := callees(s); !slices.Equal(got, want) {
			t.Errorf("order %v, %d written again: users %v, want %v", order, order[0], got, want)
		}
	}
}

// Equal scores are cut by the stable entity id, not by the full-text row
// number, which follows the order files were written in: the same files
// written in two orders give the same hits.
func TestSearchTiesIgnoreWriteOrder(t *testing.T) {
	ctx := context.Background()
	paths := []string{"a.go", "b.go", "c.go", "d.go", "e.go", "f.go"}
	var first []Hit
	for _, reverse := range []bool{false, true} {
		s := openTest(t, t.TempDir())
		w, err := s.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		order := slices.Clone(paths)
		if reverse {
			slices.Reverse(order)
		}
		for _, p := range order {
			id := int64(100 + 10*slices.Index(paths, p))
			if err := w.PutFile(ctx, sampleFile(p, id), false); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, []string{"listenandserve"}, FieldWeights{5, 3, 2.5, 2, 1.2, 1}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 3 || hits[0].Score != hits[2].Score {
			t.Fatalf("hits %+v: want three of six equal scores", hits)
		}
		if first == nil {
			first = hits
		} else if !slices.Equal(hits, first) {
			t.Errorf("written in reverse, hits %+v; in order, %+v", hits, first)
		}
	}
	for i, h := range first {
		if want := int64(101 + 10*i); h.ID != want {
			t.Errorf("hit %d is %d, want %d (the smallest ids)", i, h.ID, want)
		}
	}
}

// twoSampleFiles is an index of sampleFile at a.go (id 100) and b.go (110).
func twoSampleFiles(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"a.go", "b.go"} {
		if err := w.PutFile(ctx, sampleFile(p, int64(100+10*i)), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// NamedByAll finds names that hold every term, in any order, in the name
// field only.
func TestNamedByAll(t *testing.T) {
	s := twoSampleFiles(t)
	tests := []struct {
		terms []string
		want  []int64
	}{
		{[]string{"listen", "serv"}, []int64{101, 111}},
		{[]string{"serv", "listen"}, []int64{101, 111}}, // any order
		{[]string{"listen", "serv", "net"}, nil},        // net is in the path field, not the name
		{[]string{"listen", "http"}, nil},               // http is in the qualified name only
		{nil, nil},
	}
	for _, tc := range tests {
		hits, err := s.NamedByAll(context.Background(), tc.terms, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("NamedByAll(%q) = %v, want %v", tc.terms, got, tc.want)
		}
	}
}

// NamedByPhrase finds names whose parts follow each other as the phrase's
// terms do, in the name field only.
func TestNamedByPhrase(t *testing.T) {
	ctx := context.Background()
	s := twoSampleFiles(t)
	tests := []struct {
		terms []string
		limit int
		want  []int64
	}{
		{[]string{"listen", "serv"}, 10, []int64{101, 111}},
		{[]string{"listen", "serv"}, 1, []int64{101}},
		{[]string{"serv", "listen"}, 10, nil},         // out of order
		{[]string{"listenandserve", "serv"}, 10, nil}, // both in the name, apart
		{[]string{"listenandserve", "listen"}, 10, []int64{101, 111}},
		{[]string{"net", "http"}, 10, nil}, // in the path field, not the name
		{nil, 10, nil},
	}
	for _, tc := range tests {
		hits, err := s.NamedByPhrase(ctx, tc.terms, tc.limit, analyzer.Terms)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, h := range hits {
			got = append(got, h.ID)
			if h.Name != "ListenAndServe" {
				t.Errorf("NamedByPhrase(%q): name %q", tc.terms, h.Name)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("NamedByPhrase(%q, %d) = %v, want %v", tc.terms, tc.limit, got, tc.want)
		}
	}
}

// A process that opens its index a second time (a daemon's index run
// beside its readers) must keep the locks its first connections hold:
// without them another process that closes the database (a sqlite3 shell,
// a backup) takes itself for the last one and checkpoints and removes the
// write-ahead log under them, which left indexes malformed. Linux lists a
// process's locks in /proc/locks.
func TestSecondOpenKeepsTheLocks(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks to read the locks from")
	}
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	putFile(t, s, sampleFile("a.go", 1000))
	reader, err := Open(ctx, root, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.Stats(ctx); err != nil { // its one connection, kept open
		t.Fatal(err)
	}
	if n := locksHeld(t, Path(root)); n == 0 {
		t.Fatal("no lock on the index while a connection is open: nothing to keep")
	}
	again, err := Open(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if n := locksHeld(t, Path(root)); n == 0 {
		t.Fatal("opening the index again dropped this process's locks on it")
	}
}

// locksHeld counts the POSIX locks this process holds on the file at path.
func locksHeld(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	pid, n := strconv.Itoa(os.Getpid()), 0
	for _, line := range strings.Split(string(data), "\n") {
		// 4: POSIX  ADVISORY  READ 3867 fe:00:11165976 1073741826 1073742335
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "POSIX" && f[4] == pid && strings.HasSuffix(f[5], ":"+strconv.FormatUint(ino, 10)) {
			n++
		}
	}
	return n
}

// TestSignatureStoredWithoutName: a signature is stored with its entity's
// name replaced by a mark and reads back whole (schema version 13).
func TestSignatureStoredWithoutName(t *testing.T) {
	for _, tc := range []struct{ name, sig, stored, read string }{
		{"FOO", "#define FOO FOO_BASE + 1", "#define \x01 \x01_BASE + 1", "#define FOO FOO_BASE + 1"},
		{"aa", "int aaa(void)", "int \x01a(void)", "int aaa(void)"},
		{"f", "void f(char c = '\x01')", "void \x01(char c = '\uFFFD')", "void f(char c = '\uFFFD')"},
		{"", "struct {", "struct {", "struct {"},
	} {
		ctx := context.Background()
		s := openTest(t, t.TempDir())
		fd := sampleFile("a.c", 10)
		fd.Entities[1].Name, fd.Entities[1].Signature = tc.name, tc.sig
		putFile(t, s, fd)
		var stored, read string
		if err := s.DB().QueryRowContext(ctx, `SELECT signature_stored, signature FROM entities WHERE id = 11`).Scan(&stored, &read); err != nil {
			t.Fatal(err)
		}
		if stored != tc.stored || read != tc.read {
			t.Errorf("%q of %q: stored %q, read %q; want %q, %q", tc.sig, tc.name, stored, read, tc.stored, tc.read)
		}
	}
}

// TestStoredKindsAndParents: an entity's kind, stored as a code, and its
// parent, stored only where it is not the file, read back as written
// (schema version 13).
func TestStoredKindsAndParents(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("a.c", 100)
	fd.Entities = fd.Entities[:1]
	kinds := []string{"macro"} // no code: stored as itself
	for k := range kindCodes {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	want := map[int64]Entity{100: fd.Entities[0]}
	for i, k := range kinds {
		id := int64(101 + i)
		e := Entity{ID: id, FileID: 100, Kind: k, Name: "e" + k, QName: "e" + k, StartLine: 1, EndLine: 1}
		switch i % 3 {
		case 0:
			e.ParentID = 100 // the file
		case 1:
			e.ParentID = 101 // another entity
		}
		fd.Entities = append(fd.Entities, e)
		want[id] = e
	}
	fd.Docs, fd.Refs = nil, nil
	putFile(t, s, fd)
	rows, err := s.DB().QueryContext(ctx, `SELECT id, kind, coalesce(parent_id, 0), typeof(kind_stored), length(kind_stored) FROM entities`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, parent int64
		var kind, typ string
		var stored int
		if err := rows.Scan(&id, &kind, &parent, &typ, &stored); err != nil {
			t.Fatal(err)
		}
		n++
		w := want[id]
		if kind != w.Kind || parent != w.ParentID {
			t.Errorf("entity %d: kind %q, parent %d; want %q, %d", id, kind, parent, w.Kind, w.ParentID)
		}
		if _, coded := kindCodes[kind]; coded && stored > 2 {
			t.Errorf("entity %d: kind %q stored in %d bytes", id, kind, stored)
		}
	}
	if err := rows.Err(); err != nil || n != len(want) {
		t.Fatalf("%d entities read (%v), want %d", n, err, len(want))
	}
}
