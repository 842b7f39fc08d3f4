package mcpserver

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/benchdata"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

// BenchmarkContextQuery measures context_query on an indexed large tree
// (CTXLS_BENCH_ROOT, e.g. a copy of GOROOT/src; `make bench-mcp` prepares
// it) over the queries of scripts/queries.txt, reporting the median and p95
// of one call:
//
//   - stdio: the built binary's `ctxls mcp` ($CTXLS_BIN) through the SDK's
//     client, what an MCP client sees;
//   - inmemory: the server in this process over an in-memory transport;
//   - retrieval: retrieval.QueryContext alone, the floor both build on.
func BenchmarkContextQuery(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_ROOT not set (make bench-mcp sets it)")
	}
	queries := benchdata.Queries(b)
	ctx := context.Background()
	b.Run("stdio", func(b *testing.B) {
		bin := os.Getenv("CTXLS_BIN")
		if bin == "" {
			b.Skip("CTXLS_BIN not set")
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--root", root)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		latencies(b, queries, func(q string) error { return callContextQuery(ctx, cs, q) })
	})
	b.Run("inmemory", func(b *testing.B) {
		srv, err := New(Options{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		latencies(b, queries, func(q string) error { return callContextQuery(ctx, cs, q) })
	})
	b.Run("retrieval", func(b *testing.B) {
		st, err := store.Open(ctx, root, store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		cfg := config.Default()
		latencies(b, queries, func(q string) error {
			_, _, err := retrieval.QueryContext(ctx, st, retrieval.Request{Text: q, MinRelevance: cfg.Retrieval.MinRelevance},
				retrieval.ContextOptions{Root: root, MaxTokens: cfg.Retrieval.MaxTokens, MaxSections: cfg.Retrieval.MaxSections})
			return err
		})
	})
}

func callContextQuery(ctx context.Context, cs *mcp.ClientSession, q string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "context_query", Arguments: map[string]any{"text": q}})
	if err == nil && res.IsError {
		err = errorText(res)
	}
	return err
}

type toolError string

func (e toolError) Error() string { return string(e) }

func errorText(res *mcp.CallToolResult) error {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return toolError(b.String())
}

// latencies runs every query once to warm up, then b.N passes over them,
// and reports the median and p95 of one call.
func latencies(b *testing.B, queries []string, run func(string) error) {
	for _, q := range queries {
		if err := run(q); err != nil {
			b.Fatalf("%q: %v", q, err)
		}
	}
	var ds []time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		for _, q := range queries {
			start := time.Now()
			if err := run(q); err != nil {
				b.Fatalf("%q: %v", q, err)
			}
			ds = append(ds, time.Since(start))
		}
	}
	b.StopTimer()
	// CPU time of this process per call: what a call costs without other
	// processes competing for the cores (the stdio server's CPU is in the
	// child process, so for stdio it is the client's share only).
	b.ReportMetric(ms(cpuTime()-cpu0)/float64(len(ds)), "cpu-ms/query")
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(ms(ds[len(ds)/2]), "median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, (len(ds)*95+99)/100-1)]), "p95-ms")
	b.ReportMetric(float64(len(ds))/float64(b.N), "queries/op")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
