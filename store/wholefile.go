package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
)

// FilePostings are, for one term, the whole-file documents of a corpus that
// hold it, each with the term's saturated, length-normalised frequency: the
// part of a BM25 term score that does not depend on the term's IDF,
// f·(k1+1) / (f + k1·(1 − b + b·|d|/avgdl)), with f the field-weighted
// frequency and k1 = 1.2, b = 0.75 (FTS5's constants).
type FilePostings []Hit

// FileDocCount is the number of whole-file documents in a corpus, the N of
// BM25's IDF. It is read from FTS5's own totals record (no scan).
func (s *Store) FileDocCount(ctx context.Context, corpus Corpus) (int, error) {
	var block []byte
	err := s.db.QueryRowContext(ctx, `SELECT block FROM `+fileTable(corpus)+`_data WHERE id = 1`).Scan(&block)
	if errors.Is(err, sql.ErrNoRows) || err == nil && len(block) == 0 {
		return 0, nil // nothing was ever written
	}
	if err != nil {
		return 0, classify(fmt.Errorf("whole-file document count: %w", err))
	}
	n, ok := getVarint(block)
	if !ok || n > math.MaxInt32 {
		return 0, fmt.Errorf("whole-file document count: malformed FTS5 totals record (%d bytes)", len(block))
	}
	return int(n), nil
}

// FileTermPostings returns, for each term, every whole-file document of the
// corpus that holds it (by file id), with its saturated frequency (see
// FilePostings), so that the caller can weigh terms by an IDF of its own.
// ctxrank, like FTS5's bm25(), floors its IDF, log((N − n + 0.5)/(n + 0.5)),
// at 1e-6, which makes every term found in half of a small corpus
// worthless; the frequency part is recovered from a single-term score by
// dividing by that IDF. Up to
// 100 terms go in one statement; the cost is one row per posting, so callers
// bound the terms' document frequencies first.
func (s *Store) FileTermPostings(ctx context.Context, corpus Corpus, terms []string, pathWeight, bodyWeight float64) ([]FilePostings, error) {
	out := make([]FilePostings, len(terms))
	if len(terms) == 0 {
		return out, nil
	}
	n, err := s.FileDocCount(ctx, corpus)
	if err != nil {
		return nil, err
	}
	// SQLite allows at most 500 terms in a compound SELECT.
	const chunk = 100
	for start := 0; start < len(terms); start += chunk {
		if err := s.filePostings(ctx, fileTable(corpus), terms[start:min(start+chunk, len(terms))], pathWeight, bodyWeight, out[start:]); err != nil {
			return nil, err
		}
	}
	for _, p := range out {
		idf := fts5IDF(n, len(p))
		for i := range p {
			p[i].Score /= idf
		}
	}
	return out, nil
}

// filePostings appends each term's single-term bm25() rows to out[i].
func (s *Store) filePostings(ctx context.Context, table string, terms []string, pathWeight, bodyWeight float64, out []FilePostings) error {
	var q strings.Builder
	q.WriteString(`SELECT h.k, e.id, h.score FROM (`)
	args := make([]any, len(terms))
	for i, t := range terms {
		if i > 0 {
			q.WriteString(` UNION ALL `)
		}
		fmt.Fprintf(&q, `SELECT %[3]d AS k, rowid AS seq, -%[2]s AS score FROM %[1]s WHERE %[1]s MATCH ?`,
			table, fileLayout.score(table, pathWeight, bodyWeight), i)
		args[i] = ftsString(t)
	}
	q.WriteString(`) h ` + hitEntity)
	rows, err := s.db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return classify(fmt.Errorf("whole-file postings: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		var h Hit
		if err := rows.Scan(&k, &h.ID, &h.Score); err != nil {
			return classify(err)
		}
		if k >= 0 && k < len(terms) {
			out[k] = append(out[k], h)
		}
	}
	return classify(rows.Err())
}

// fts5IDF is the IDF FTS5's bm25() gives a phrase found in hits of total
// rows (fts5_aux.c): log((N − n + 0.5)/(n + 0.5)), floored at 1e-6.
func fts5IDF(total, hits int) float64 {
	idf := math.Log((float64(total-hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

func fileTable(corpus Corpus) string {
	if corpus == CorpusAside {
		return "fts_files_aside"
	}
	return "fts_files"
}

// getVarint decodes an SQLite varint (big-endian, 7 bits a byte, the ninth
// byte whole), the encoding of FTS5's records.
func getVarint(b []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}
