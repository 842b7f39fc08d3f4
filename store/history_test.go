package store

import (
	"context"
	"maps"
	"strings"
	"testing"
)

// RecentFiles numbers commits newest first by committer time; a merge
// (no files) takes no position, a mass change takes one and credits none
// of its files, a file gets the position of its newest commit, and a file
// the index no longer tracks is left out.
func TestRecentFiles(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	w, err := s.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"a.go", "b.go", "c.go", "d.go"} {
		if err := w.PutFile(ctx, sampleFile(p, int64(100+10*i)), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	commits := []Commit{ // stored in no particular order
		{Hash: "c1", At: 100, Files: []string{"a.go", "b.go"}, NFiles: 2},
		{Hash: "c3", At: 300, Files: []string{"b.go"}, NFiles: 1},
		{Hash: "merge", At: 350, NFiles: 0},
		{Hash: "mass", At: 400, NFiles: 80, Skip: "mass"},
		{Hash: "c2", At: 200, Files: []string{"c.go"}, NFiles: 1},
		{Hash: "c5", At: 500, Files: []string{"d.go", "gone.go"}, NFiles: 2},
	}
	if err := s.UpdateHistory(ctx, HistoryUpdate{Add: commits}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n    int
		want map[string]int
	}{
		// c5 0, mass 1, c3 2, c2 3, c1 4.
		{n: 10, want: map[string]int{"d.go": 0, "b.go": 2, "c.go": 3, "a.go": 4}},
		{n: 3, want: map[string]int{"d.go": 0, "b.go": 2}},
		{n: 0, want: map[string]int{}},
	}
	for _, tc := range tests {
		got, err := s.RecentFiles(ctx, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("RecentFiles(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// Read by time through the index, not by a scan of the history.
	var plan strings.Builder
	rows, err := s.DB().Query(`EXPLAIN QUERY PLAN SELECT id FROM commits WHERE nfiles > 0 ORDER BY at DESC, id LIMIT 200`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "\n")
	}
	if !strings.Contains(plan.String(), "commits_at") {
		t.Errorf("recent commits are not read through commits_at:\n%s", plan.String())
	}
}
