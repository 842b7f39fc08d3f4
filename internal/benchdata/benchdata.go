// Package benchdata gives benchmarks the fixed query list the bench scripts
// use (scripts/queries.txt), so that Go benchmarks and whole-process
// measurements run the same prompts.
package benchdata

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Queries returns the non-empty lines of $CTXLS_BENCH_QUERIES, else of the
// repository's scripts/queries.txt.
func Queries(tb testing.TB) []string {
	tb.Helper()
	p := os.Getenv("CTXLS_BENCH_QUERIES")
	if p == "" {
		_, file, _, _ := runtime.Caller(0)
		p = filepath.Join(filepath.Dir(file), "..", "..", "scripts", "queries.txt")
	}
	f, err := os.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			qs = append(qs, q)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(qs) == 0 {
		tb.Fatalf("no queries in %s", p)
	}
	return qs
}
