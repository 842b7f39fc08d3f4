package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hookd"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// The thin client routes a text by ctxls-core's cut, which it cannot
// import.
func TestMaxQueryBytesIsTheMessageCut(t *testing.T) {
	if maxQueryBytes != analyzer.MaxMessageBytes {
		t.Errorf("maxQueryBytes %d, analyzer.MaxMessageBytes %d", maxQueryBytes, analyzer.MaxMessageBytes)
	}
}

func TestParseQuery(t *testing.T) {
	long := strings.Repeat("x", maxQueryBytes+1)
	for _, tc := range []struct {
		args []string
		want query
		ok   bool
	}{
		{[]string{"how", "does", "Serve", "work"}, query{root: ".", text: "how does Serve work", limit: 10}, true},
		{[]string{"--json", "--root", "/w", "x", "--limit", "5", "y"}, query{root: "/w", text: "x y", json: true, limit: 5}, true},
		{[]string{"--root=/w", "--limit=0x10", "--explain", "--json=false", "q"}, query{root: "/w", text: "q", explain: true, limit: 16}, true},
		{[]string{"--active-file", "a.go", "--active-file=b.go", "q"}, query{root: ".", text: "q", limit: 10, active: []string{"a.go", "b.go"}}, true},
		{[]string{"--min-relevance", "0.4", "q"}, query{root: ".", text: "q", limit: 10, minRelevance: 0.4}, true},
		{[]string{"--min-relevance=-3", "q"}, query{root: ".", text: "q", limit: 10}, true},
		{[]string{"--", "--json", "-x"}, query{root: ".", text: "--json -x", limit: 10}, true},
		// Message text that starts with "-" is text, wherever it is.
		{[]string{"- x"}, query{root: ".", text: "- x", limit: 10}, true},
		{[]string{"--json", "-v is ignored", "--limit", "3"}, query{root: ".", text: "-v is ignored", json: true, limit: 3}, true},
		// An unknown flag, even spaced like a sentence, is ctxls-core's
		// to judge.
		{[]string{"--color=auto breaks the pager"}, query{}, false},
		{[]string{"-5%"}, query{root: ".", text: "-5%", limit: 10}, true},
		// ctxls-core's business: it reads stdin, refreshes, helps, or
		// reports the mistake.
		{[]string{"-"}, query{}, false},
		{[]string{}, query{}, false},
		{[]string{" "}, query{}, false},
		{[]string{long}, query{}, false},
		{[]string{"--refresh", "q"}, query{}, false},
		{[]string{"-h"}, query{}, false},
		{[]string{"--help"}, query{}, false},
		{[]string{"--limit", "0", "q"}, query{}, false},
		{[]string{"--limit", "ten", "q"}, query{}, false},
		{[]string{"q", "--limit"}, query{}, false},
		{[]string{"--json=maybe", "q"}, query{}, false},
		{[]string{"--no-such-flag", "q"}, query{}, false},
		{[]string{"-1"}, query{}, false},
	} {
		got, ok := parseQuery(tc.args)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseQuery(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// The thin client sends the daemon the request ctxls-core would send: the
// root resolved, active files relative to it, the flags' values.
func TestQueryViaDaemon(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("CTXLS_HOOK_DAEMON", "")
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if err := os.MkdirAll(filepath.Join(root, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "auth", "auth.go"), []byte("package auth\n\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = index.Run(ctx, st, index.Options{Root: root, Config: config.Default()})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Any file stands for ctxls-core: its identity is what the daemon
	// checks.
	core := filepath.Join(t.TempDir(), coreName)
	if err := os.WriteFile(core, []byte("core"), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- hookd.Serve(ctx, hookd.ServeOptions{Root: root, Identity: hookcall.Identity(core),
			Query: func(_ context.Context, _ *store.Store, q *hookcall.Query) ([]byte, string, error) {
				out, err := json.Marshal(q)
				return out, "ctxls: the index is being built\n", err
			}})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for deadline := time.Now().Add(10 * time.Second); hookcall.Ping(ctx, root) != nil; {
		if time.Now().After(deadline) {
			t.Fatal("no daemon")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Chdir(filepath.Join(root, "auth"))
	q, ok := parseQuery([]string{"--root", "..", "--json", "--active-file", "auth.go", "--active-file", "/elsewhere/x.go", "--limit=3", "Login", "fails"})
	if !ok {
		t.Fatal("parseQuery refused the command line")
	}
	req, ok := q.request()
	if !ok {
		t.Fatal("no request for the command line")
	}
	resp, answered, late := ask(core, req, queryWait)
	if !answered || late {
		t.Fatalf("the daemon did not answer (late %v)", late)
	}
	if resp.Note != "ctxls: the index is being built\n" {
		t.Errorf("the daemon's note %q did not arrive", resp.Note)
	}
	var got hookcall.Query
	if err := json.Unmarshal(resp.Output, &got); err != nil {
		t.Fatal(err)
	}
	want := hookcall.Query{Text: "Login fails", Limit: 3, ActiveFiles: []string{"auth/auth.go", "/elsewhere/x.go"}, JSON: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the daemon got %+v, want %+v", got, want)
	}
	// Another build's client is refused: ctxls-core must answer.
	other := filepath.Join(t.TempDir(), coreName)
	if err := os.WriteFile(other, []byte("other build"), 0o755); err != nil {
		t.Fatal(err)
	}
	req, _ = q.request()
	if _, answered, _ := ask(other, req, queryWait); answered {
		t.Error("a refused call was taken as answered")
	}
}
