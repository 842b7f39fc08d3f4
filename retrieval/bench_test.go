package retrieval

import (
	"context"
	"os"
	"sort"
	"syscall"
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
	benchQueries(b, func(q string) Request { return Request{Text: q, Limit: 10} })
}

// BenchmarkPromptQuery is the prompt hook's retrieval without its process:
// the request ForPrompt makes with the default 10 sections.
func BenchmarkPromptQuery(b *testing.B) {
	benchQueries(b, func(q string) Request { return ForPrompt(q, 10) })
}

// benchQueries runs Query with the request of each bench query on the store
// of CTXLS_BENCH_ROOT and reports the median and p95 of one query and,
// beside them, the process's CPU time per query, which stays comparable on
// a machine shared with other work, where wall time does not.
func benchQueries(b *testing.B, request func(q string) Request) {
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
	cpu0 := cpuTime(b)
	for b.Loop() {
		for _, q := range queries {
			start := time.Now()
			if _, err := Query(ctx, st, request(q)); err != nil {
				b.Fatalf("%q: %v", q, err)
			}
			ds = append(ds, time.Since(start))
		}
	}
	cpu := cpuTime(b) - cpu0
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(ds[len(ds)/2]), "median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, (len(ds)*95+99)/100-1)]), "p95-ms")
	b.ReportMetric(ms(cpu)/float64(len(ds)), "cpu-ms/query")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
