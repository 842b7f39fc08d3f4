package index

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/indexdump"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wspath"
)

// secret is in every file outside the workspace; no byte of the index may
// hold it. Lower case, as the full-text index stores its tokens.
const secret = "zqxfakesecret"

// clonedWithLinks makes what a cloned repository with hostile symbolic
// links looks like: a repository committed with links to an ~/.ssh, an
// /etc and a directory of credentials outside it (fakes under the test's
// own directory, each holding secret), and to a file and a directory of
// its own, then cloned, so that git checks the links out. It returns the
// clone's real path.
func clonedWithLinks(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "outside")
	for p, c := range map[string]string{
		"home/.ssh/id_ed25519":  "-----BEGIN OPENSSH PRIVATE KEY----- " + secret + "\n",
		"home/.ssh/config.py":   "IdentityFile = '" + secret + "'\n",
		"etc/passwd":            "root:x:0:0:" + secret + ":/root:/bin/sh\n",
		"etc/app/settings.go":   "package app\n\nconst Token = \"" + secret + "\"\n",
		"outdir/creds.py":       "def load_credentials():\n    return {'AWS_SECRET_ACCESS_KEY': '" + secret + "'}\n",
		"outdir/nested/more.ts": "export const key = '" + secret + "'\n",
	} {
		write(t, out, p, c)
	}
	src := filepath.Join(base, "src")
	write(t, src, "main.go", "package main\n\nfunc main() { util.UtilFunc() }\n")
	write(t, src, "real/util.go", "package util\n\n// UtilFunc is indexed once, at its own path.\nfunc UtilFunc() {}\n")
	for name, target := range map[string]string{
		"passwd.go": filepath.Join(out, "etc", "passwd"), // a file outside, named as source
		"etclink":   filepath.Join(out, "etc"),
		"sshlink":   filepath.Join(out, "home", ".ssh"),
		"outdir":    "../outside/outdir", // relative, leaving the clone
		"creds.py":  filepath.Join(out, "outdir", "creds.py"),
		"alias.go":  "real/util.go",
		"reallink":  "real",
	} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	git(src, "init", "-q")
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "links")
	git(base, "clone", "-q", src, "ws")
	root, err := wspath.Root(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "etclink")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the clone did not check out links: %v %v", fi, err)
	}
	return root
}

func TestIndexStaysInsideWorkspace(t *testing.T) {
	root := clonedWithLinks(t)
	ctx := context.Background()
	sum, st := run(t, root, config.Default())

	wantSkipped := map[string]int{SkipLinkOutside: 5, SkipLinkInside: 2}
	for reason, n := range wantSkipped {
		if sum.Skipped[reason] != n {
			t.Errorf("run skipped %d as %q, want %d (%v)", sum.Skipped[reason], reason, n, sum.Skipped)
		}
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for reason, n := range wantSkipped {
		if stats.SkipReasons[reason] != n {
			t.Errorf("stats show %d %q, want %d (%v)", stats.SkipReasons[reason], reason, n, stats.SkipReasons)
		}
	}
	files, err := st.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p, f := range files {
		switch {
		case strings.HasPrefix(p, "etclink/"), strings.HasPrefix(p, "sshlink/"), strings.HasPrefix(p, "outdir/"), strings.HasPrefix(p, "reallink/"):
			t.Errorf("indexed %s through a link", p)
		case p == "passwd.go" && (f.Skip != SkipLinkOutside || f.Hash != "symlink"):
			t.Errorf("passwd.go = %+v", f)
		case p == "alias.go" && f.Skip != SkipLinkInside:
			t.Errorf("alias.go = %+v", f)
		}
	}
	// The inside file is indexed once, at its own path.
	ents, err := st.EntitiesByName(ctx, "UtilFunc", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Path != "real/util.go" {
		t.Errorf("UtilFunc entities = %+v, want one in real/util.go", ents)
	}
	// Given by a path that leads outside, a file or an editor's buffer is
	// not indexed; by a link inside, the file at its own path is.
	usum, err := Update(ctx, st, Options{Root: root, Config: config.Default()}, []Change{
		{Path: "passwd.go"},
		{Path: "etclink/app/settings.go"},
		{Path: filepath.Join(root, "outdir", "creds.py")},
		{Path: "creds.py", Content: []byte("def load_credentials(): return '" + secret + "'\n")},
		{Path: "outdir/new.py", Content: []byte("x = '" + secret + "'\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if usum.Skipped[SkipLinkOutside] != 5 || usum.Parsed != 0 {
		t.Errorf("Update = %+v, want 5 skipped as outside", usum)
	}
	write(t, root, "real/util.go", "package util\n\nfunc UtilFunc() {}\n\nfunc Added() {}\n")
	if usum, err = Update(ctx, st, Options{Root: root, Config: config.Default()}, []Change{{Path: "alias.go"}}); err != nil || usum.Parsed != 1 {
		t.Errorf("Update(alias.go) = %+v, %v; want real/util.go parsed", usum, err)
	}
	if ents, _ := st.EntitiesByName(ctx, "Added", 10); len(ents) != 1 || ents[0].Path != "real/util.go" {
		t.Errorf("Added entities = %+v, want one in real/util.go", ents)
	}
	// A second run finds the links unchanged.
	sum2, err := Run(ctx, st, Options{Root: root, Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Parsed != 0 || len(sum2.Skipped) != 0 || sum2.Files != sum.Files {
		t.Errorf("second run = %+v, want nothing parsed or skipped, %d files", sum2, sum.Files)
	}

	lines, err := indexdump.Lines(ctx, st.DB())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if strings.Contains(strings.ToLower(l), secret) || strings.Contains(l, "load_credentials") {
			t.Errorf("index holds %q", l)
		}
	}
	// Every byte of the database, its WAL included: no table the dump
	// leaves out holds the secret either.
	for _, name := range []string{"index.db", "index.db-wal", "state.db", "state.db-wal"} {
		data, err := os.ReadFile(filepath.Join(workspace.Dir(root), name))
		if err != nil {
			continue
		}
		if bytes.Contains(bytes.ToLower(data), []byte(secret)) {
			t.Errorf("%s holds the secret", name)
		}
	}
}
