package store

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func TestEntityIDsInFileAndLocate(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := sampleFile("net/http/server.go", 100)
	// Entities out of source order, and one sharing another's start line,
	// so that the order comes from the query, not from insertion.
	f.Entities = append(f.Entities,
		Entity{ID: 103, FileID: 100, ParentID: 100, Kind: "method", Name: "Close", QName: "http.Server.Close", StartLine: 7, EndLine: 8},
		Entity{ID: 102, FileID: 100, ParentID: 100, Kind: "type", Name: "Server", QName: "http.Server", StartLine: 2, EndLine: 9},
	)
	f.Docs = append(f.Docs, Doc{ID: 103, Name: "close"}, Doc{ID: 102, Name: "server"})
	if err := w.PutFile(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile(ctx, sampleFile("net/http/client.go", 200), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"net/http/server.go", "net/http/client.go", "missing.go"} {
		ents, err := s.EntitiesInFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var ordered []int64
		for _, e := range ents {
			ordered = append(ordered, e.ID)
		}
		// Up to the limit: all ids, in any order.
		got, err := s.EntityIDsInFile(ctx, path, len(ordered))
		if err != nil || !reflect.DeepEqual(sorted(got), sorted(ordered)) {
			t.Errorf("EntityIDsInFile(%s, %d) = %v, %v; want the ids of %v", path, len(ordered), got, err, ordered)
		}
		// Past it: the first ones in EntitiesInFile's order.
		if len(ordered) > 2 {
			got, err := s.EntityIDsInFile(ctx, path, 2)
			if err != nil || !reflect.DeepEqual(got, ordered[:2]) {
				t.Errorf("EntityIDsInFile(%s, 2) = %v, %v; want %v", path, got, err, ordered[:2])
			}
		}
	}

	tests := []struct {
		name string
		ids  []int64
		want map[int64]Located
	}{
		{"none", nil, map[int64]Located{}},
		{"two files, a stale id and a repeat", []int64{103, 201, 999, 103}, map[int64]Located{
			103: {QName: "http.Server.Close", Path: "net/http/server.go", Line: 7},
			201: {QName: "http.ListenAndServe", Path: "net/http/client.go", Line: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Locate(ctx, tt.ids)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Locate(%v) = %v, %v; want %v", tt.ids, got, err, tt.want)
			}
		})
	}
}

// FileEntity reads the file entity EntitiesInFile lists first, and says
// when a path is not tracked.
func TestFileEntityIsTheFirstOfItsFile(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	putFile(t, s, sampleFile("net/http/server.go", 10))
	all, err := s.EntitiesInFile(ctx, "net/http/server.go")
	if err != nil || len(all) < 2 {
		t.Fatalf("EntitiesInFile = %d entities, %v", len(all), err)
	}
	for _, tc := range []struct {
		path string
		want Entity
		ok   bool
	}{
		{"net/http/server.go", all[0], true},
		{"net/http/client.go", Entity{}, false},
	} {
		got, ok, err := s.FileEntity(ctx, tc.path)
		if err != nil || ok != tc.ok || got != tc.want {
			t.Errorf("FileEntity(%q) = %+v, %v, %v; want %+v, %v", tc.path, got, ok, err, tc.want, tc.ok)
		}
	}
}

// FilesByPathSuffix matches whole trailing components, ignores the case of
// ASCII letters as a path typed in a message may, leaves out files that were
// not parsed, and lists the shortest paths first.
func TestFilesByPathSuffix(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	for i, p := range []string{"src/index.ts", "src/middleware/cors/index.ts", "src/jsx/index.ts", "docs/README.md", "app/index.ts", "main.ts"} {
		putFile(t, s, sampleFile(p, int64(100*(i+1))))
	}
	skipped := sampleFile("vendor/big/index.ts", 900)
	skipped.File.Skip = "too large"
	skipped.Entities, skipped.Docs, skipped.Refs = nil, nil, nil
	putFile(t, s, skipped)
	for _, tc := range []struct {
		suffix string
		limit  int
		want   string
	}{
		{"index.ts", 10, "app/index.ts src/index.ts src/jsx/index.ts src/middleware/cors/index.ts"},
		{"index.ts", 2, "app/index.ts src/index.ts"},
		{"main.ts", 10, "main.ts"},
		{"cors/index.ts", 10, "src/middleware/cors/index.ts"},
		{"Middleware/CORS/index.ts", 10, "src/middleware/cors/index.ts"},
		{"ors/index.ts", 10, ""},
		{"docs/readme.md", 10, "docs/README.md"},
		{"vendor/big/index.ts", 10, ""},
		{"src/", 10, ""},
	} {
		files, err := s.FilesByPathSuffix(ctx, tc.suffix, tc.limit)
		var got []string
		for _, f := range files {
			got = append(got, f.Path)
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("FilesByPathSuffix(%q, %d) = %q, %v; want %q", tc.suffix, tc.limit, got, err, tc.want)
		}
	}
}

// A search keeps the best rows by the weighted score: a word's one match by
// name is found though thirty shorter rows hold it in their bodies, which
// rank above it when every column weighs the same (FTS5's default rank).
func TestSearchChoosesRowsByWeightedScore(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := &FileData{File: File{ID: 1, Path: "a.go", Lang: "go", Size: 10, MTime: 1, Hash: "h", IndexedAt: 1}}
	fd.Entities = append(fd.Entities, Entity{ID: 1, FileID: 1, Kind: "file", Name: "a.go", QName: "a.go", StartLine: 1, EndLine: 200})
	fd.Docs = append(fd.Docs, Doc{ID: 1, Path: "a"})
	named := int64(1000)
	fd.Entities = append(fd.Entities, Entity{ID: named, FileID: 1, ParentID: 1, Kind: "function", Name: "Flush", QName: "Flush", StartLine: 2, EndLine: 9})
	fd.Docs = append(fd.Docs, Doc{ID: named, Name: "flush", Body: "write pending bytes"})
	for i := range 30 {
		id := int64(10 + i)
		fd.Entities = append(fd.Entities, Entity{ID: id, FileID: 1, ParentID: 1, Kind: "function", Name: fmt.Sprintf("f%d", i), QName: fmt.Sprintf("f%d", i), StartLine: 10 + i, EndLine: 10 + i})
		fd.Docs = append(fd.Docs, Doc{ID: id, Name: fmt.Sprintf("f%d", i), Body: "flush"})
	}
	for i := range 100 { // rows without the word, so that it is not a common word
		id := int64(100 + i)
		fd.Entities = append(fd.Entities, Entity{ID: id, FileID: 1, ParentID: 1, Kind: "function", Name: fmt.Sprintf("g%d", i), QName: fmt.Sprintf("g%d", i), StartLine: 50 + i, EndLine: 50 + i})
		fd.Docs = append(fd.Docs, Doc{ID: id, Name: fmt.Sprintf("g%d", i), Body: "read"})
	}
	putFile(t, s, fd)
	hits, err := s.Search(ctx, []string{"flush"}, FieldWeights{5, 3, 2.5, 2, 1.2, 1}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != named {
		t.Fatalf("Search = %+v, %v; want entity %d, named by the word", hits, err, named)
	}
}

// FilesByStem finds the file a module path names among many files of the
// same base name, however deep it is.
func TestFilesByStemAmongManyOfOneName(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	for i := range 70 {
		putFile(t, s, sampleFile(fmt.Sprintf("p%02d/utils.py", i), int64(100*(i+1))))
	}
	putFile(t, s, sampleFile("vendor/lib/src/requests/utils.py", 90000))
	files, err := s.FilesByStem(ctx, "requests/utils", 4)
	if err != nil || len(files) != 1 || files[0].Path != "vendor/lib/src/requests/utils.py" {
		t.Fatalf("FilesByStem(requests/utils) = %+v, %v", files, err)
	}
	files, err = s.FilesByStem(ctx, "utils", 2)
	if err != nil || len(files) != 2 || files[0].Path != "p00/utils.py" || files[1].Path != "p01/utils.py" {
		t.Fatalf("FilesByStem(utils, 2) = %+v, %v", files, err)
	}
}
