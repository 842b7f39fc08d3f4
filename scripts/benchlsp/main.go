// Command benchlsp measures `ctxls serve` on a large real tree (make
// bench-lsp): indexing through the server, RSS after indexing, idle CPU,
// didChange → auto-context.md replaced (debounce 0), and hover round trips,
// as an editor sees them (a JSON-RPC client over the server's stdio).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

func main() {
	bin := flag.String("bin", "bin/ctxls", "the ctxls binary")
	src := flag.String("src", "", "the tree to serve (copied to -work first)")
	work := flag.String("work", "/tmp/ctxls-bench-lsp", "work directory")
	file := flag.String("file", "net/http/server.go", "the file to edit and hover in")
	edits := flag.Int("edits", 100, "didChange measurements per phase")
	hovers := flag.Int("hovers", 200, "hover measurements")
	idle := flag.Duration("idle", 10*time.Second, "idle CPU measurement window")
	flag.Parse()
	if err := run(*bin, *src, *work, *file, *edits, *hovers, *idle); err != nil {
		fmt.Fprintln(os.Stderr, "benchlsp:", err)
		os.Exit(1)
	}
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

func run(bin, src, work, rel string, nEdits, nHovers int, idle time.Duration) error {
	tree := filepath.Join(work, "src")
	if _, err := os.Stat(tree); err != nil {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		if out, err := exec.Command("cp", "-a", src, tree).CombinedOutput(); err != nil {
			return fmt.Errorf("copy %s: %v: %s", src, err, out)
		}
	}
	// The file under test starts from its pristine content each run.
	orig, err := os.ReadFile(filepath.Join(src, rel))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tree, rel), orig, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(bin, "serve", "--stdio", "--debounce", "0", "--log-file", filepath.Join(work, "serve.log"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{stdout, stdin}))
	ready := make(chan map[string]any, 64)
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "ctxls/status" {
			var m map[string]any
			_ = json.Unmarshal(req.Params(), &m)
			if m["state"] == "ready" || m["state"] == "error" {
				select {
				case ready <- m:
				default:
				}
			}
		}
		return reply(ctx, nil, nil)
	})
	ctx := context.Background()
	call := func(method string, params, result any) error {
		c, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		_, err := conn.Call(c, method, params, result)
		return err
	}

	start := time.Now()
	if err := call("initialize", map[string]any{"rootUri": uri.File(tree), "capabilities": map[string]any{}}, nil); err != nil {
		return err
	}
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	var st map[string]any
	select {
	case st = <-ready:
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("indexing did not finish")
	}
	if st["state"] == "error" {
		return fmt.Errorf("indexing failed: %v", st["message"])
	}
	fmt.Printf("bench-lsp on %s (%s), ctxls serve pid %d\n", src, tree, pid)
	fmt.Printf("initialize → index ready   %.1f s, %v entities\n", time.Since(start).Seconds(), st["entities"])
	rss, hwm := memory(pid)
	fmt.Printf("RSS after indexing         %.0f MB (peak %.0f MB; target <= 400 MB)\n", rss, hwm)

	cpu0 := cpuTicks(pid)
	time.Sleep(idle)
	cpu := float64(cpuTicks(pid)-cpu0) / 100 / idle.Seconds() * 100
	fmt.Printf("idle CPU over %s         %.2f%% of one core\n", idle, cpu)

	docURI := uri.File(filepath.Join(tree, rel))
	text := string(orig)
	if err := conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": docURI, "languageId": "go", "version": 1, "text": text}}); err != nil {
		return err
	}

	// Hover: on every identifier that names a declaration of the file.
	lines := strings.Split(text, "\n")
	type at struct{ line, char int }
	var targets []at
	decl := regexp.MustCompile(`^func (?:\([^)]*\) )?([A-Za-z_]\w*)|^type ([A-Za-z_]\w*)`)
	call2 := regexp.MustCompile(`\b([A-Za-z_]\w*)\(`)
	for i, l := range lines {
		if m := decl.FindStringSubmatchIndex(l); m != nil {
			for g := 2; g < len(m); g += 2 {
				if m[g] >= 0 {
					targets = append(targets, at{i, m[g] + 1})
				}
			}
		} else if m := call2.FindStringSubmatchIndex(l); m != nil && strings.HasPrefix(l, "\t") {
			targets = append(targets, at{i, m[2] + 1})
		}
	}
	if len(targets) == 0 {
		return fmt.Errorf("no hover targets in %s", rel)
	}
	var hov []float64
	found := 0
	for i := 0; i < nHovers; i++ {
		t := targets[(i*7919)%len(targets)]
		var h *struct {
			Contents struct{ Value string } `json:"contents"`
		}
		t0 := time.Now()
		if err := call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": docURI}, "position": map[string]any{"line": t.line, "character": t.char}}, &h); err != nil {
			return err
		}
		hov = append(hov, ms(time.Since(t0)))
		if h != nil && h.Contents.Value != "" {
			found++
		}
	}
	fmt.Printf("hover                      median %6.2f ms  p95 %6.2f ms  (%d requests, %d answered; target p95 <= 15 ms)\n", pct(hov, 50), pct(hov, 95), len(hov), found)

	// didChange → auto-context.md replaced, debounce 0.
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(filepath.Join(tree, ".ctxls")); err != nil {
		return err
	}
	md := filepath.Join(tree, ".ctxls", "auto-context.md")
	// Edit inside function bodies: insert a statement line after a
	// function's opening line. cur follows the buffer as edited.
	cur := append([]string(nil), lines...)
	bodies := func() []int {
		var out []int
		for i, l := range cur {
			if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{") {
				out = append(out, i+1)
			}
		}
		return out
	}
	version := 1
	edit := func(i int, same bool) (float64, error) {
		b := bodies()
		line := b[(i*31)%len(b)]
		if same {
			line = b[len(b)/2] // one function, as when typing in it
		}
		ins := fmt.Sprintf("\t_ = %d // bench", i)
		cur = append(cur[:line], append([]string{ins}, cur[line:]...)...)
		version++
		drain(w)
		t0 := time.Now()
		if err := conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": docURI, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}}, "text": fmt.Sprintf("\t_ = %d // bench\n", i)}},
		}); err != nil {
			return 0, err
		}
		// The file that reflects this edit shows the inserted line in the
		// Editing section's excerpt of the changed function; a rewrite for an
		// earlier edit may land first and does not count.
		marker := []byte(fmt.Sprintf("_ = %d // bench", i))
		for {
			select {
			case ev := <-w.Events:
				if ev.Name == md && ev.Has(fsnotify.Create) {
					d := time.Since(t0)
					if data, err := os.ReadFile(md); err == nil && bytes.Contains(data, marker) {
						return ms(d), nil
					}
				}
			case <-time.After(10 * time.Second):
				return -1, nil // counted as a miss
			}
		}
	}
	for _, phase := range []struct {
		name   string
		gap    time.Duration
		offset int
		same   bool
	}{
		{"typing in one function (edits 100 ms apart)", 100 * time.Millisecond, 200000, true},
		{"each edit in another function (100 ms apart)", 100 * time.Millisecond, 0, false},
		{"pauses (edits 800 ms apart, index updates in between)", 800 * time.Millisecond, 100000, false},
	} {
		var lat []float64
		misses := 0
		for i := 0; i < nEdits; i++ {
			v, err := edit(len(lat)+misses+phase.offset, phase.same)
			if err != nil {
				return err
			}
			if v < 0 {
				misses++
			} else {
				lat = append(lat, v)
			}
			time.Sleep(phase.gap)
		}
		if len(lat) == 0 {
			return fmt.Errorf("no edit was reflected in auto-context.md")
		}
		fmt.Printf("didChange → auto-context   median %6.2f ms  p95 %6.2f ms  max %6.2f ms  %s (%d edits, %d not reflected within 10 s; target p95 <= 50 ms)\n", pct(lat, 50), pct(lat, 95), pct(lat, 100), phase.name, len(lat), misses)
	}
	rss, hwm = memory(pid)
	fmt.Printf("RSS at the end             %.0f MB (peak %.0f MB)\n", rss, hwm)

	_ = call("shutdown", nil, nil)
	_ = conn.Notify(ctx, "exit", nil)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("server exit: %w", err)
		}
	case <-time.After(10 * time.Second):
		return fmt.Errorf("server did not exit")
	}
	// Leave the tree as it was.
	return os.WriteFile(filepath.Join(tree, rel), orig, 0o644)
}

func drain(w *fsnotify.Watcher) {
	for {
		select {
		case <-w.Events:
		default:
			return
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pct returns the p-th percentile (nearest rank).
func pct(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// memory returns VmRSS and VmHWM of pid in MB.
func memory(pid int) (rss, hwm float64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// cpuTicks returns utime+stime of pid in clock ticks (100 per second).
func cpuTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	k, _ := strconv.ParseInt(fields[12], 10, 64)
	return u + k
}
