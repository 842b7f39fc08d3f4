package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/store"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (path → content) and commits them with msg.
func commit(t *testing.T, root, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, root, "add", "-A", "--", ".", ":!.ctxls")
	gitIn(t, root, "commit", "-q", "-m", msg)
	return gitIn(t, root, "rev-parse", "HEAD")
}

// headOf stands in for index.GitHead (index imports this package): the
// commit HEAD names, "" when there is none.
func headOf(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	gitIn(t, root, "init", "-q")
	commit(t, root, "add the dialer", map[string]string{"net/dial.go": "package net\n", "README.md": "x\n"})
	commit(t, root, "fix timeout handling in the dialer", map[string]string{"net/dial.go": "package net\n// v2\n"})
	commit(t, root, "parse config files strictly", map[string]string{"config/parse.go": "package config\n", "config/parse_test.go": "package config\n"})
	return root
}

func open(t *testing.T, root string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func update(t *testing.T, st *store.Store, root string) Summary {
	t.Helper()
	sum, err := Update(context.Background(), st, root, headOf(root))
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return sum
}

// files returns the stored files of the commit with hash h, "" for none.
func files(t *testing.T, st *store.Store, h string) string {
	t.Helper()
	rows, err := st.DB().Query(`SELECT cf.path FROM commit_files cf JOIN commits c ON c.id = cf.commit_id WHERE c.hash = ? ORDER BY cf.path`, h)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		rows.Scan(&p)
		out = append(out, p)
	}
	return strings.Join(out, " ")
}

func note(t *testing.T, st *store.Store) string {
	t.Helper()
	n, err := st.Meta(context.Background(), MetaNote)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUpdateFollowsHead(t *testing.T) {
	root := newRepo(t)
	st := open(t, root)
	if line, err := Status(context.Background(), st); err != nil || !strings.HasPrefix(line, "not read yet") {
		t.Errorf("status before: %q %v", line, err)
	}
	if sum := update(t, st, root); sum.Added != 3 || sum.Removed != 0 || sum.Note != "" {
		t.Fatalf("cold update: %+v", sum)
	}
	if line, err := Status(context.Background(), st); err != nil || line != "3 commits (0 mass changes without their files)" {
		t.Errorf("status: %q %v", line, err)
	}
	if sum := update(t, st, root); !sum.Skipped {
		t.Errorf("same HEAD read again: %+v", sum)
	}
	fix := gitIn(t, root, "rev-parse", "HEAD~1")
	if got := files(t, st, fix); got != "net/dial.go" {
		t.Errorf("files of the fix = %q", got)
	}
	hits, err := st.SimilarCommits(context.Background(), analyzer.Terms("timeout dialer"), 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("SimilarCommits: %v %v", hits, err)
	}
	hashes, _ := st.CommitHashes(context.Background())
	if hits[0].ID != hashes[fix] {
		t.Errorf("best commit for 'timeout dialer' is %d, want the fix %d", hits[0].ID, hashes[fix])
	}

	// One new commit: only it is read.
	newest := commit(t, root, "retry the dialer", map[string]string{"net/retry.go": "package net\n"})
	if sum := update(t, st, root); sum.Added != 1 || sum.Removed != 0 {
		t.Errorf("after one commit: %+v", sum)
	}
	// Back to an older commit (detached): nothing from its future stays.
	gitIn(t, root, "checkout", "-q", fix)
	if sum := update(t, st, root); sum.Added != 0 || sum.Removed != 2 {
		t.Errorf("after checkout of an older commit: %+v", sum)
	}
	hashes, _ = st.CommitHashes(context.Background())
	if _, ok := hashes[newest]; ok || len(hashes) != 2 {
		t.Errorf("after checkout: %d commits stored, newest kept %v", len(hashes), ok)
	}
	gitIn(t, root, "checkout", "-q", "main")
	if sum := update(t, st, root); sum.Added != 2 {
		t.Errorf("back on main: %+v", sum)
	}
}

func TestMassChangesAndOddMessages(t *testing.T) {
	root := newRepo(t)
	many := map[string]string{}
	for i := range MassChange + 1 {
		many[fmt.Sprintf("gen/f%02d.go", i)] = "package gen\n"
	}
	mass := commit(t, root, "regenerate everything", many)
	// A message that is not UTF-8 (latin-1 bytes, no encoding header).
	os.WriteFile(filepath.Join(root, "odd.go"), []byte("package odd\n"), 0o644)
	gitIn(t, root, "add", "odd.go")
	gitIn(t, root, "-c", "i18n.commitEncoding=", "commit", "-q", "-m", "caf\xe9 parser \x01 breaks")
	odd := gitIn(t, root, "rev-parse", "HEAD")
	st := open(t, root)
	if sum := update(t, st, root); sum.Note != "" || sum.Added < 4 {
		t.Fatalf("update: %+v", sum)
	}
	var skip string
	var n int
	if err := st.DB().QueryRow(`SELECT skip, nfiles FROM commits WHERE hash = ?`, mass).Scan(&skip, &n); err != nil || skip != "mass" || n != MassChange+1 {
		t.Errorf("mass commit: skip %q, %d files, %v", skip, n, err)
	}
	if got := files(t, st, mass); got != "" {
		t.Errorf("mass commit's files recorded: %q", got)
	}
	// A message holding \x01 and bytes that are not UTF-8 is read whole.
	hashes, _ := st.CommitHashes(context.Background())
	if _, ok := hashes[odd]; !ok || files(t, st, odd) != "odd.go" {
		t.Errorf("odd commit stored %v, files %q", ok, files(t, st, odd))
	}
	if hits, err := st.SimilarCommits(context.Background(), analyzer.Terms("breaks"), 1); err != nil || len(hits) != 1 || hits[0].ID != hashes[odd] {
		t.Errorf("odd commit's message not searchable: %v %v", hits, err)
	}
	if _, ok := hashes[mass]; !ok {
		t.Error("mass commit missing")
	}
}

func TestAbsentHistory(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		make func(t *testing.T) string
		note string
	}{
		{"no .git", func(t *testing.T) string { return t.TempDir() }, "not a git repository"},
		{"shallow clone", func(t *testing.T) string {
			src := newRepo(t)
			dst := filepath.Join(t.TempDir(), "c")
			gitIn(t, t.TempDir(), "clone", "-q", "--depth", "1", "file://"+src, dst)
			return dst
		}, "shallow clone"},
		{"corrupt .git", func(t *testing.T) string {
			root := newRepo(t)
			if err := os.RemoveAll(filepath.Join(root, ".git", "objects")); err != nil {
				t.Fatal(err)
			}
			return root
		}, "git history unreadable"},
		{"empty repository", func(t *testing.T) string {
			root := t.TempDir()
			gitIn(t, root, "init", "-q")
			return root
		}, "git history unreadable"},
		{".git file (worktree)", func(t *testing.T) string {
			src := newRepo(t)
			wt := filepath.Join(t.TempDir(), "wt")
			gitIn(t, src, "worktree", "add", "-q", wt)
			return wt
		}, ".git is not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.make(t)
			st := open(t, root)
			sum, err := Update(ctx, st, root, headOf(root))
			if err != nil {
				t.Fatalf("Update failed: %v", err)
			}
			if !strings.HasPrefix(sum.Note, tc.note) || !strings.HasPrefix(note(t, st), tc.note) {
				t.Errorf("note %q (stored %q), want %q…", sum.Note, note(t, st), tc.note)
			}
			if n, _, err := st.HistoryCounts(ctx); err != nil || n != 0 {
				t.Errorf("%d commits stored, %v", n, err)
			}
			if line, err := Status(ctx, st); err != nil || !strings.HasPrefix(line, "none: "+tc.note) || strings.Contains(line, "\n") {
				t.Errorf("status %q %v", line, err)
			}
		})
	}
}

// A history that became unreadable is emptied, not kept stale.
func TestHistoryClearedWhenGitGoes(t *testing.T) {
	root := newRepo(t)
	st := open(t, root)
	update(t, st, root)
	if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	if sum := update(t, st, root); sum.Note != "not a git repository" {
		t.Errorf("note %q", sum.Note)
	}
	if n, _, _ := st.HistoryCounts(context.Background()); n != 0 {
		t.Errorf("%d commits kept", n)
	}
}

func TestParseRecord(t *testing.T) {
	h := strings.Repeat("a", 40)
	for _, tc := range []struct {
		rec   string
		ok    bool
		files int
	}{
		{h + " 1700000000\nfix the parser\n\x00\nparse.go\x00lex.go\x00", true, 2},
		{h + " 1700000000\nmerge branch\n\x00", true, 0},
		{"not a hash 1\nmsg\x00", false, 0},
		{h + " soon\nmsg\x00", false, 0},
		{h, false, 0},
	} {
		c, ok := parseRecord([]byte(tc.rec), analyzer.New())
		if ok != tc.ok || len(c.Files) != tc.files {
			t.Errorf("parseRecord(%q) = %+v, %v", tc.rec, c, ok)
		}
	}
}

// A history updated checkout by checkout lists commits of one second in
// the order a history read at once does (git's): ranking's recency numbers
// them in that order.
func TestIncrementalHistoryKeepsGitOrder(t *testing.T) {
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z") // a rebased series: one second
	root := newRepo(t)
	commit(t, root, "second series commit", map[string]string{"net/dial.go": "package net\n// v3\n"})
	commit(t, root, "third series commit", map[string]string{"config/parse.go": "package config\n// v2\n"})
	cold := t.TempDir()
	gitIn(t, cold, "clone", "-q", root, ".")

	gitIn(t, root, "checkout", "-q", "--detach", "HEAD~2")
	st := open(t, root)
	update(t, st, root)
	gitIn(t, root, "checkout", "-q", "main")
	if sum := update(t, st, root); sum.Added != 2 {
		t.Fatalf("incremental update added %d commits, want 2", sum.Added)
	}
	coldSt := open(t, cold)
	update(t, coldSt, cold)

	order := func(st *store.Store) []string {
		rows, err := st.DB().Query(`SELECT hash FROM commits ORDER BY at DESC, id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				t.Fatal(err)
			}
			out = append(out, h)
		}
		return out
	}
	want := strings.Fields(gitIn(t, root, "rev-list", "HEAD"))
	if got := order(coldSt); !slices.Equal(got, want) {
		t.Errorf("cold history in order %v, git lists %v", got, want)
	}
	if got := order(st); !slices.Equal(got, want) {
		t.Errorf("incremental history in order %v, git lists %v", got, want)
	}
}
