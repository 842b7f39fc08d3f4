package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/store"
)

// TestQueryIsDeterministic runs the same queries many times and wants the
// same bits every time: scores summed in a map's random order differed in
// their last bits between runs, and near-ties flipped in the ranking.
func TestQueryIsDeterministic(t *testing.T) {
	root := t.TempDir()
	// Files whose functions share words at different rates and call each
	// other, so that term sums and the graph walk add many unequal parts.
	words := []string{"parse", "token", "buffer", "stream", "header", "cache", "retry", "limit", "codec", "frame", "queue", "flush"}
	for i := 0; i < 40; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%5)
		for j := 0; j < 4; j++ {
			w1, w2, w3 := words[(i+j)%len(words)], words[(i*3+j)%len(words)], words[(i*7+j*5)%len(words)]
			fmt.Fprintf(&b, "// %s%d handles the %s %s and the %s.\nfunc %s%s%d_%d() { %s%s%d_%d() }\n\n",
				strings.ToUpper(w1[:1])+w1[1:], i, w1, w2, w3, w1, strings.ToUpper(w2[:1])+w2[1:], i, j,
				w3, strings.ToUpper(w1[:1])+w1[1:], (i+1)%40, j)
		}
		dir := filepath.Join(root, fmt.Sprintf("p%d", i%5))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(ctx, st, index.Options{Root: root, Config: config.Default()}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"parse the token stream header",
		"why does the cache retry flush the queue frame",
		"codec buffer limit and parseBuffer3",
	} {
		var first []byte
		for run := 0; run < 20; run++ {
			resp, err := Query(ctx, st, Request{Text: text, Limit: 20, MinRelevance: -1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got
				continue
			}
			if string(got) != string(first) {
				t.Fatalf("%q: run %d differs from run 0:\n%s\n%s", text, run, got, first)
			}
		}
	}
}
