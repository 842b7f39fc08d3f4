package retrieval

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

// TestFirstFilesIgnoreLimit: the first files of a ranking are the same
// whatever limit the request asks for. ledger/book.go matches the message
// by its path alone, the nine others by every word: the scope (the subject
// names its directory) lifts it from the back of the lexical order to the
// front, which a ranking that re-ordered only 4 × limit files did at limit
// 10 and not below.
func TestFirstFilesIgnoreLimit(t *testing.T) {
	files := map[string]string{
		"ledger/book.go": "package ledger\n\n// Sum adds.\nfunc Sum() int { return 0 }\n",
	}
	for i := range 9 {
		files[fmt.Sprintf("pkg%d/round.go", i)] = fmt.Sprintf(
			"package pkg%[1]d\n\n// RoundTotals rounds the totals of a ledger book.\nfunc RoundTotals%[1]d(totals []float64) { roundTotals(totals) }\n\n// roundTotals rounds each of the ledger totals.\nfunc roundTotals(totals []float64) {}\n", i)
	}
	_, st := wstest.Indexed(t, files)
	ctx := context.Background()
	const text = "Ledger: round the totals of a book"
	ranked := func(limit int) []string {
		resp, err := Query(ctx, st, Request{Text: text, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range resp.Files {
			paths = append(paths, f.Path)
		}
		return paths
	}
	all := ranked(10)
	if len(all) == 0 || all[0] != "ledger/book.go" {
		t.Fatalf("limit 10 ranks %v, want ledger/book.go first (the message's subject)", all)
	}
	for _, limit := range []int{1, 2, 3, 5} {
		if got := ranked(limit); !slices.Equal(got, all[:min(limit, len(all))]) {
			t.Errorf("limit %d ranks %v, want the first %d of %v", limit, got, limit, all)
		}
	}
}
