package index

import (
	"database/sql"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// goScopeFiles is a module whose packages b and c both declare New and a
// type with a method Add, and whose package a imports b, c and the
// standard library's errors and time (not in the workspace).
var goScopeFiles = map[string]string{
	"go.mod": "module example.com/ws\n\ngo 1.22\n",
	"b/b.go": `package b

// New makes a Thing.
func New() *Thing { return &Thing{} }

// Thing counts.
type Thing struct{ n int }

// Add adds to a Thing.
func (t *Thing) Add(n int) { t.n += n }

func helper() {}

// Use calls its own package's helper and New.
func Use() { helper(); New() }
`,
	"c/c.go": `package c

import "time"

// New makes a Counter.
func New() *Counter { return &Counter{} }

// Counter counts.
type Counter struct{ n int }

// Add adds to a Counter.
func (c *Counter) Add(n int) { c.n += n }

// Later adds to a time.Time, not to a Counter.
func Later(t time.Time) time.Time { return t.Add(time.Hour) }
`,
	"b/more.go": `package b

// Sub is Thing's method in a file that does not declare Thing.
func (t *Thing) Sub(n int) { t.n -= n }
`,
	"a/a_test.go": `package a

type fakeConn struct{}

// Close is a test double's: no non-test file's call reaches it.
func (fakeConn) Close() error { return nil }

func helperInTest() {}

func TestX() { helperInTest(); Bare() }
`,
	"errors/errors.go": `package errors

// New is this module's own errors.New, which import "errors" is not.
func New(s string) error { return nil }
`,
	"a/a.go": `package a

import (
	"errors"

	"example.com/ws/b"
	cc "example.com/ws/c"
)

// Client has a function-valued field.
type Client struct {
	CheckRedirect func() error
}

func defaultCheckRedirect() error { return nil }

func handle(f func() error) {}

func ViaB() { b.New() }

func ViaC() { cc.New() }

func ViaStd() error { return errors.New("x") }

func Bare() { New() }

// Closer's method is unknown: its type has none in the workspace.
func Closer(c interface{ Close() error }) { c.Close() }

// Do is a method of Client: a bare call to do is not a call to it.
func Bare2() { Do() }

func Builtin() int { return len("x") }

func Helper() { helper() }

func OnCounter(ctr *cc.Counter) { ctr.Add(1) }

func OnThing(th *b.Thing) { th.Sub(1) }

func OnClient(cl *Client) { cl.Do() }

func (cl *Client) Do() {}

func Literal() *Client { return &Client{CheckRedirect: defaultCheckRedirect} }

func Passed() { handle(defaultCheckRedirect) }

func MethodValue(cl *Client) { run(cl.Do) }

func run(f func()) {}

// Local passes a local variable that shadows the function's name.
func Local() {
	defaultCheckRedirect := func() error { return nil }
	handle(defaultCheckRedirect)
}
`,
}

// TestGoScopedResolution checks each Go reference of a small module
// against the definition Go's own scoping gives it, or none.
func TestGoScopedResolution(t *testing.T) {
	root := testWorkspace(t, goScopeFiles)
	_, st := run(t, root, config.Default())
	cases := []struct {
		from, name, qual string
		want             string // qualified name, "" for unresolved, "-" for no reference
	}{
		{"a.ViaB", "New", "b", "b.New"},
		{"a.ViaC", "New", "cc", "c.New"},
		// errors is the standard library, not the module's errors/ nor b.New.
		{"a.ViaStd", "New", "errors", ""},
		// a declares no New: a bare New is not another package's.
		{"a.Bare", "New", "", ""},
		{"a.Bare2", "Do", "", ""},
		{"a.Closer", "Close", "?c", ""},
		{"a.TestX", "helperInTest", "", "a.helperInTest"},
		{"a.TestX", "Bare", "", "a.Bare"},
		{"a.Builtin", "len", "", ""},
		{"a.Helper", "helper", "", ""},
		{"b.Use", "helper", "", "b.helper"},
		{"b.Use", "New", "", "b.New"},
		// Selectors on a typed parameter name the type's method: without
		// the type, b's and c's Add are equally likely.
		{"a.OnClient", "Do", "Client", "a.Client.Do"},
		{"a.OnCounter", "Add", "cc.Counter", "c.Counter.Add"},
		// A method declared away from its type is still the type's.
		{"a.OnThing", "Sub", "b.Thing", "b.Thing.Sub"},
		// time.Time.Add is not Counter.Add, the only Add in package c.
		{"c.Later", "Add", "time.Time", ""},
		// Functions and methods used as values are references.
		{"a.Literal", "defaultCheckRedirect", "", "a.defaultCheckRedirect"},
		{"a.Passed", "defaultCheckRedirect", "", "a.defaultCheckRedirect"},
		{"a.MethodValue", "Do", "Client", "a.Client.Do"},
		{"a.Local", "defaultCheckRedirect", "", "-"},
	}
	for _, tc := range cases {
		var got sql.NullString
		err := st.DB().QueryRow(`SELECT d.qname FROM refs r JOIN entities s ON s.id = r.src_id
			LEFT JOIN entities d ON d.id = r.dst_id WHERE s.qname = ? AND r.name = ? AND r.qualifier = ?`,
			tc.from, tc.name, tc.qual).Scan(&got)
		if err == sql.ErrNoRows && tc.want == "-" {
			continue
		}
		if err == sql.ErrNoRows {
			t.Errorf("no reference %s → %s.%s", tc.from, tc.qual, tc.name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "-" {
			t.Errorf("%s → %s: a local variable recorded as a reference (to %q)", tc.from, tc.name, got.String)
			continue
		}
		if got.String != tc.want {
			t.Errorf("%s → %s.%s resolved to %q, want %q", tc.from, tc.qual, tc.name, got.String, tc.want)
		}
	}
}
