package retrieval

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/benchdata"
	"github.com/ctxls/ctxls/store"
)

// BenchmarkQuery is `ctxls query --limit 10` without its process: Query on
// an open store of a large indexed tree (CTXLS_BENCH_ROOT, e.g. the copy of
// GOROOT/src `make bench-query` prepares) over scripts/queries.txt, files
// and entities ranked. It reports the median and p95 of one query.
func BenchmarkQuery(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_ROOT not set")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	queries := benchdata.Queries(b)
	var ds []time.Duration
	for b.Loop() {
		for _, q := range queries {
			start := time.Now()
			if _, err := Query(ctx, st, Request{Text: q, Limit: 10}); err != nil {
				b.Fatalf("%q: %v", q, err)
			}
			ds = append(ds, time.Since(start))
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(ds[len(ds)/2]), "median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, (len(ds)*95+99)/100-1)]), "p95-ms")
	b.ReportMetric(0, "ns/op")
}
