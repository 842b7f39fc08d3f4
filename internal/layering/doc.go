// Package layering holds no code: its test checks, over `go list -deps` and
// the sources, the rules that keep ctxls's packages in their layers (see
// docs/ARCHITECTURE.md): only package store (and store/ftsrank, its SQLite
// extension) touches SQLite, retrieval ranks without the indexer, and the
// thin client and the workspace layout link only the standard library.
package layering
