package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/store"
)

// BenchmarkUpdateOneFile measures the re-index of one saved file, as the
// hook daemon's follow loop runs it (Update of one Change, one worker, one
// connection, the path set kept between updates), on an indexed tree
// (CTXLS_BENCH_INDEX_ROOT, a copy of GOROOT/src indexed with `ctxls index`;
// the benchmark changes net/http/server.go and puts it back): the part of
// issue 19's save-to-index time that is the index's.
//
//	CTXLS_BENCH_INDEX_ROOT=/tmp/goroot/src go test -tags sqlite_fts5 -run '^$' -bench UpdateOneFile -benchtime 20x ./index/
func BenchmarkUpdateOneFile(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_INDEX_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_INDEX_ROOT not set")
	}
	const rel = "net/http/server.go"
	path := filepath.Join(root, rel)
	original, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.WriteFile(path, original, 0o644) })
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{SingleConnection: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cfg, err := config.Load(root)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Root: root, Config: cfg, Workers: 1, Resident: &Resident{}}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		// Unique across the benchmark's runs (b.N grows from 1): an
		// unchanged hash is not re-parsed.
		data := append(slices.Clone(original), fmt.Sprintf("\nfunc benchUpdate%d() {}\n", time.Now().UnixNano())...)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := Update(ctx, st, opts, []Change{{Path: rel}})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Parsed != 1 {
			b.Fatalf("parsed %d files, want 1: %+v", sum.Parsed, sum)
		}
	}
}
