package symbols

import (
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

func TestEditBetween(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           sitter.EditInput
		changed        bool
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n"},
		{
			name: "insert a line", old: "a\nc\n", new: "a\nb\nc\n", changed: true,
			want: sitter.EditInput{StartIndex: 2, OldEndIndex: 2, NewEndIndex: 4,
				StartPoint: sitter.Point{Row: 1}, OldEndPoint: sitter.Point{Row: 1}, NewEndPoint: sitter.Point{Row: 2}},
		},
		{
			name: "replace inside a line", old: "ab\nxyz\n", new: "ab\nxQQz\n", changed: true,
			want: sitter.EditInput{StartIndex: 4, OldEndIndex: 5, NewEndIndex: 6,
				StartPoint: sitter.Point{Row: 1, Column: 1}, OldEndPoint: sitter.Point{Row: 1, Column: 2}, NewEndPoint: sitter.Point{Row: 1, Column: 3}},
		},
		{
			name: "delete to the end", old: "a\nb\n", new: "a\n", changed: true,
			want: sitter.EditInput{StartIndex: 2, OldEndIndex: 4, NewEndIndex: 2,
				StartPoint: sitter.Point{Row: 1}, OldEndPoint: sitter.Point{Row: 2}, NewEndPoint: sitter.Point{Row: 1}},
		},
		{
			// The prefix and suffix may not overlap: "aa" → "aaa" is one
			// inserted byte, not a prefix of two and a suffix of two.
			name: "repeated bytes", old: "aa", new: "aaa", changed: true,
			want: sitter.EditInput{StartIndex: 2, OldEndIndex: 2, NewEndIndex: 3,
				StartPoint: sitter.Point{Column: 2}, OldEndPoint: sitter.Point{Column: 2}, NewEndPoint: sitter.Point{Column: 3}},
		},
		{
			name: "from empty", old: "", new: "x\n", changed: true,
			want: sitter.EditInput{NewEndIndex: 2, NewEndPoint: sitter.Point{Row: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := EditBetween([]byte(tt.old), []byte(tt.new))
			if changed != tt.changed || got != tt.want {
				t.Errorf("EditBetween(%q, %q) = %+v, %v; want %+v, %v", tt.old, tt.new, got, changed, tt.want, tt.changed)
			}
		})
	}
}
