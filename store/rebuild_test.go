package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestRenameCreate(t *testing.T) {
	tests := []struct {
		ddl, name, want string
		err             bool
	}{
		{"CREATE TABLE files (\n\tid INTEGER)", "files", "CREATE TABLE rebuild_files (\n\tid INTEGER)", false},
		{`CREATE TABLE "files" (id INTEGER)`, "files", "CREATE TABLE rebuild_files (id INTEGER)", false},
		{"CREATE TABLE `files`(id)", "files", "CREATE TABLE rebuild_files(id)", false},
		{"CREATE TABLE [files](id)", "files", "CREATE TABLE rebuild_files(id)", false},
		{"CREATE VIRTUAL TABLE fts USING fts5(name)", "fts", "CREATE VIRTUAL TABLE rebuild_fts USING fts5(name)", false},
		{"CREATE TABLE files_old (id)", "files", "", true},
		{"CREATE INDEX files_path ON files(path)", "files", "", true},
		{`CREATE TABLE "files`, "files", "", true},
	}
	for _, tt := range tests {
		got, err := renameCreate(tt.ddl, tt.name, rebuildPrefix+tt.name)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("renameCreate(%q) = %q, %v; want %q (error %v)", tt.ddl, got, err, tt.want, tt.err)
		}
	}
}

// Every table of the schema is either derived from the code (rebuilt after
// an analyzer change) or state that a rebuild keeps: a new table must be
// put in one of the two lists.
func TestEveryTableIsRebuiltOrKept(t *testing.T) {
	s := openTest(t, t.TempDir())
	kept := []string{"meta", "session_pending", "session_injected", "session_stats", "activity",
		"memories", "fts_memories", "fts_vocab", "fts_memories_vocab",
		// The git history: derived from the repository, not the code;
		// package history re-analyses it after an analyzer change.
		"commits", "commit_files", "fts_commits"}
	fts := []string{}
	rows, err := s.DB().Query(`SELECT name, sql FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name, sql string
		if err := rows.Scan(&name, &sql); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if strings.Contains(sql, "USING fts5(") {
			fts = append(fts, name)
		}
	}
	for _, name := range names {
		if slices.ContainsFunc(fts, func(f string) bool {
			return slices.Contains([]string{f + "_data", f + "_idx", f + "_docsize", f + "_config", f + "_content"}, name)
		}) {
			continue // an FTS5 table's own storage, which goes with it
		}
		if slices.Contains(kept, name) == slices.Contains(codeTables, name) {
			t.Errorf("table %s: is it derived from the code (codeTables) or kept across a rebuild?", name)
		}
	}
}

func TestSwapRebuildNeedsARebuildWriter(t *testing.T) {
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	if err := w.SwapRebuild(context.Background()); err == nil {
		t.Fatal("SwapRebuild on the live tables' writer succeeded")
	}
}
