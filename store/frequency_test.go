package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestFrequencyColumns(t *testing.T) {
	many := strings.Repeat("x ", 40) + "y"
	for _, tc := range []struct {
		text string
		want [freqBits]string
	}{
		{"", [freqBits]string{}},
		{"thread", [freqBits]string{"thread"}},
		{"int size int", [freqBits]string{"size", "int"}},
		// a: 4, b: 2, c: 1
		{"a b a c a b a", [freqBits]string{"c", "b", "a"}},
		// x: 40 counts 31 (every bit)
		{many, [freqBits]string{"x y", "x", "x", "x", "x"}},
	} {
		if got := frequencyColumns(tc.text); got != tc.want {
			t.Errorf("frequencyColumns(%.20q) = %q, want %q", tc.text, got, tc.want)
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

// TestRanksAsBM25: entity search over postings without positions scores
// every document as bm25() scores the same documents with positions,
// repeated words in signatures and docs, and the documents' lengths,
// included (decisions 0130, 0131).
func TestRanksAsBM25(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	fd := sampleFile("a.go", 10)
	fd.Docs[0].Signature = "net http net io net"
	fd.Docs[0].Doc = "serve http serve connection serve serve serve serve serve"
	fd.Docs[1].Doc = "serve once"
	fd.Docs[1].Signature = "listenandserve addr string handler handler error"
	putFile(t, s, fd)
	if _, err := s.DB().Exec(`CREATE VIRTUAL TABLE temp.ref USING fts5(name, qname, path, signature, doc, body)`); err != nil {
		t.Fatal(err)
	}
	for _, d := range fd.Docs {
		if _, err := s.DB().Exec(`INSERT INTO temp.ref(rowid, name, qname, path, signature, doc, body) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.ID, d.Name, d.QName, d.Path, d.Signature, d.Doc, d.Body); err != nil {
			t.Fatal(err)
		}
	}
	w := FieldWeights{5, 3, 2.5, 2, 1.2, 1}
	for _, terms := range [][]string{{"serv"}, {"serve"}, {"net"}, {"handler", "serve"}, {"http", "listen"}} {
		hits, err := s.Search(ctx, terms, w, 10)
		if err != nil {
			t.Fatal(err)
		}
		scoredAsBM25(t, s, terms, hits, `SELECT rowid, -bm25(ref, 5, 3, 2.5, 2, 1.2, 1) FROM temp.ref WHERE ref MATCH ?`)
	}
}

// TestFilesRankAsBM25: whole-file search over postings without positions
// scores every file as bm25() scores the same documents with positions,
// repeated words in paths and bodies and the documents' lengths included
// (decision 0131).
func TestFilesRankAsBM25(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	docs := []Doc{
		{Path: "ext4 ext4 inod", Body: strings.Repeat("journal ", 7) + "commit commit inod block"},
		{Path: "jbd2 journal", Body: strings.Repeat("journal ", 30) + strings.Repeat("commit ", 12) + "transact"},
		{Path: "fs inod", Body: "inod inod inod block alloc"},
	}
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.tx.Exec(`CREATE VIRTUAL TABLE temp.ref USING fts5(path, body)`); err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		id := int64(100 * (i + 1))
		fd := sampleFile(fmt.Sprintf("f%d.c", i), id)
		fd.Whole = d
		if err := w.PutFile(ctx, fd, false); err != nil {
			t.Fatal(err)
		}
		if _, err := w.tx.Exec(`INSERT INTO temp.ref(rowid, path, body) VALUES (?, ?, ?)`, id, d.Path, d.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, terms := range [][]string{{"journal"}, {"inod"}, {"ext4", "commit"}, {"block", "transact", "journal"}} {
		hits, err := s.SearchFiles(ctx, CorpusSource, terms, 2.5, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		scoredAsBM25(t, s, terms, hits, `SELECT rowid, -bm25(ref, 2.5, 1) FROM temp.ref WHERE ref MATCH ?`)
	}
}

// scoredAsBM25 checks hits, a search's for terms, against the rows of
// query, bm25() over temp.ref, which holds the same documents with
// positions under the same row ids.
func scoredAsBM25(t *testing.T, s *Store, terms []string, hits []Hit, query string) {
	t.Helper()
	rows, err := s.DB().Query(query, orQuery(terms))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[int64]float64{}
	for rows.Next() {
		var id int64
		var sc float64
		if err := rows.Scan(&id, &sc); err != nil {
			t.Fatal(err)
		}
		want[id] = sc
	}
	if len(hits) == 0 || len(hits) != len(want) {
		t.Fatalf("%q: %d hits, bm25() %d", terms, len(hits), len(want))
	}
	for _, h := range hits {
		if math.Abs(h.Score-want[h.ID]) > 1e-9*math.Abs(want[h.ID]) {
			t.Errorf("%q: %d scores %g, bm25() %g", terms, h.ID, h.Score, want[h.ID])
		}
	}
}
