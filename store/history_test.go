package store

import (
	"context"
	"maps"
	"slices"
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
	rows, err := s.DB().Query(`EXPLAIN QUERY PLAN `+recentCommitsSQL, 200)
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

// Commits of the same second rank in the order of their ids, which the
// caller gives in git's order, and commits with the same message in hash
// order, however the updates stored them: a cold history stores the newest
// first, an incremental one what a checkout brought.
func TestHistoryTiesIgnoreStoreOrder(t *testing.T) {
	ctx := context.Background()
	commits := []Commit{ // git's order: newest first
		{ID: -4, Hash: "ee", At: 300, Terms: "fix pars flag", Files: []string{"e.go"}, NFiles: 1},
		{ID: -3, Hash: "dd", At: 200, Terms: "add help", Files: []string{"d.go"}, NFiles: 1},
		{ID: -2, Hash: "cc", At: 200, Terms: "fix pars flag", Files: []string{"c.go"}, NFiles: 1},
		{ID: 1, Hash: "bb", At: 200, Terms: "fix pars flag", Files: []string{"b.go"}, NFiles: 1},
		{ID: 2, Hash: "aa", At: 100, Terms: "fix pars flag", Files: []string{"a.go"}, NFiles: 1},
	}
	orders := map[string][]int{
		"newest first":   {0, 1, 2, 3, 4},
		"oldest first":   {4, 3, 2, 1, 0},
		"in two updates": {3, 0, 4, 2, 1},
	}
	for name, order := range orders {
		s := openTest(t, t.TempDir())
		w, err := s.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
			if err := w.PutFile(ctx, sampleFile(p, int64(100+10*i)), false); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, part := range [][]int{order[:2], order[2:]} {
			var add []Commit
			for _, i := range part {
				add = append(add, commits[i])
			}
			if err := s.UpdateHistory(ctx, HistoryUpdate{Add: add}); err != nil {
				t.Fatal(err)
			}
		}
		recent, err := s.RecentFiles(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"e.go": 0, "d.go": 1, "c.go": 2, "b.go": 3, "a.go": 4}; !maps.Equal(recent, want) {
			t.Errorf("%s: RecentFiles = %v, want %v", name, recent, want)
		}
		hits, err := s.SimilarCommits(ctx, []string{"pars", "flag"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		var similar []int64
		for _, h := range hits {
			similar = append(similar, h.ID)
		}
		if want := []int64{2, 1, -2}; !slices.Equal(similar, want) { // aa, bb, cc
			t.Errorf("%s: similar commits %v, want %v", name, similar, want)
		}
	}
}
