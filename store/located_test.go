package store

import (
	"context"
	"reflect"
	"testing"
)

func TestEntityIDsInFileAndLocate(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := sampleFile("net/http/server.go", 100)
	// Entities out of source order, and one sharing another's start line,
	// so that the order comes from the query, not from insertion.
	f.Entities = append(f.Entities,
		Entity{ID: 103, FileID: 100, ParentID: 100, Kind: "method", Name: "Close", QName: "http.Server.Close", StartLine: 7, EndLine: 8},
		Entity{ID: 102, FileID: 100, ParentID: 100, Kind: "type", Name: "Server", QName: "http.Server", StartLine: 2, EndLine: 9},
	)
	f.Docs = append(f.Docs, Doc{ID: 103, Name: "close"}, Doc{ID: 102, Name: "server"})
	if err := w.PutFile(ctx, f, false); err != nil {
		t.Fatal(err)
	}
	if err := w.PutFile(ctx, sampleFile("net/http/client.go", 200), false); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"net/http/server.go", "net/http/client.go", "missing.go"} {
		ents, err := s.EntitiesInFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, e := range ents {
			want = append(want, e.ID)
		}
		got, err := s.EntityIDsInFile(ctx, path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("EntityIDsInFile(%s) = %v, %v; EntitiesInFile order %v", path, got, err, want)
		}
	}

	tests := []struct {
		name string
		ids  []int64
		want map[int64]Located
	}{
		{"none", nil, map[int64]Located{}},
		{"two files, a stale id and a repeat", []int64{103, 201, 999, 103}, map[int64]Located{
			103: {QName: "http.Server.Close", Path: "net/http/server.go", Line: 7},
			201: {QName: "http.ListenAndServe", Path: "net/http/client.go", Line: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Locate(ctx, tt.ids)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Locate(%v) = %v, %v; want %v", tt.ids, got, err, tt.want)
			}
		})
	}
}
