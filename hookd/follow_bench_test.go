package hookd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/store"
)

// saveFiles are the files BenchmarkFollowSave saves in turn: net/http's
// server.go (the example, 4,000 lines) and files of other sizes
// and packages of GOROOT/src.
var saveFiles = []string{
	"net/http/server.go",
	"net/url/url.go",
	"strings/strings.go",
	"encoding/json/decode.go",
	"go/types/call.go",
	"os/file.go",
}

// BenchmarkFollowSave measures issue 19's "from the write to an index that
// contains it": a running daemon on an indexed tree (CTXLS_BENCH_ROOT, a
// copy of GOROOT/src indexed with `ctxls index`, which the benchmark
// changes and restores), a new function appended to one of saveFiles as
// an editor saves it, and the time until the index holds it, polled every
// millisecond through a read-only store. It reports the median and p95 of
// those times over all iterations, and from the daemon's log the median
// time of its re-index alone (the rest is the follow loop's coalescing
// delay and the watcher).
//
//	CTXLS_BENCH_ROOT=/tmp/goroot/src go test -tags sqlite_fts5 -run '^$' -bench FollowSave -benchtime 60x ./hookd/
func BenchmarkFollowSave(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_ROOT not set (an indexed copy of GOROOT/src)")
	}
	b.Setenv("XDG_RUNTIME_DIR", b.TempDir())
	originals := map[string][]byte{}
	for _, rel := range saveFiles {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			b.Fatal(err)
		}
		originals[rel] = data
	}
	logPath := filepath.Join(b.TempDir(), "daemon.log")
	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(zap.DebugLevel)
	cfg.OutputPaths, cfg.ErrorOutputPaths = []string{logPath}, []string{logPath}
	log, err := cfg.Build()
	if err != nil {
		b.Fatal(err)
	}
	serveWith(b, ServeOptions{Root: root, Identity: "bench-build", Log: log})
	st, err := store.Open(context.Background(), root, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.Cleanup(func() {
		for rel, data := range originals {
			os.WriteFile(filepath.Join(root, rel), data, 0o644)
		}
	})
	// The watches are in place once the socket listens; let the daemon's
	// first freshness walk settle before timing.
	time.Sleep(2 * time.Second)
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rel := saveFiles[i%len(saveFiles)]
		// Unique across the benchmark's runs (b.N grows from 1).
		name := fmt.Sprintf("ctxlsSaveProbe%d_%d", b.N, i)
		data := append(slices.Clone(originals[rel]), fmt.Sprintf("\n// %s is appended by BenchmarkFollowSave.\nfunc %s() {}\n", name, name)...)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(root, rel), data, 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			ents, err := st.EntitiesByName(ctx, name, 1)
			if err != nil {
				b.Fatal(err)
			}
			if len(ents) > 0 {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatalf("%s in %s did not reach the index within 10 s", name, rel)
			}
			time.Sleep(time.Millisecond)
		}
		took = append(took, time.Since(start))
		if os.Getenv("CTXLS_BENCH_TRACE") != "" {
			fmt.Fprintf(os.Stderr, "save %d %s %.1f ms\n", i, rel, float64(time.Since(start).Microseconds())/1000)
		}
		// Between saves, as between a person's: the next write is not
		// coalesced with this one.
		b.StopTimer()
		time.Sleep(100 * time.Millisecond)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[(len(took)*95+99)/100-1].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
	log.Sync()
	if updates := reindexTimes(b, logPath); len(updates) > 0 {
		slices.Sort(updates)
		b.ReportMetric(updates[len(updates)/2]*1000, "reindex-median-ms")
	}
}

// reindexTimes returns the seconds of the follow loop's one-file re-indexes
// recorded in a daemon's JSON log.
func reindexTimes(b *testing.B, path string) []float64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			Msg   string  `json:"msg"`
			Files int     `json:"files"`
			Took  float64 `json:"took"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Msg == "follow files: re-indexed" && e.Files == 1 {
			out = append(out, e.Took)
		}
	}
	return out
}
