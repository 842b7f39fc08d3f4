package memory

import (
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/analyzer"
)

// Fields of a memory as the full-text index weighs them, in bm25Weights'
// order.
const (
	FieldTitle = iota
	FieldTags
	FieldFiles
	FieldBody
	NumFields
)

// FieldTerms returns the analyzer's terms of each field of a memory (the
// slug counts as title words), in the order of FieldTitle..FieldBody. Every
// store of memories indexes these terms, so a query finds the same
// memories in the file scopes and in the enterprise database.
func FieldTerms(an *analyzer.Analyzer, m *Memory) [NumFields][]string {
	return [NumFields][]string{
		FieldTitle: an.Terms(m.Title + " " + strings.ReplaceAll(m.Slug, "-", " ")),
		FieldTags:  an.Terms(strings.Join(m.Tags, " ")),
		FieldFiles: an.Terms(strings.Join(m.Files, " ")),
		FieldBody:  an.Terms(m.Content),
	}
}

// BM25Weights returns the BM25F weight of each field (bm25Weights as
// numbers), for stores that score outside SQLite.
func BM25Weights() [NumFields]float64 {
	var w [NumFields]float64
	for i, s := range strings.Split(bm25Weights, ",") {
		w[i], _ = strconv.ParseFloat(strings.TrimSpace(s), 64)
	}
	return w
}

// Coverage is a hit's Relevance: the IDF-weighted share of the query's
// terms that the document's terms contain.
func Coverage(query, doc []string, idf map[string]float64) float64 { return coverage(query, doc, idf) }
