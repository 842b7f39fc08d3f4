//go:build sqlite_fts5

package main

// builtWithFTS5: the index's full-text tables need SQLite's FTS5, which
// github.com/mattn/go-sqlite3 compiles in only with the sqlite_fts5 tag.
const builtWithFTS5 = true
