package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

func TestCountedKeepsTermFrequency(t *testing.T) {
	tests := []struct {
		name         string
		src          string
		maxTerms, tf int
		want         string
	}{
		{"repeats kept", "retry retry timeout", 10, 10, "retri retri timeout"},
		{"frequency capped", "retry retry retry retry timeout", 10, 2, "retri retri timeout"},
		{"distinct terms capped", "alpha beta gamma alpha", 2, 10, "alpha alpha beta"},
		{"compound and parts", "maxRetries", 10, 10, "maxretries max retri"},
		{"empty", "", 10, 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newBuilder().counted([]byte(tt.src), tt.maxTerms, tt.tf); got != tt.want {
				t.Fatalf("counted(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// A file that uses a word throughout outranks one that mentions it once:
// whole-file documents carry term frequency, and a term repeated in the
// query counts again.
func TestWholeFileSearchUsesTermFrequency(t *testing.T) {
	root := testWorkspace(t, map[string]string{
		"a/do.go": "package a\n\n// Do runs f with a retry: each retry waits, a retry gives up after n tries.\nfunc Do(f func() error, n int) error { return f() }\n",
		// Files without the words keep their IDF positive (FTS5 gives a
		// term in half of all documents no weight).
		"c/x.go":    "package c\n\nfunc X() {}\n",
		"c/y.go":    "package c\n\nfunc Y() {}\n",
		"c/z.go":    "package c\n\nfunc Z() {}\n",
		"b/once.go": "package b\n\n// Get fetches once: no retry, no backoff.\nfunc Get(url string) error { return nil }\n",
	})
	_, st := run(t, root, config.Default())
	ctx := context.Background()
	// search returns the matching paths, best first, and fails on ties:
	// the order must come from the scores.
	search := func(terms ...string) []string {
		hits, err := st.SearchFiles(ctx, store.CorpusSource, terms, 2, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for i, h := range hits {
			if i > 0 && h.Score >= hits[i-1].Score {
				t.Fatalf("%v: scores not strictly decreasing: %+v", terms, hits)
			}
			ents, err := st.EntitiesByID(ctx, []int64{h.ID})
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, ents[h.ID].Path)
		}
		return paths
	}
	if got := search("retri"); strings.Join(got, ",") != "a/do.go,b/once.go" {
		t.Fatalf("retry: got %v, want a/do.go first", got)
	}
	// "backoff" is only in b; said three times it outweighs "retri" once.
	if got := search("retri", "backoff", "backoff", "backoff"); len(got) == 0 || got[0] != "b/once.go" {
		t.Fatalf("repeated query term: got %v, want b/once.go first", got)
	}
}

// Tests, docs and third-party code are kept out of the source corpus's
// statistics: a word the tests use everywhere still tells source files
// apart, and the tests are found in their own corpus.
func TestWholeFileCorporaKeepTestsAside(t *testing.T) {
	fixture := map[string]string{
		// "retry" is said three times in one source file, "backoff" once in
		// another: by term frequency the retry file is the better match.
		"a/retry.go":    "package a\n\n// Do calls f with retry; a retry waits, the last retry gives up.\nfunc Do(f func() error) error { return f() }\n",
		"b/backoff.go":  "package b\n\n// Wait sleeps for the backoff.\nfunc Wait() {}\n",
		"c/x.go":        "package c\n\nfunc X() {}\n",
		"d/y.go":        "package d\n\nfunc Y() {}\n",
		"docs/retry.md": "# Retry\n\nHow retry works.\n",
	}
	// With the tests in the same corpus "retry" would be in most files and
	// worth nothing next to "backoff".
	for _, p := range []string{"a/retry_test.go", "a/do_test.go", "b/wait_test.go", "c/x_test.go", "d/y_test.go", "e/z_test.go"} {
		fixture[p] = "package t\n\nimport \"testing\"\n\n// retry retry\nfunc TestRetry(t *testing.T) {}\n"
	}
	root := testWorkspace(t, fixture)
	_, st := run(t, root, config.Default())
	ctx := context.Background()
	paths := func(corpus store.Corpus, terms ...string) []string {
		hits, err := st.SearchFiles(ctx, corpus, terms, 2, 1, 20)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			ents, err := st.EntitiesByID(ctx, []int64{h.ID})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ents[h.ID].Path)
		}
		return out
	}
	if got := paths(store.CorpusSource, "retri", "backoff"); strings.Join(got, ",") != "a/retry.go,b/backoff.go" {
		t.Fatalf("source corpus: got %v, want a/retry.go then b/backoff.go and no tests or docs", got)
	}
	aside := paths(store.CorpusAside, "retri")
	if len(aside) != 7 {
		t.Fatalf("aside corpus: got %v, want the 6 tests and the doc", aside)
	}
	for _, p := range aside {
		if !workspace.ClassOf(p).Aside() {
			t.Fatalf("aside corpus holds %s", p)
		}
	}
	// A deleted test leaves its corpus.
	if err := os.Remove(filepath.Join(root, "a/retry_test.go")); err != nil {
		t.Fatal(err)
	}
	run(t, root, config.Default())
	if got := paths(store.CorpusAside, "retri"); len(got) != 6 {
		t.Fatalf("after deleting a test: aside corpus %v, want 6 files", got)
	}
}
