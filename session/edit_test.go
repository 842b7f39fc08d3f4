package session

import (
	"context"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/symbols"
)

func pos(l, c uint32) Position { return Position{Line: l, Character: c} }

func TestApply(t *testing.T) {
	text := "ab\n😀x\nlast"
	tests := []struct {
		name     string
		ch       Edit
		want     string
		from, to int
	}{
		{"insert", Edit{&Range{Start: pos(0, 1), End: pos(0, 1)}, "Z"}, "aZb\n😀x\nlast", 1, 1},
		// 😀 is two UTF-16 code units: character 2 is after it.
		{"after surrogate pair", Edit{&Range{Start: pos(1, 2), End: pos(1, 3)}, "y"}, "ab\n😀y\nlast", 2, 2},
		{"inside surrogate pair rounds up", Edit{&Range{Start: pos(1, 1), End: pos(1, 1)}, "-"}, "ab\n😀-x\nlast", 2, 2},
		{"past end of line clamps", Edit{&Range{Start: pos(0, 99), End: pos(0, 99)}, "!"}, "ab!\n😀x\nlast", 1, 1},
		{"past end of text clamps", Edit{&Range{Start: pos(9, 0), End: pos(9, 5)}, "\nend"}, "ab\n😀x\nlast\nend", 4, 4},
		{"delete across lines", Edit{&Range{Start: pos(0, 1), End: pos(2, 1)}, ""}, "aast", 1, 1},
		{"reversed range", Edit{&Range{Start: pos(0, 2), End: pos(0, 0)}, "q"}, "q\n😀x\nlast", 1, 1},
		{"whole document", Edit{nil, "new\ntext"}, "new\ntext", 1, 2},
		{"appended block skips the newline it starts with", Edit{&Range{Start: pos(2, 4), End: pos(2, 4)}, "\n\nfunc F() {}\n"}, "ab\n😀x\nlast\n\nfunc F() {}\n", 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, from, to := apply([]byte(text), tt.ch)
			if string(got) != tt.want || from != tt.from || to != tt.to {
				t.Errorf("apply = %q lines %d-%d, want %q lines %d-%d", got, from, to, tt.want, tt.from, tt.to)
			}
		})
	}
}

func TestWordAt(t *testing.T) {
	text := []byte("x := foo.BarBaz(q_1)\n")
	for _, tt := range []struct {
		char uint32
		want string
	}{{0, "x"}, {5, "foo"}, {8, "foo"}, {9, "BarBaz"}, {14, "BarBaz"}, {16, "q_1"}, {3, ""}} {
		if got, _ := wordAt(text, pos(0, tt.char)); got != tt.want {
			t.Errorf("wordAt(%d) = %q, want %q", tt.char, got, tt.want)
		}
	}
}

func TestChangedSymbols(t *testing.T) {
	src := "package p\n\ntype T struct{}\n\nfunc (T) M() {\n\treturn\n}\n\nfunc F() {}\n"
	f, err := symbols.Extract(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		spans [][2]int
		want  []string
	}{
		{[][2]int{{6, 6}}, []string{"M"}},
		{[][2]int{{9, 9}}, []string{"F"}},
		{[][2]int{{5, 9}}, []string{"M", "F"}},
		{[][2]int{{2, 2}}, nil},
	} {
		if got := changedSymbols(f, tt.spans); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("changedSymbols(%v) = %v, want %v", tt.spans, got, tt.want)
		}
	}
}
