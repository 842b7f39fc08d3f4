package symbols

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// These benchmarks split BenchmarkExtractNetHTTP into its stages (parse
// only; parse and run the query without looking at the matches) and report
// throughput per CPU second as well as per wall second: on a shared machine
// the wall figure mostly measures the neighbours.

func netHTTPSources(b *testing.B) [][]byte {
	paths, _ := filepath.Glob(filepath.Join(goroot(b), "src", "net", "http", "*.go"))
	if len(paths) == 0 {
		b.Skip("no GOROOT sources")
	}
	var srcs [][]byte
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	return srcs
}

// cpuSeconds is the process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func benchStage(b *testing.B, stage func(p *sitter.Parser, cur *sitter.QueryCursor, q *sitter.Query, src []byte)) {
	srcs := netHTTPSources(b)
	lang, _ := LanguageFor("x.go")
	q, err := lang.compiled()
	if err != nil {
		b.Fatal(err)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang.grammar())
	cur := sitter.NewQueryCursor()
	defer cur.Close()
	var total int64
	for _, src := range srcs {
		total += int64(len(src))
	}
	b.SetBytes(total)
	c0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			stage(p, cur, q, src)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total)*float64(b.N)/1e6/(cpuSeconds()-c0), "MB/cpu-s")
}

func BenchmarkParseNetHTTP(b *testing.B) {
	benchStage(b, func(p *sitter.Parser, _ *sitter.QueryCursor, _ *sitter.Query, src []byte) {
		t, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		t.Close()
	})
}

func BenchmarkParseAndQueryNetHTTP(b *testing.B) {
	benchStage(b, func(p *sitter.Parser, cur *sitter.QueryCursor, q *sitter.Query, src []byte) {
		t, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		cur.Exec(q, t.RootNode())
		for {
			if _, ok := cur.NextMatch(); !ok {
				break
			}
		}
		t.Close()
	})
}
