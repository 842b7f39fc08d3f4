package store

import (
	"context"
	"slices"
	"testing"
)

func TestOccurrenceLayers(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want []string
	}{
		{"", 3, []string{"", "", ""}},
		{"thread", 3, []string{"thread", "", ""}},
		{"int size int", 3, []string{"int size", "int", ""}},
		{"a b a c a b a", 3, []string{"a b c", "a b", "a a"}},
		{"a b a c a b a", 6, []string{"a b c", "a b", "a", "a", "", ""}},
	} {
		if got := occurrenceLayers(tc.text, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("occurrenceLayers(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
		}
	}
}

// TestRepeatedDocTermsCount: postings without positions still rank a doc
// that repeats a word above one that says it once (decision 0130).
func TestRepeatedDocTermsCount(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("a.go", 10)
	// The function's document is the longer: said once, the file's
	// shorter one would rank first.
	fd.Docs[1].Doc = "start thread the thread runs the thread"
	fd.Docs[0].Doc = "start thread then wait for the reply done"
	putFile(t, s, fd)
	hits, err := s.Search(ctx, []string{"thread"}, FieldWeights{1, 1, 1, 1, 1, 1}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != fd.Docs[1].ID || !(hits[0].Score > hits[1].Score) {
		t.Fatalf("hits %+v, want %d (three times) above %d (once)", hits, fd.Docs[1].ID, fd.Docs[0].ID)
	}
}
