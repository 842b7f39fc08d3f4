package main

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/index"
)

func TestCommonExts(t *testing.T) {
	for _, tt := range []struct {
		counts map[string]int
		n      int
		want   string
	}{
		{nil, 5, ""},
		{map[string]int{".scala": 12, ".txt": 40}, 5, " (.txt 40, .scala 12)"},
		{map[string]int{".a": 1, ".b": 1, "": 3}, 2, " (no extension 3, .a 1, …)"},
	} {
		if got := commonExts(tt.counts, tt.n); got != tt.want {
			t.Errorf("commonExts(%v, %d) = %q, want %q", tt.counts, tt.n, got, tt.want)
		}
	}
}

// A workspace in a language no query parses says which.
func TestSummaryNamesUnsupportedExtensions(t *testing.T) {
	var b strings.Builder
	printSummary(&b, index.Summary{Root: "/w", Unsupported: 3, UnsupportedExts: map[string]int{".scala": 2, ".sbt": 1}})
	for _, want := range []string{"ignored:   3 files in unsupported formats (.scala 2, .sbt 1)", "nothing to index: no file is in a language ctxls parses"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary:\n%s\nwant a line %q", b.String(), want)
		}
	}
}
