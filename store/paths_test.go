package store

import (
	"context"
	"testing"
)

// FileStats returns what Files does for the columns it reads, whatever the
// paths and reasons hold.
func TestFileStatsMatchesFiles(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	if got, err := s.FileStats(ctx); err != nil || len(got) != 0 {
		t.Fatalf("FileStats on an empty index = %v, %v", got, err)
	}
	files := []File{
		{ID: 1, Path: "a.go", Lang: "go", Size: 10, MTime: 1700000000123456789, Hash: "h1", IndexedAt: 1},
		{ID: 2, Path: "dir,with,commas/12,34.go", Lang: "go", Size: 0, MTime: -5, Hash: "h2", Skip: "too large", IndexedAt: 1},
		{ID: 3, Path: "new\nline/ünïcødé 文件.py", Lang: "python", Size: 1 << 40, MTime: 0, Hash: "h3", Skip: "binary (NUL bytes)", IndexedAt: 1},
		{ID: 4, Path: "7,7,7,7,7,", Lang: "go", Size: 7, MTime: 7, Hash: "h4", Skip: "a,b", IndexedAt: 1},
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if err := w.UpsertFile(ctx, &files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := s.FileStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]FileStat{}
	for _, f := range got {
		byPath[f.Path] = f
	}
	if len(got) != len(files) || len(byPath) != len(files) {
		t.Fatalf("FileStats returned %d rows (%d paths), want %d", len(got), len(byPath), len(files))
	}
	for _, f := range files {
		want := FileStat{Path: f.Path, ID: f.ID, Size: f.Size, MTime: f.MTime, Skip: f.Skip}
		if byPath[f.Path] != want {
			t.Errorf("FileStats[%q] = %+v, want %+v", f.Path, byPath[f.Path], want)
		}
	}
}
