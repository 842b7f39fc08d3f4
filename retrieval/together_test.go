package retrieval

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/wstest"
)

// TestSearchTogether checks that words searched as a conjunction find the
// documents holding all of them, rarest words first, and credit each word
// by its own score.
func TestSearchTogether(t *testing.T) {
	_, st := wstest.Indexed(t, files)
	ctx := context.Background()
	an := analyzer.New()
	var terms []string
	an.Each("password check", func(w string) { terms = append(terms, w) })
	weights, idf := map[string]float64{}, map[string]float64{}
	for _, w := range terms {
		weights[w], idf[w] = 1, 1
	}
	cands, get := newCands()
	if err := searchTogether(ctx, st, terms, weights, idf, get); err != nil {
		t.Fatal(err)
	}
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	var best *cand
	for _, c := range cands {
		if best == nil || c.lex > best.lex {
			best = c
		}
	}
	ents, err := st.EntitiesByID(ctx, []int64{best.id})
	if err != nil {
		t.Fatal(err)
	}
	if got := ents[best.id].QName; got != "auth.UserStore.Check" {
		t.Fatalf("best = %s, want auth.UserStore.Check", got)
	}
	for _, w := range terms {
		if best.matched[w] <= 0 {
			t.Errorf("term %q not credited: %v", w, best.matched)
		}
	}

	// Nothing holds both words: a conjunction finds nothing, and neither
	// long list is read alone.
	cands = map[int64]*cand{}
	one := map[string]float64{"invoic": 1, "password": 1}
	if err := searchTogether(ctx, st, []string{"invoic", "password"}, one, one, get); err != nil {
		t.Fatal(err)
	}
	if len(cands) != 0 {
		t.Fatalf("candidates = %d, want none", len(cands))
	}
}

// newCands returns an empty candidate set and the get function Query
// passes to its steps.
func newCands() (map[int64]*cand, func(int64) *cand) {
	cands := map[int64]*cand{}
	return cands, func(id int64) *cand {
		if cands[id] == nil {
			cands[id] = &cand{id: id}
		}
		return cands[id]
	}
}
