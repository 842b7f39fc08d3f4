package symbols

import (
	"context"
	"slices"
	"testing"
)

// TestGoLocals checks what the Go query makes of names declared in
// functions: a selector on a typed local is qualified by the type, and a
// function used as a value is a reference unless a local of its function
// has the name.
func TestGoLocals(t *testing.T) {
	const src = `package p

import "time"

type Server struct{ Handler func() }

func (s *Server) handle() {}

func serve(f func()) {}

func check() {}

func run(srv *Server, t time.Time, n []int, m map[string]int) {
	srv.handle()
	t.Add(1)
	var c Server
	c.handle()
	d := &Server{Handler: check}
	d.handle()
	serve(check)
	serve(srv.handle)
	srv.Handler = check
	_ = n
	_ = m
}

func shadow() {
	check := func() {}
	serve(check)
}
`
	f, err := Extract(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string // "from: kind qualifier.name"
	for _, r := range f.Refs {
		if r.From < 0 {
			continue
		}
		s := f.Entities[r.From].Name + ": " + string(r.Kind) + " " + r.Name
		if r.Qualifier != "" {
			s = f.Entities[r.From].Name + ": " + string(r.Kind) + " " + r.Qualifier + "." + r.Name
		}
		got = append(got, s)
	}
	for _, tc := range []struct {
		ref  string
		want bool
	}{
		{"run: calls Server.handle", true},      // srv *Server, c Server, d := &Server{}
		{"run: calls srv.handle", false},        // the qualifier is the type, not the variable
		{"run: calls c.handle", false},          // var c Server
		{"run: calls d.handle", false},          // d := &Server{...}
		{"run: calls time.Time.Add", true},      // t time.Time
		{"run: references check", true},         // passed, set in a literal, assigned
		{"run: references Server.handle", true}, // serve(srv.handle): a method value
		{"run: references n", false},            // a parameter is no function
		{"shadow: references check", false},     // a local check is declared in shadow
	} {
		if slices.Contains(got, tc.ref) != tc.want {
			t.Errorf("reference %q present = %v, want %v; have %q", tc.ref, !tc.want, tc.want, got)
		}
	}
}
