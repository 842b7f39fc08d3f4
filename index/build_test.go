package index

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
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
	root := workspace(t, map[string]string{
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
		hits, err := st.SearchFiles(ctx, terms, 2, 1, 10)
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
