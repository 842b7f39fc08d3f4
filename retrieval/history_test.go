package retrieval

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/store"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	gitEnv(t, dir, nil, args...)
}

// gitEnv runs git in dir with env added to a clean identity.
func gitEnv(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Env = append(cmd.Env, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// historyRepo is a repository whose past fix of "hangs" touched dial.go,
// while pool.go matches the word "connection" more often.
func historyRepo(t *testing.T, withGit bool) string {
	t.Helper()
	root := t.TempDir()
	steps := []struct {
		msg   string
		files map[string]string
	}{
		{"first version", map[string]string{
			"net/dial.go":  "package net\n\n// Dial opens a connection to addr.\nfunc Dial(addr string) error { return connect(addr) }\n\nfunc connect(a string) error { return nil }\n",
			"net/pool.go":  "package net\n\n// Pool keeps idle connection objects; a connection is reused.\ntype Pool struct{ idle []connection }\n\ntype connection struct{}\n\n// Get returns an idle connection.\nfunc (p *Pool) Get() connection { return connection{} }\n",
			"cache/lru.go": "package cache\n\n// LRU evicts the least recently used entry.\ntype LRU struct{}\n",
		}},
		{"client hangs forever when the server never answers: stop after a deadline", map[string]string{
			"net/dial.go": "package net\n\n// Dial opens a connection to addr.\nfunc Dial(addr string) error { return connect(addr) }\n\nfunc connect(a string) error { return nil } // bounded\n",
		}},
		{"evict the oldest entries first", map[string]string{
			"cache/lru.go": "package cache\n\n// LRU evicts the least recently used entry.\ntype LRU struct{ n int }\n",
		}},
	}
	if withGit {
		gitIn(t, root, "init", "-q")
	}
	for _, s := range steps {
		wstest.Write(t, root, s.files)
		if withGit {
			gitIn(t, root, "add", "-A", "--", ".", ":!.ctxls")
			gitIn(t, root, "commit", "-q", "-m", s.msg)
		}
	}
	return root
}

func TestHistoryRanksTheFileOfASimilarPastFix(t *testing.T) {
	const text = "the connection hangs when the server never answers"
	top := func(st *store.Store) FileResult {
		t.Helper()
		resp, err := Query(context.Background(), st, Request{Text: text, Limit: 5, MinRelevance: -1})
		if err != nil || len(resp.Files) == 0 {
			t.Fatalf("Query: %v %+v", err, resp)
		}
		return resp.Files[0]
	}
	// Without history the word "connection" decides: pool.go.
	if f := top(wstest.Open(t, historyRepo(t, false))); f.Path != "net/pool.go" || f.Signals.History != 0 {
		t.Fatalf("without history: %s %+v", f.Path, f.Signals)
	}
	// With it, the file the past fix of a hang touched.
	if f := top(wstest.Open(t, historyRepo(t, true))); f.Path != "net/dial.go" || f.Signals.History != 1 {
		t.Errorf("with history: %s %+v", f.Path, f.Signals)
	}
}

// Of two files that answer a message equally, the one a recent commit
// touched ranks first (decision 0114), whichever of the two it is.
func TestRecencyOrdersEqualFiles(t *testing.T) {
	const text = "round the invoice total amount"
	body := func(name string) string {
		return "package billing\n\n// " + name + " rounds the invoice total amount.\nfunc " + name + "(total int) int { return total }\n"
	}
	tests := []struct {
		name, touched, want string
	}{
		{name: "a touched last", touched: "billing/a.go", want: "billing/a.go"},
		{name: "b touched last", touched: "billing/b.go", want: "billing/b.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			gitIn(t, root, "init", "-q")
			commit := func(day int, files map[string]string, msg string) {
				wstest.Write(t, root, files)
				gitIn(t, root, "add", "-A", "--", ".", ":!.ctxls")
				date := fmt.Sprintf("GIT_COMMITTER_DATE=2026-01-%02dT10:00:00Z", day)
				gitEnv(t, root, []string{date}, "commit", "-q", "-m", msg)
			}
			commit(1, map[string]string{"billing/a.go": body("RoundA"), "billing/b.go": body("RoundB")}, "first version")
			// Newer commits, the newest touching one file of the two.
			for day := 2; day < 12; day++ {
				commit(day, map[string]string{"notes/log.go": fmt.Sprintf("package notes\n\nconst day = %d\n", day)}, "log a day")
			}
			commit(12, map[string]string{tc.touched: body(strings.TrimSuffix(filepath.Base(tc.touched), ".go")) + "\n// touched\n"}, "touch")
			st := wstest.Open(t, root)
			resp, err := Query(context.Background(), st, Request{Text: text, Limit: 5, MinRelevance: -1})
			if err != nil || len(resp.Files) < 2 {
				t.Fatalf("Query: %v %+v", err, resp)
			}
			if f := resp.Files[0]; f.Path != tc.want || f.Signals.Recent != 1 {
				t.Errorf("first %s (recent %v), want %s with recent 1; files %+v", f.Path, f.Signals.Recent, tc.want, resp.Files)
			}
			// The other was last touched by the oldest of 12 commits: the
			// eleventh back.
			if f := resp.Files[1]; f.Signals.Recent != 1/(1+11.0/recencyScale) {
				t.Errorf("second %s recent %v, want %v", f.Path, f.Signals.Recent, 1/(1+11.0/recencyScale))
			}
		})
	}
}

// A file that most commits touch gets less from each similar commit than a
// file that rarely changes (hotFilePower).
func TestHistoryDiscountsHotFiles(t *testing.T) {
	root := t.TempDir()
	gitIn(t, root, "init", "-q")
	commit := func(msg string, files map[string]string) {
		wstest.Write(t, root, files)
		gitIn(t, root, "add", "-A", "--", ".", ":!.ctxls")
		gitIn(t, root, "commit", "-q", "-m", msg)
	}
	src := func(pkg, body string) string { return "package " + pkg + "\n\n" + body + "\n" }
	commit("first version", map[string]string{
		"app/hub.go": src("app", "var Hub = 0"), "app/dial.go": src("app", "var Dial = 0"), "app/pool.go": src("app", "var Pool = 0"),
	})
	for i := range 8 { // the hub changes all the time
		commit(fmt.Sprintf("bump the hub to %d", i), map[string]string{"app/hub.go": src("app", fmt.Sprintf("var Hub = %d", i+1))})
	}
	// Two fixes alike, each touching the hub and one file of its own.
	commit("fix timeout in dial", map[string]string{"app/hub.go": src("app", "var Hub = 10"), "app/dial.go": src("app", "var Dial = 1")})
	commit("fix timeout in pool", map[string]string{"app/hub.go": src("app", "var Hub = 11"), "app/pool.go": src("app", "var Pool = 1")})

	st := wstest.Open(t, root)
	counts, err := st.FileCommitCounts(context.Background(), []string{"app/hub.go", "app/dial.go", "app/none.go"})
	if err != nil || len(counts) != 2 || counts["app/hub.go"] != 11 || counts["app/dial.go"] != 2 {
		t.Fatalf("FileCommitCounts: %v %v, want hub 11, dial 2", counts, err)
	}
	got, err := pastCommitFiles(context.Background(), st, []string{"timeout"})
	if err != nil {
		t.Fatal(err)
	}
	// Undiscounted the hub would sum two credits to dial's one (0.5); its
	// 11 commits against dial's 2 divide that by (12/3)^power.
	want := math.Pow(12.0/3, hotFilePower) / 2
	if want <= 0.5 {
		t.Fatalf("hotFilePower %v discounts nothing", hotFilePower)
	}
	if got["app/hub.go"] != 1 || math.Abs(got["app/dial.go"]-want) > 1e-9 || math.Abs(got["app/pool.go"]-want) > 1e-9 {
		t.Errorf("history %v, want hub 1, dial and pool %.4f", got, want)
	}
}

// A web address in the message is no evidence, and a link to a file of the
// repository names that file (analyzer.WithoutLinks).
func TestLinksInTheMessage(t *testing.T) {
	st := wstest.Open(t, historyRepo(t, true))
	tests := []struct {
		name, text, top string
	}{
		{"image after the words", "the connection hangs when the server never answers\n![shot](https://user-images.githubusercontent.com/17900775/188590444-fafa374d-9b89.png)", "net/dial.go"},
		{"link to a file", "an idle connection is reused too often, see https://github.com/o/r/blob/0a1b2c3/cache/lru.go#L4", "cache/lru.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Query(context.Background(), st, Request{Text: tt.text, Limit: 5, MinRelevance: -1})
			if err != nil || len(resp.Files) == 0 {
				t.Fatalf("Query: %v %+v", err, resp)
			}
			if resp.Files[0].Path != tt.top {
				t.Errorf("top file %s, want %s", resp.Files[0].Path, tt.top)
			}
			if strings.Contains(tt.text, "/blob/") && !slices.ContainsFunc(resp.Triggers, func(tr analyzer.Trigger) bool {
				return tr.Type == analyzer.TriggerErrorLoc && tr.Query == tt.top && tr.Line == 4
			}) {
				t.Errorf("no place named by the link in %+v", resp.Triggers)
			}
			for term := range resp.Terms {
				if strings.Contains(term, "githubusercont") || strings.Contains(term, "fafa374d") || term == "png" || term == "0a1b2c3" {
					t.Errorf("the link's %q is a term of the query", term)
				}
			}
		})
	}
}

// Of two past fixes alike, the older credits its file less: half for every
// commitHalfLife of age.
func TestHistoryHalvesOlderCommits(t *testing.T) {
	root := t.TempDir()
	gitIn(t, root, "init", "-q")
	now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	commit := func(msg string, at time.Time, files map[string]string) {
		wstest.Write(t, root, files)
		gitIn(t, root, "add", "-A", "--", ".", ":!.ctxls")
		date := at.Format(time.RFC3339)
		gitEnv(t, root, []string{"GIT_COMMITTER_DATE=" + date, "GIT_AUTHOR_DATE=" + date}, "commit", "-q", "-m", msg)
	}
	src := func(v string) string { return "package app\n\nvar " + v + " = 0\n" }
	old := now.Add(-2 * commitHalfLife)
	commit("first version", old.Add(-time.Hour), map[string]string{"app/dial.go": src("Dial"), "app/pool.go": src("Pool")})
	commit("fix timeout in dial", old, map[string]string{"app/dial.go": src("Dial2")})
	commit("fix timeout in pool", now, map[string]string{"app/pool.go": src("Pool2")})

	got, err := pastCommitFiles(context.Background(), wstest.Open(t, root), []string{"timeout"})
	if err != nil {
		t.Fatal(err)
	}
	if got["app/pool.go"] != 1 || math.Abs(got["app/dial.go"]-0.25) > 1e-3 {
		t.Errorf("history %v, want pool 1, dial 0.25 (two half-lives older)", got)
	}
}
