package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestReplaceRefs(t *testing.T) {
	const id = 100
	src := int64(id + 1)
	ref := func(kind RefKind, name string, line int, dst int64) Ref {
		return Ref{SrcID: src, FileID: id, Kind: kind, Name: name, Line: line, DstID: dst}
	}
	stored := []Ref{
		ref(RefCalls, "Serve", 3, 0),
		ref(RefCalls, "Serve", 7, 0),
		ref(RefCalls, "Close", 4, 55),
		ref(RefReferences, "Server", 5, 66),
	}
	tests := []struct {
		name string
		next []Ref
	}{
		{"unchanged", stored},
		{"lines moved", []Ref{ref(RefCalls, "Serve", 5, 0), ref(RefCalls, "Serve", 9, 0), ref(RefCalls, "Close", 6, 55), ref(RefReferences, "Server", 7, 66)}},
		{"retargeted", []Ref{ref(RefCalls, "Serve", 3, 77), ref(RefCalls, "Serve", 7, 0), ref(RefCalls, "Close", 4, 0), ref(RefReferences, "Server", 5, 66)}},
		{"added and removed", []Ref{ref(RefCalls, "Serve", 3, 0), ref(RefCalls, "Listen", 4, 0), ref(RefImplements, "Server", 5, 66), ref(RefCalls, "Serve", 8, 0), ref(RefCalls, "Serve", 9, 0)}},
		{"all removed", nil},
		{"kind changed only", []Ref{ref(RefReferences, "Serve", 3, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openTest(t, t.TempDir())
			w, err := s.BeginWrite(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Rollback()
			fd := sampleFile("net/http/server.go", id)
			fd.Refs = stored
			if err := w.PutFile(ctx, fd, false); err != nil {
				t.Fatal(err)
			}
			old, err := w.Refs(ctx, []int64{id}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.ReplaceRefs(ctx, old, tt.next); err != nil {
				t.Fatal(err)
			}
			got, err := w.Refs(ctx, []int64{id}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := refSet(got), refSet(tt.next); !slices.Equal(a, b) {
				t.Errorf("stored after ReplaceRefs:\n%v\nwant\n%v", a, b)
			}
		})
	}
}

// refSet renders references without row ids, sorted.
func refSet(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%d %d %s %q %d %d", r.SrcID, r.Kind, r.Name, r.Qualifier, r.Line, r.DstID))
	}
	slices.Sort(out)
	return out
}
