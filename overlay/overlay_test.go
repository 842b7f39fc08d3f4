package overlay

import (
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	s := New()
	a := &Document{URI: "file:///w/a.go", Abs: "/w/a.go", Root: "/w", Rel: "a.go", Text: []byte("package a")}
	b := &Document{URI: "file:///w/b.go", Abs: "/w/b.go", Root: "/w", Rel: "b.go", Text: []byte("package b")}
	out := &Document{URI: "file:///x/c.go", Abs: "/x/c.go", Text: []byte("package c")}
	s.Put(a, false)
	s.Put(b, true)
	s.Put(out, true)
	view := s.View("/w")

	tests := []struct {
		rel           string
		open, unsaved bool
	}{
		{"a.go", true, false},
		{"b.go", true, true},
		{"c.go", false, false}, // open, but outside the folder
		{"d.go", false, false},
	}
	for _, tc := range tests {
		text, _, ok := view.Buffer(tc.rel)
		if ok != tc.open || (ok && len(text) == 0) {
			t.Errorf("Buffer(%s) open %v, want %v", tc.rel, ok, tc.open)
		}
		if got := s.Unsaved("/w", tc.rel); got != tc.unsaved {
			t.Errorf("Unsaved(%s) = %v, want %v", tc.rel, got, tc.unsaved)
		}
	}
	if got := s.UnsavedIn("/w"); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("UnsavedIn = %v", got)
	}

	// A change replaces the document; the reader of the old one keeps it.
	b2 := &Document{URI: b.URI, Abs: b.Abs, Root: b.Root, Rel: b.Rel, Text: []byte("package b // edited")}
	if old := s.Put(b2, true); old != b || string(old.Text) != "package b" {
		t.Errorf("Put returned %v, want the replaced document", old)
	}
	s.Saved(b.URI)
	if s.Unsaved("/w", "b.go") {
		t.Error("saved document still unsaved")
	}
	s.Put(&Document{URI: a.URI, Abs: a.Abs, Root: a.Root, Rel: a.Rel, Text: []byte("package a // edited")}, true)
	if d, dirty := s.Close(a.URI); d == nil || !dirty {
		t.Errorf("Close of an edited document = %v, %v", d, dirty)
	}
	if _, _, ok := view.Buffer("a.go"); ok {
		t.Error("a closed document is still a buffer")
	}
	if d, _ := s.Close(a.URI); d != nil {
		t.Error("closed twice")
	}
	if d := s.ByPath("/x/c.go"); d != out {
		t.Errorf("ByPath = %v", d)
	}

	view.Close()
	if _, _, ok := view.Buffer("b.go"); ok {
		t.Error("a closed view shows buffers")
	}
	if s.Get(b.URI) == nil {
		t.Error("closing a view closed its documents")
	}
	if n := len(s.Clear()); n != 2 || s.Get(b.URI) != nil {
		t.Errorf("Clear returned %d documents", n)
	}
}
