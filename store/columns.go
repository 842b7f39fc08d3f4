package store

import (
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/store/ftsrank"
)

// A textLayout is how the fields of a full-text document are written to
// the columns of a table whose postings record which columns hold a term,
// not where (detail=column, decisions 0130 and 0131): one column for each
// field, then, for each field whose terms repeat, its frequency columns
// for bits 1 to freqBits−1. The field's own column holds the terms of odd
// frequency; field_2 those whose frequency has bit 2 set, and so on, so
// that a term's count in the field is the sum of 2^k over the columns that
// hold it, up to maxFieldTF.
type textLayout struct {
	fields []string
	// counted[i] says that fields[i] has frequency columns.
	counted []bool
}

// The layouts of the entity table fts and of the whole-file tables
// fts_files and fts_files_aside. A name, qualified name and body hold each
// term about once; a signature (a file entity's is its imports), a doc, a
// path and a whole file repeat words.
var (
	entityLayout = textLayout{
		fields:  []string{"name", "qname", "path", "signature", "doc", "body"},
		counted: []bool{false, false, false, true, true, false},
	}
	fileLayout = textLayout{
		fields:  []string{"path", "body"},
		counted: []bool{true, true},
	}
)

// Frequency columns. freqBits is how many columns a counted field takes,
// maxFieldTF the largest frequency they tell; more counts as much
// (index.maxWholeTF caps a whole file's at 30 anyway).
const (
	freqBits   = 5
	maxFieldTF = 1<<freqBits - 1
)

// columns are the table's columns in order; TestTextLayouts holds them
// equal to the tables the migrations create.
func (l textLayout) columns() []string {
	cols := append([]string{}, l.fields...)
	for i, f := range l.fields {
		if l.counted[i] {
			cols = append(cols, frequencyColumnNames(f)[1:]...)
		}
	}
	return cols
}

// columnsOf are the columns that hold field's terms, for a column filter.
func (l textLayout) columnsOf(field string) []string {
	for i, f := range l.fields {
		if f == field && l.counted[i] {
			return frequencyColumnNames(f)
		}
	}
	return []string{field}
}

// values are the column values of a document with the fields' texts
// (space-separated analysed terms), in the order of columns.
func (l textLayout) values(dst []any, texts ...string) []any {
	dst = append(dst, make([]any, len(l.fields))...)
	first := len(dst) - len(l.fields)
	for i, t := range texts {
		if !l.counted[i] {
			dst[first+i] = t
			continue
		}
		cols := frequencyColumns(t)
		dst[first+i] = cols[0]
		for _, c := range cols[1:] {
			dst = append(dst, c)
		}
	}
	return dst
}

// rank is the FTS5 rank of a search of the table with the fields'
// weights: ctxrank with a weight for each column, a field's column for bit
// k weighing 2^k times the field, then each column's multiplicity, 2^k
// for a column for bit k, with which ctxrank counts a document's length
// as bm25() counts that of the document with every occurrence written.
func (l textLayout) rank(weights ...float64) string {
	return rankBy(ftsrank.Name, l.rankArgs(weights)...)
}

// score is rank called in a query of table, whose first argument names it.
func (l textLayout) score(table string, weights ...float64) string {
	return ftsrank.Name + "(" + table + ", " + weightList(l.rankArgs(weights)) + ")"
}

func (l textLayout) rankArgs(weights []float64) []float64 {
	w := append([]float64{}, weights...)
	m := make([]float64, len(weights))
	for i := range m {
		m[i] = 1
	}
	for i, fw := range weights {
		if l.counted[i] {
			for k := 1; k < freqBits; k++ {
				w = append(w, fw*float64(int(1)<<k))
				m = append(m, float64(int(1)<<k))
			}
		}
	}
	return append(w, m...)
}

// frequencyColumnNames names a field's frequency columns: the field itself
// for bit 0, then field_2, field_4, … for the others.
func frequencyColumnNames(field string) []string {
	names := []string{field}
	for k := 1; k < freqBits; k++ {
		names = append(names, field+"_"+strconv.Itoa(1<<k))
	}
	return names
}

// frequencyColumns splits the space-separated terms of a field into
// freqBits columns by the bits of each term's frequency, capped at
// maxFieldTF (terms in the order of their first occurrence).
func frequencyColumns(text string) (cols [freqBits]string) {
	if !strings.Contains(text, " ") {
		cols[0] = text
		return cols
	}
	terms := strings.Fields(text)
	tf := make(map[string]int, len(terms))
	var order []string
	for _, t := range terms {
		if tf[t] == 0 {
			order = append(order, t)
		}
		tf[t]++
	}
	var b [freqBits]strings.Builder
	for _, t := range order {
		n := min(tf[t], maxFieldTF)
		for k := range freqBits {
			if n&(1<<k) == 0 {
				continue
			}
			if b[k].Len() > 0 {
				b[k].WriteByte(' ')
			}
			b[k].WriteString(t)
		}
	}
	for k := range b {
		cols[k] = b[k].String()
	}
	return cols
}
