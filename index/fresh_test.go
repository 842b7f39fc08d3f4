package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Behind starts a background run when HEAD moved since the last index run
// (a commit, a checkout, packed refs too) or many rendered files changed,
// and only one for the same HEAD.
func TestFreshBehindStartsOneRunPerHead(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	gitIn(t, root, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	gitIn(t, root, "add", ".")
	gitIn(t, root, "commit", "-qm", "one")
	first := gitIn(t, root, "rev-parse", "HEAD")
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Root: root, Config: config.Default()}
	if _, err := Run(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	if got := GitHead(root); got != "ref: refs/heads/main "+first {
		t.Fatalf("GitHead %q, want main at %s", got, first)
	}
	started := 0
	f := &Fresh{Store: st, Options: opts, Background: func() error { started++; return nil }}
	steps := []struct {
		name  string
		do    func()
		stale int
		want  int // runs started so far
	}{
		{"HEAD as indexed", func() {}, 0, 0},
		{"a few files changed", func() {}, ManyStale - 1, 0},
		{"many files changed", func() {}, ManyStale, 1},
		{"again within the grace period", func() {}, ManyStale, 1},
		{"a new commit", func() { gitIn(t, root, "commit", "-qm", "two", "--allow-empty") }, 0, 2},
		{"the same HEAD again", func() {}, 0, 2},
		{"a checkout of the first commit", func() { gitIn(t, root, "checkout", "-q", first) }, 0, 3},
		{"back on a packed branch", func() {
			gitIn(t, root, "checkout", "-q", "main")
			gitIn(t, root, "pack-refs", "--all")
		}, 0, 4},
	}
	for _, s := range steps {
		s.do()
		f.Behind(ctx, s.stale)
		if started != s.want {
			t.Fatalf("%s: %d runs started, want %d", s.name, started, s.want)
		}
	}
	if got, want := GitHead(root), "ref: refs/heads/main "+gitIn(t, root, "rev-parse", "main"); got != want {
		t.Errorf("GitHead with packed refs %q, want %q", got, want)
	}
	// A run records the HEAD: nothing more to catch up with.
	os.Remove(filepath.Join(workspace.Dir(root), "reindex-started"))
	if _, err := Run(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	f.Behind(ctx, 0)
	if started != 4 {
		t.Errorf("a run started after the index recorded HEAD %q", GitHead(root))
	}
	// While a run holds the index lock none starts.
	gitIn(t, root, "commit", "-qm", "three", "--allow-empty")
	unlock, err := lock(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.Behind(ctx, ManyStale)
	unlock()
	if started != 4 {
		t.Errorf("a run started while the index lock was held")
	}
}
