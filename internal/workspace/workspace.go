// Package workspace holds what every part of ctxls agrees on about a
// workspace without opening its index: where its root is (FindRoot), where
// ctxls keeps its state under it (Dir, DirName), how files there are written
// (WriteFileAtomic, ReplaceFile), and what kind of file a path is (ClassOf).
//
// It imports only the standard library: the thin client cmd/ctxls links it,
// and packages that only write a file or name the state directory need not
// link SQLite through package store to do so.
package workspace
