package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/benchdata"
	"github.com/ctxls/ctxls/store"
)

// BenchmarkDaemonCalls is the hook daemon's share of a hook call: Run on an
// open store of a large indexed tree (CTXLS_BENCH_ROOT, e.g. the copy of
// GOROOT/src that `make bench-hooks` prepares), over the prompts of
// scripts/queries.txt, each in a new session followed by a post-tool-use
// Read of a file, as scripts/bench-hooks.sh calls them. It reports the
// median and p95 of each event; the process start and the socket round trip
// of a real call come on top (make bench-hooks measures those).
func BenchmarkDaemonCalls(b *testing.B) {
	root, run := daemonBench(b)
	prompts := benchdata.Queries(b)
	files := benchFiles(b, root)
	var ups, post []time.Duration
	pass := 0
	for b.Loop() {
		pass++
		for i, p := range prompts {
			session := fmt.Sprintf("bench-%d-%d-%d", time.Now().UnixNano(), pass, i)
			ups = append(ups, run("user-prompt-submit", map[string]any{"session_id": session, "cwd": root,
				"hook_event_name": "UserPromptSubmit", "prompt": p}))
			post = append(post, run("post-tool-use", map[string]any{"session_id": session, "cwd": root,
				"hook_event_name": "PostToolUse", "tool_name": "Read",
				"tool_input": map[string]any{"file_path": filepath.Join(root, files[i%len(files)])}, "tool_response": map[string]any{}}))
		}
	}
	report(b, "ups", ups)
	report(b, "post", post)
}

// daemonBench opens the store of CTXLS_BENCH_ROOT as the hook daemon does
// (skipping the benchmark when it is unset) and returns the root and a
// function that runs one hook call on it and times it.
func daemonBench(b *testing.B) (string, func(event string, in map[string]any) time.Duration) {
	root := os.Getenv("CTXLS_BENCH_ROOT")
	if root == "" {
		b.Skip("CTXLS_BENCH_ROOT not set")
	}
	benchHome(b)
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{SingleConnection: true}) // as hookd.Serve
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return root, func(event string, in map[string]any) time.Duration {
		data, _ := json.Marshal(in)
		start := time.Now()
		if _, err := Run(ctx, event, data, Options{Root: root, Store: st}); err != nil {
			b.Fatalf("%s: %v", event, err)
		}
		return time.Since(start)
	}
}

// benchHome points HOME at CTXLS_BENCH_HOME when set: the home with the
// fixture's agents, commands and styles that scripts/bench-hooks.sh makes,
// so that discovery has the same work as in the whole-process runs.
func benchHome(b *testing.B) {
	if h := os.Getenv("CTXLS_BENCH_HOME"); h != "" {
		b.Setenv("HOME", h)
	}
}

func report(b *testing.B, name string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(ds[len(ds)/2]), name+"-median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, (len(ds)*95+99)/100-1)]), name+"-p95-ms")
}

// benchFiles are the files bench-hooks.sh reads after each prompt.
func benchFiles(b *testing.B, root string) []string {
	var out []string
	for _, dir := range []string{"net/http", "strings", "bufio", "encoding/json"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range ents {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				out = append(out, dir+"/"+n)
			}
		}
	}
	sort.Strings(out)
	return out[:min(60, len(out))]
}

// BenchmarkDaemonEditCycle is a session's rhythm that BenchmarkDaemonCalls
// leaves out: an Edit (post-tool-use, which re-indexes the file: a write to
// the index) before each prompt, on the daemon's store. It reports the
// median and p95 of the prompt and of the edit. The edited file is a
// scratch file under zzbench/ in the tree, removed at the end.
func BenchmarkDaemonEditCycle(b *testing.B) {
	root, run := daemonBench(b)
	scratch := filepath.Join(root, "zzbench", "edit.go")
	if err := os.MkdirAll(filepath.Dir(scratch), 0o755); err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(scratch))
	prompts := benchdata.Queries(b)
	var ups, edits []time.Duration
	pass := 0
	for b.Loop() {
		pass++
		for i, p := range prompts {
			session := fmt.Sprintf("edit-%d-%d-%d", time.Now().UnixNano(), pass, i)
			src := fmt.Sprintf("package zzbench\n\n// Edited%d is edit %d of pass %d.\nfunc Edited%d() int { return %d }\n", i, i, pass, i, i)
			if err := os.WriteFile(scratch, []byte(src), 0o644); err != nil {
				b.Fatal(err)
			}
			edits = append(edits, run("post-tool-use", map[string]any{"session_id": session, "cwd": root,
				"hook_event_name": "PostToolUse", "tool_name": "Edit",
				"tool_input": map[string]any{"file_path": scratch, "old_string": "a", "new_string": "b"}, "tool_response": map[string]any{}}))
			ups = append(ups, run("user-prompt-submit", map[string]any{"session_id": session, "cwd": root,
				"hook_event_name": "UserPromptSubmit", "prompt": p}))
		}
	}
	report(b, "ups", ups)
	report(b, "edit", edits)
}
