package retrieval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

// TestCommonWordsHeldByTheAnswer: a question of one rare word and three
// common ones ("page", "fault" and "handler" each in more entities than are
// ranked one by one, yet in few of the whole index, as in a kernel) about
// the function that holds the rare word and two of the common ones.
// Searched together, the common words find the many entities that hold all
// three; the function, found by its rare word alone, ranked below them
// until the common words it holds were counted (completeHolding).
func TestCommonWordsHeldByTheAnswer(t *testing.T) {
	files := map[string]string{
		"mm/memory.go": "package mm\n\n// doAnonymousPage maps a zeroed page at the faulting address.\nfunc doAnonymousPage(fault int) int {\n\tpage := fault\n\treturn page\n}\n",
	}
	var b strings.Builder
	b.WriteString("package mm\n\n")
	for i := range maxRankedPostings + 200 {
		fmt.Fprintf(&b, "func pageFaultHandler%d() {}\n", i)
	}
	files["mm/handlers.go"] = b.String()
	b.Reset()
	b.WriteString("package anon\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "func anonymousName%d() {}\n", i)
	}
	files["anon/names.go"] = b.String()
	// The rest of a large index, which makes the common words rare enough
	// to count.
	addFiller(files, 10, 2000)
	_, st := wstest.Indexed(t, files)
	resp, err := Query(context.Background(), st, Request{Text: "how does the page fault handler work for an anonymous page", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range resp.Results {
		names = append(names, r.Entity.Name)
	}
	if len(names) == 0 || names[0] != "doAnonymousPage" {
		t.Fatalf("results %v, want doAnonymousPage first", names)
	}
}

// addFiller adds packages files of n unrelated functions each: the rest of
// a large index, against which a few hundred documents are few.
func addFiller(files map[string]string, packages, n int) {
	var b strings.Builder
	for f := range packages {
		b.Reset()
		fmt.Fprintf(&b, "package filler%d\n\n", f)
		for i := range n {
			fmt.Fprintf(&b, "func unrelated%dWord%d() {}\n", f, i)
		}
		files[fmt.Sprintf("filler%d/f.go", f)] = b.String()
	}
}

// namedByPairs credits the entities whose names hold two of the searched
// words, in any order, when one of the two is too common to rank alone and
// the pair names few entities.
func TestNamedByPairs(t *testing.T) {
	var b strings.Builder
	b.WriteString("package module\n\nfunc loadModule() {}\nfunc moduleLoad() {}\nfunc loadConfig() {}\n")
	for i := range maxRankedPostings + 200 {
		fmt.Fprintf(&b, "func moduleParam%d() {}\n", i)
	}
	_, st := wstest.Indexed(t, map[string]string{"module/main.go": b.String()})
	ctx := context.Background()
	searched := []string{"config", "load", "param", "modul"}
	df, _, err := st.TermStats(ctx, searched)
	if err != nil {
		t.Fatal(err)
	}
	weights, idf := map[string]float64{}, map[string]float64{}
	for _, term := range searched {
		weights[term], idf[term] = 1, 2
	}
	cands, get := newCands()
	if err := namedByPairs(ctx, st, searched, df, weights, idf, get); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	ents, err := st.EntitiesByID(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for id, c := range cands {
		got = append(got, ents[id].Name)
		if want := 2 * holdCredit * 2; c.lex != want {
			t.Errorf("%s: lexical %v, want %v (two terms held)", ents[id].Name, c.lex, want)
		}
	}
	slices.Sort(got)
	// loadConfig: both words rank on their own; moduleParam*: a pair in
	// more than maxPairNames names.
	if want := []string{"loadModule", "moduleLoad"}; !slices.Equal(got, want) {
		t.Errorf("credited %v, want %v", got, want)
	}
}
