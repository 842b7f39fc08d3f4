//go:build !sqlite_fts5

package main

// builtWithFTS5 is false in a build without the sqlite_fts5 tag (a plain
// `go build` or `go install`): main then refuses to run, rather than fail
// later with SQLite's "no such module: fts5".
const builtWithFTS5 = false
