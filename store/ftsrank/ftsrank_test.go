package ftsrank

import (
	"database/sql"
	"math"
	"testing"

	"github.com/mattn/go-sqlite3"
)

func init() {
	sql.Register("sqlite3_ftsrank", &sqlite3.SQLiteDriver{ConnectHook: Register})
}

// docs are three-column documents; in the first four every term occurs
// at most once per column, the last repeats "parse" in its body.
var docs = [][3]string{
	{"parse config", "config parse file", "read the file"},
	{"load config", "config load", "open read"},
	{"parse args", "args parse", "split"},
	{"write file", "file write", "open write close"},
	{"tokens", "tokens", "parse parse parse read"},
}

func open(t *testing.T, detail string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3_ftsrank", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(a, b, c, content='', contentless_delete=1, detail=` + detail + `)`); err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if _, err := db.Exec(`INSERT INTO f(rowid, a, b, c) VALUES (?, ?, ?, ?)`, i+1, d[0], d[1], d[2]); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// scores runs a ranked query and returns each row's score by rowid.
func scores(t *testing.T, db *sql.DB, match, rank string) map[int64]float64 {
	t.Helper()
	rows, err := db.Query(`SELECT rowid, rank FROM f WHERE f MATCH ? AND rank MATCH ? ORDER BY rank`, match, rank)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		out[id] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSameAsBM25 checks that where a column holds each term once, the
// function scores every row as bm25() does, with and without weights and
// for several terms; a row whose body repeats a term (row 5, "parse" three
// times) counts it once and scores less.
func TestSameAsBM25(t *testing.T) {
	full := open(t, "full")
	for _, tc := range []struct {
		match, weights string
		repeated       int64 // the row that holds a term of match more than once in a column, 0 for none
	}{
		{`"parse"`, "5, 3, 1", 5},
		{`"config" OR "read"`, "5, 3, 1", 0},
		{`"file" AND "write"`, "2, 1, 1", 0},
		{`"open"`, "", 0},
		{`"parse" OR "tokens"`, "1, 2", 5},
	} {
		bm := scores(t, full, tc.match, "bm25("+tc.weights+")")
		ours := scores(t, full, tc.match, Name+"("+tc.weights+")")
		if len(bm) == 0 || len(bm) != len(ours) {
			t.Fatalf("%s: bm25 found %d rows, %s %d", tc.match, len(bm), Name, len(ours))
		}
		for id, want := range bm {
			got := ours[id]
			if id == tc.repeated {
				if !(got > want) { // ranks are negative: less is better
					t.Errorf("%s row %d: %s %g, want a worse rank than bm25's %g", tc.match, id, Name, got, want)
				}
				continue
			}
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s row %d (%s): %s %g, bm25 %g", tc.match, id, tc.weights, Name, got, want)
			}
		}
	}
}

// TestColumnDetail checks the function on postings without positions,
// where bm25() scores every row 0: the same scores as on full postings.
func TestColumnDetail(t *testing.T) {
	full, col := open(t, "full"), open(t, "column")
	for _, m := range []string{`"parse"`, `"config" OR "file"`, `"open" AND "write"`} {
		want := scores(t, full, m, Name+"(5, 3, 1)")
		got := scores(t, col, m, Name+"(5, 3, 1)")
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: %d rows on full postings, %d on column postings", m, len(want), len(got))
		}
		for id, w := range want {
			if w == 0 || math.Abs(got[id]-w) > 1e-9*math.Abs(w) {
				t.Errorf("%s row %d: %g on column postings, %g on full ones", m, id, got[id], w)
			}
		}
	}
	// A deleted row leaves the statistics as bm25() sees them.
	if _, err := col.Exec(`DELETE FROM f WHERE rowid = 2`); err != nil {
		t.Fatal(err)
	}
	if got := scores(t, col, `"config"`, Name+"()"); len(got) != 1 || got[1] >= 0 {
		t.Errorf("after a delete: %v, want row 1 alone with a negative rank", got)
	}
}

// TestNameKeys: ctxnamekey gives a name the key of its stem without case,
// so that one key finds "Server" for "server" and base.go, base.test.go
// and Base.py for the stem "base"; a leading dot is part of the stem.
// ctxhash tells case apart.
func TestNameKeys(t *testing.T) {
	db := open(t, "column")
	key := func(fn, s string) int64 {
		t.Helper()
		var k int64
		if err := db.QueryRow(`SELECT `+fn+`(?)`, s).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k < 0 || k >= 1<<23 {
			t.Errorf("%s(%q) = %d, not in 23 bits", fn, s, k)
		}
		return k
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"Server", "server", true},
		{"base", "base.go", true},
		{"base", "base.test.go", true},
		{"base", "Base.py", true},
		{"base", "based.go", false},
		{".eslintrc.js", ".eslintrc", true},
		{".eslintrc", "eslintrc", false},
	} {
		if got := key(NameKey, tc.a) == key(NameKey, tc.b); got != tc.same {
			t.Errorf("%s(%q) == %s(%q): %v, want %v", NameKey, tc.a, NameKey, tc.b, got, tc.same)
		}
	}
	if key(HashName, "Server") == key(HashName, "server") {
		t.Errorf("%s does not tell Server from server", HashName)
	}
}
