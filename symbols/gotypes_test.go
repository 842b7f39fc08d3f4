package symbols

import (
	"context"
	"slices"
	"testing"
)

// TestGoSelectorTypes checks the qualifier Extract gives a Go selector from
// what the file states about its operand: a type ("S", "sync.Mutex") when
// a field, a declared result, a conversion, a literal, an assertion or a
// typed declaration says it, the package for an import's name, and the
// operand after UnknownOperand otherwise.
func TestGoSelectorTypes(t *testing.T) {
	const src = `package p

import (
	"os"
	"sync"
)

type S struct {
	mu    sync.Mutex
	next  *S
	files []*os.File
	sync.Once
}

func (s *S) run()                 {}
func (s *S) child() *S            { return s.next }
func newS() *S                    { return &S{} }
func open() (s *S, err error)     { return nil, nil }
func pair() (a, b *S)             { return nil, nil }

var global S

func fields(s *S) {
	s.mu.Lock()
	s.next.run()
	s.Once.Do(nil)
	s.files.Close()
	s.missing.Close()
}

func results(s *S) {
	newS().run()
	s.child().child()
	v := newS()
	v.run()
	w, err := open()
	w.run()
	err.Error()
	a, _ := pair()
	a.run()
	os.Getenv("x").Close()
}

func forms(x any) {
	x.(*S).run()
	new(S).run()
	S{}.run()
	(&S{}).run()
	global.run()
	S.run(nil)
}

func changing(c bool) {
	var y *S
	y.run()
	y2 := newS()
	if c {
		y2 := open
		y2.run()
	}
	z := z.next
	z.run()
}

func shadowed() {
	sync := &S{}
	sync.run()
	os.Exit(0)
}

func newS2() {}

func funcValue(newS2 func()) {
	newS2()
	if open, ok := any(nil).(func()); ok {
		open()
	}
	newS := newS()
	newS.run()
}
`
	f, err := Extract(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{} // "from: name" → qualifiers
	for _, r := range f.Refs {
		if r.From >= 0 && r.Kind == EdgeCalls {
			k := f.Entities[r.From].Name + ": " + r.Name
			got[k] = append(got[k], r.Qualifier)
		}
	}
	for _, tc := range []struct{ ref, qual string }{
		{"fields: Lock", "sync.Mutex"},  // a field of another package's type
		{"fields: run", "S"},            // a pointer field of the file's own type
		{"fields: Do", "sync.Once"},     // an embedded field, named by its type
		{"fields: Close", "?s.files"},   // a slice has no methods to find
		{"fields: Close", "?s.missing"}, // S has no such field here
		{"results: run", "S"},           // newS().run(), v := newS(), w, err := open(), a, _ := pair()
		{"results: child", "S"},         // a method's declared result
		{"results: Error", "?err"},      // the second result is not typed
		{"results: Close", "?os.Getenv"},
		{"forms: run", "S"}, // assertion, new, literal, &literal, package var, method expression
		{"changing: run", "S"},
		{"changing: run", "?y2"}, // declared twice in the function with different types
		{"changing: run", "?z"},  // z := z.next needs z's own type
		{"shadowed: run", "S"},   // a local sync is not the package
		{"funcValue: run", "S"},  // newS := newS()
		{"shadowed: Exit", "os"},
	} {
		if !slices.Contains(got[tc.ref], tc.qual) {
			t.Errorf("%s: no selector qualified %q; have %q", tc.ref, tc.qual, got[tc.ref])
		}
	}
	// A call of a local function value is no call of the package's
	// function of that name.
	for _, name := range []string{"newS2", "open"} {
		if q, ok := got["funcValue: "+name]; ok {
			t.Errorf("funcValue calls its local %s, recorded as a call (qualifiers %q)", name, q)
		}
	}
	// In "newS := newS()" the call is of the function: the local's scope
	// starts after its declaration.
	if _, ok := got["funcValue: newS"]; !ok {
		t.Errorf("funcValue: newS := newS() recorded no call of newS")
	}
	// Every selector on S's methods in forms is typed: none is unknown.
	for _, q := range got["forms: run"] {
		if q != "S" {
			t.Errorf("forms: run qualified %q, want only S", q)
		}
	}
}

func TestFirstResult(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{"", ""},
		{"*Response", "Response"},
		{"(*Response, error)", "Response"},
		{"(n int, err error)", "int"},
		{"(a, b *T)", "T"},
		{"(r *bufio.Reader, err error)", "bufio.Reader"},
		{"(func(x int) error, bool)", ""},
		{"(chan int)", ""},
		{"(m map[string]int, ok bool)", ""},
		{"List[T]", "List"},
	} {
		if got := firstResult(tc.result); got != tc.want {
			t.Errorf("firstResult(%q) = %q, want %q", tc.result, got, tc.want)
		}
	}
}

func TestGoImportName(t *testing.T) {
	for _, tc := range []struct{ path, alias, want string }{
		{"net/http", "", "http"},
		{"net/http", "nethttp", "nethttp"},
		{"gopkg.in/yaml.v3", "", "yaml"},
		{"math/rand/v2", "", "rand"},
		{"github.com/mattn/go-sqlite3", "", "sqlite3"},
		{"embed", "_", ""},
		{"strings", ".", ""},
	} {
		if got := GoImportName(tc.path, tc.alias); got != tc.want {
			t.Errorf("GoImportName(%q, %q) = %q, want %q", tc.path, tc.alias, got, tc.want)
		}
	}
}
