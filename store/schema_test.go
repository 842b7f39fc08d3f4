package store

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/internal/workspace"
)

// An index of schema version 6 (files without a class) upgrades in place:
// the rows it holds are classified as the indexer would have classified
// them, and nothing has to be re-indexed.
func TestSchemaVersion6GainsFileClasses(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openTest(t, root)
	paths := map[string]workspace.Class{
		"net/http/server.go":        workspace.Source,
		"net/http/server_test.go":   workspace.Test,
		"docs/guide.md":             workspace.Doc,
		"docs/example_test.go":      workspace.Test | workspace.Doc,
		"deps/external/zlib/inf.c":  workspace.ThirdParty,
		"api/zz_generated.pb.go":    workspace.Generated,
		"gen/testdata/generated.go": workspace.Test | workspace.Generated,
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	id := int64(100)
	for p := range paths {
		ids[p] = id
		fd := sampleFile(p, id)
		if paths[p].Has(workspace.Generated) {
			fd = &FileData{File: File{ID: id, Path: p, Lang: "go", Size: 1, MTime: 1, Hash: "h", Skip: SkipGenerated, IndexedAt: 1}}
		}
		if err := w.PutFile(ctx, fd, false); err != nil {
			t.Fatal(err)
		}
		id += 10
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	// Back to version 6: the files table as it was.
	if _, err := s.DB().Exec(`ALTER TABLE files DROP COLUMN class; PRAGMA user_version = 6`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTest(t, root)
	files, err := s.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(paths) {
		t.Fatalf("after the upgrade: %d files, want %d", len(files), len(paths))
	}
	for _, f := range files {
		if f.ID != ids[f.Path] {
			t.Errorf("%s: id %d, want %d", f.Path, f.ID, ids[f.Path])
		}
		if f.Class != paths[f.Path] {
			t.Errorf("%s: class %v, want %v", f.Path, f.Class, paths[f.Path])
		}
	}
	// Entities carry their file's class to ranking.
	fn := ids["net/http/server_test.go"] + 1 // sampleFile's function
	ents, err := s.EntitiesByID(ctx, []int64{fn})
	if err != nil || ents[fn].Path != "net/http/server_test.go" || ents[fn].Class != workspace.Test {
		t.Fatalf("entity of server_test.go: %+v, %v", ents[fn], err)
	}
}
