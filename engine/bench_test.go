package engine

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/store"
)

// BenchmarkRefresh measures one auto-context rewrite after an edit on a
// large indexed tree: CTXLS_BENCH_TREE names its root (make bench-lsp leaves
// one in /tmp/ctxls-bench-lsp/src).
func BenchmarkRefresh(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_TREE")
	if root == "" {
		b.Skip("CTXLS_BENCH_TREE not set")
	}
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e := New(Options{Root: root, Store: st, Config: config.Default(), Debounce: 1 << 62})
	defer e.Close()
	// A full memory: an open, hovers and edits, as after a few minutes of
	// work.
	e.Record(Activity{Type: FileOpen, Path: "net/http/server.go"})
	for _, s := range []string{"Handler", "ResponseWriter", "conn", "Serve", "ListenAndServe"} {
		e.Record(Activity{Type: SymbolHover, Path: "net/http/server.go", Symbol: s, Line: 100})
	}
	e.Record(Activity{Type: FileEdit, Path: "net/http/server.go", ChangedSymbols: []string{"ServeHTTP"}})
	e.Record(Activity{Type: FileEdit, Path: "net/http/server.go", ChangedSymbols: []string{"readRequest", "finishRequest"}})
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := e.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	// CPU per rewrite: on a shared, loaded machine wall time mostly
	// measures the other processes.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user and system CPU this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
