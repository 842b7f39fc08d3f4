package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

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
			os.MkdirAll(Dir(root), 0o755)
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

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.md")
	if err := WriteFileAtomic(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	info, _ := os.Stat(p)
	entries, _ := os.ReadDir(dir)
	if string(data) != "two" || info.Mode().Perm() != 0o600 || len(entries) != 1 {
		t.Fatalf("content %q mode %v entries %d", data, info.Mode(), len(entries))
	}
}
