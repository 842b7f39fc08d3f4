package index

import (
	"database/sql"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// goTypesFiles is a module where package d calls methods of lk, whose two
// types both have Lock, through operands whose type d's files state (a
// field, a declared result) or do not (an interface parameter, a field of a
// type declared in another file).
var goTypesFiles = map[string]string{
	"go.mod": "module example.com/ws\n\ngo 1.22\n",
	"lk/lk.go": `package lk

// Locker locks.
type Locker struct{}

func (*Locker) Lock()   {}
func (*Locker) Unlock() {}

// Other locks too.
type Other struct{}

func (Other) Lock()    {}
func (Other) Missing() {}

// Default is a Locker whose type this package's callers do not see.
var Default = &Locker{}
`,
	"d/d.go": `package d

import "example.com/ws/lk"

type fake struct{}

// Close is the only Close in reach of d.
func (fake) Close() error { return nil }

// Conn holds a Locker.
type Conn struct {
	mu lk.Locker
	lk.Other
}

func get() (*Conn, error) { return nil, nil }

func (c *Conn) ViaField() { c.mu.Lock() }

func ViaResult() { get().ViaField() }

func ViaDecl() {
	v, _ := get()
	v.ViaField()
}

func Ambiguous(x interface{ Lock() }) { x.Lock() }

func Unique(x interface{ Close() error }) { x.Close() }

func (c *Conn) NoSuch() { c.Missing() }

func OtherPackageVar() { lk.Default.Unlock() }
`,
	"d/more.go": `package d

// AwayFromType: Conn's fields are declared in another file.
func (c *Conn) AwayFromType() { c.mu.Lock() }
`,
}

// TestGoTypedSelectors checks Go selectors typed by what a file states, and
// that a selector on an operand of unknown type binds only to the one
// method in reach with its name.
func TestGoTypedSelectors(t *testing.T) {
	root := testWorkspace(t, goTypesFiles)
	_, st := run(t, root, config.Default())
	for _, tc := range []struct {
		from, name, qual string
		want             string // qualified name, "" for unresolved
	}{
		{"d.Conn.ViaField", "Lock", "lk.Locker", "lk.Locker.Lock"}, // the field's type
		{"d.ViaResult", "ViaField", "Conn", "d.Conn.ViaField"},     // the declared result
		{"d.ViaDecl", "ViaField", "Conn", "d.Conn.ViaField"},       // v, _ := get()
		// Two types in reach have Lock: no guess.
		{"d.Ambiguous", "Lock", "?x", ""},
		{"d.Conn.AwayFromType", "Lock", "?c.mu", ""},
		// One method in reach has the name.
		{"d.Unique", "Close", "?x", "d.fake.Close"},
		{"d.OtherPackageVar", "Unlock", "?lk.Default", "lk.Locker.Unlock"},
		// Conn declares no Missing (it is promoted from lk.Other): the
		// selector is not bound to another type's method of the name.
		{"d.Conn.NoSuch", "Missing", "Conn", ""},
	} {
		var got sql.NullString
		err := st.DB().QueryRow(`SELECT d.qname FROM refs r JOIN entities s ON s.id = r.src_id
			LEFT JOIN entities d ON d.id = r.dst_id WHERE s.qname = ? AND r.name = ? AND r.qualifier = ?`,
			tc.from, tc.name, tc.qual).Scan(&got)
		if err == sql.ErrNoRows {
			t.Errorf("no reference %s → %s.%s", tc.from, tc.qual, tc.name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.String != tc.want {
			t.Errorf("%s → %s.%s resolved to %q, want %q", tc.from, tc.qual, tc.name, got.String, tc.want)
		}
	}
}
