package main

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: CTXLS_BIN not set\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: wrong answer\n"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestC","Output":"fine\n"}
{"Action":"pass","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}
{"Action":"fail","Package":"p"}
`
	var out strings.Builder
	rep, err := read(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.failed || rep.events != 11 {
		t.Errorf("failed %v, %d events", rep.failed, rep.events)
	}
	if got := out.String(); got != "    b_test.go:3: wrong answer\nFAIL\tp\t0.01s\n" {
		t.Errorf("printed %q", got)
	}
	if got, want := rep.skipSummary(), "skipped tests: 1\n  SKIP p TestA: a_test.go:9: CTXLS_BIN not set\n"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := (&report{skipped: map[string]string{}}).skipSummary(); got != "skipped tests: none\n" {
		t.Errorf("no skips: %q", got)
	}
}

func TestMissing(t *testing.T) {
	r := &report{skipped: map[string]string{
		"p TestA": "a_test.go:9: CTXLS_BIN not set (run through make test)",
		"p TestB": "nvim_test.go:3: nvim not installed (.ci/run installs Debian's neovim)",
		"p TestC": "store_test.go:40: helper process of TestConcurrentWriters",
		"p TestD": "nethttp_test.go:12: indexes real code",
		"p TestE": "discover_test.go:23: fixture /x not available",
	}}
	got := strings.Join(r.missing(), "\n")
	want := "p TestA: a_test.go:9: CTXLS_BIN not set (run through make test)\n" +
		"p TestB: nvim_test.go:3: nvim not installed (.ci/run installs Debian's neovim)\n" +
		"p TestE: discover_test.go:23: fixture /x not available"
	if got != want {
		t.Errorf("missing:\n%s\nwant\n%s", got, want)
	}
}

func TestSharedDirectorySkipsAreListedNotFatal(t *testing.T) {
	r := &report{skipped: map[string]string{
		"p TestA": "fixture corpus shared/fixtures/claude-memory-plugin not found beside the repository",
		"p TestB": "nvim not installed",
	}}
	got := r.missing()
	if len(got) != 1 || got[0] != "p TestB: nvim not installed" {
		t.Fatalf("missing = %q, want only the nvim skip", got)
	}
}
