package index

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/ctxls/ctxls/store"
)

// BenchmarkResolverDefinitions measures the memory a cold run's resolution
// holds for the definitions of an existing index (CTXLS_BENCH_INDEX_ROOT: a
// workspace root whose .ctxls/index.db to read; a copy, as the benchmark
// opens it for writing and rolls back): the resolver's compact form against
// the store.Def rows it replaced (decision 0106).
//
//	CTXLS_BENCH_INDEX_ROOT=/tmp/k go test -tags sqlite_fts5 -run '^$' -bench ResolverDefinitions -benchtime 1x ./index/
func BenchmarkResolverDefinitions(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_INDEX_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_INDEX_ROOT not set")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	heap := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / 1e6
	}
	for range b.N {
		base := heap()
		rows, err := st.Definitions(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(heap()-base, "MB-rows")
		b.ReportMetric(float64(len(rows)), "defs")
		runtime.KeepAlive(rows) // live until measured
		rows = nil
		base = heap()
		w, err := st.BeginWrite(ctx)
		if err != nil {
			b.Fatal(err)
		}
		res := newResolver(newFileSet(map[string]int64{}))
		err = w.EachDefinition(ctx, nil, addDef(res))
		w.Rollback()
		if err != nil {
			b.Fatal(err)
		}
		res.sortDefs()
		b.ReportMetric(heap()-base, "MB-resolver")
		runtime.KeepAlive(res)
	}
}
