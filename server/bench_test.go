package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// BenchmarkDidChange measures the didChange handler on the largest file of
// GOROOT/src (net/http/server.go, 3,700 lines): apply an edit inside a
// function body, re-parse and find the changed symbols. No folder is open,
// so no rewrite follows: this is the part of didChange → auto-context that
// happens before the engine.
func BenchmarkDidChange(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip("GOROOT/src/net/http/server.go:", err)
	}
	s := New(Options{})
	defer s.sess.Close()
	u := uri.File(filepath.Join(b.TempDir(), "server.go"))
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": string(src)}})
	if _, err := s.didOpen(context.Background(), open); err != nil {
		b.Fatal(err)
	}
	// The first line of every function body, kept up to date as edits
	// insert lines (as bench-lsp edits: a statement into a function body).
	var bodies []int
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{") {
			bodies = append(bodies, i+1)
		}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		k := (i * 31) % len(bodies)
		line := bodies[k]
		for j := k + 1; j < len(bodies); j++ {
			bodies[j]++
		}
		ch, _ := json.Marshal(map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": i + 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}}, "text": fmt.Sprintf("\t_ = %d\n", i)}},
		})
		if _, err := s.didChange(context.Background(), ch); err != nil {
			b.Fatal(err)
		}
	}
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
