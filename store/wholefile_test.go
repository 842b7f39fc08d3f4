package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFileTermPostings checks the saturated frequencies against BM25's
// formula computed by hand, including a term in every document, whose FTS5
// IDF is floored and whose frequencies must still come back whole.
func TestFileTermPostings(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	bodies := []string{
		"session cookie cookie redirect",
		"session adapter",
		"session cookie jar jar jar auth auth header",
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range bodies {
		id := int64(100 * (i + 1))
		fd := sampleFile(fmt.Sprintf("f%d.py", i), id)
		fd.Whole = Doc{Path: fmt.Sprintf("f%d", i), Body: body}
		if err := w.PutFile(ctx, fd, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.FileDocCount(ctx, CorpusSource); err != nil || n != len(bodies) {
		t.Fatalf("FileDocCount = %d, %v; want %d", n, err, len(bodies))
	}
	if n, err := s.FileDocCount(ctx, CorpusAside); err != nil || n != 0 {
		t.Fatalf("FileDocCount(aside) = %d, %v; want 0", n, err)
	}

	// Document lengths count both columns (path: one token).
	var total float64
	lens := make([]float64, len(bodies))
	for i, b := range bodies {
		lens[i] = float64(len(strings.Fields(b)) + 1)
		total += lens[i]
	}
	avg := total / float64(len(bodies))
	want := func(doc int, tf float64) float64 {
		return tf * 2.2 / (tf + 1.2*(0.25+0.75*lens[doc]/avg))
	}
	tests := []struct {
		term string
		tf   map[int]float64 // document index → term frequency
	}{
		{"session", map[int]float64{0: 1, 1: 1, 2: 1}}, // in every document: IDF floored
		{"cookie", map[int]float64{0: 2, 2: 1}},
		{"jar", map[int]float64{2: 3}},
		{"absent", map[int]float64{}},
	}
	terms := make([]string, len(tests))
	for i, tc := range tests {
		terms[i] = tc.term
	}
	got, err := s.FileTermPostings(ctx, CorpusSource, terms, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if len(got[i]) != len(tc.tf) {
			t.Errorf("%s: %d postings, want %d: %+v", tc.term, len(got[i]), len(tc.tf), got[i])
			continue
		}
		for _, h := range got[i] {
			doc := int(h.ID/100) - 1
			tf, ok := tc.tf[doc]
			if !ok {
				t.Errorf("%s: unexpected document %d", tc.term, h.ID)
				continue
			}
			if w := want(doc, tf); math.Abs(h.Score-w) > 1e-6*w {
				t.Errorf("%s in document %d: %g, want %g", tc.term, doc, h.Score, w)
			}
		}
	}
}

// TestFileTermPostingsManyTerms: terms beyond one statement's share keep
// their positions.
func TestFileTermPostingsManyTerms(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fd := sampleFile("a.py", 100)
	fd.Whole = Doc{Path: "a", Body: "cookie jar"}
	if err := w.PutFile(ctx, fd, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	terms := make([]string, 250)
	for i := range terms {
		terms[i] = fmt.Sprintf("absent%d", i)
	}
	terms[150], terms[249] = "cookie", "jar"
	got, err := s.FileTermPostings(ctx, CorpusSource, terms, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range got {
		want := 0
		if i == 150 || i == 249 {
			want = 1
		}
		if len(p) != want {
			t.Errorf("term %d (%s): %d postings, want %d", i, terms[i], len(p), want)
		}
	}
}

func TestGetVarint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		ok   bool
	}{
		{[]byte{0x05}, 5, true},
		{[]byte{0x81, 0x00}, 128, true},
		{[]byte{0x82, 0x80, 0x01}, 1<<15 + 1, true},
		{[]byte{0x80}, 0, false},
		{nil, 0, false},
	}
	for _, tc := range tests {
		got, ok := getVarint(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("getVarint(%x) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
