package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// memctl runs 'ctxls memory ...' in root with HOME set to home.
func memctl(t *testing.T, root, home, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return memctlEnv(t, root, home, nil, stdin, args...)
}

func memctlEnv(t *testing.T, root, home string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := os.Getenv("CTXLS_BIN")
	if bin == "" {
		t.Skip("CTXLS_BIN not set (run through make test)")
	}
	cmd := exec.Command(bin, append([]string{"memory"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "HOME="+home, "EDITOR=false"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Run()
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestMemoryCLI(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, code := memctl(t, root, home, stdin, args...)
		if code != 0 {
			t.Fatalf("memory %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("", "write", "--type", "decision", "--title", "Use OAuth2 with PKCE", "--tags", "auth,oauth2", "--content", "PKCE for public clients.")
	// A whole memory file on stdin.
	run("---\nid: learning-token-refresh\ntype: learning\ntitle: Refresh tokens before expiry\ntags: [auth]\n---\nRefresh at 80% of the lifetime.\n", "write", "--stdin")
	// Piped content with flags.
	run("Local notes.\n", "write", "--type", "breadcrumb", "--title", "Where the keys live", "--tags", "auth", "--scope", "local")
	// $EDITOR: a script standing in for the editor writes the content.
	editor := filepath.Join(t.TempDir(), "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\necho 'Written in the editor.' > \"$1\"\n"), 0o755)
	if _, errOut, code := memctlEnv(t, root, home, []string{"EDITOR=" + editor}, "", "write", "--edit", "--type", "learning", "--title", "Edited", "--tags", "x", "--scope", "local"); code != 0 {
		t.Fatalf("write --edit: %d %s", code, errOut)
	}
	if out := run("", "show", "learning-edited"); !strings.Contains(out, "Written in the editor.") {
		t.Errorf("editor content: %s", out)
	}
	run("", "delete", "learning-edited")
	var listed struct {
		Memories []struct {
			Scope, Slug, Type string
		} `json:"memories"`
	}
	if err := json.Unmarshal([]byte(run("", "list", "--json")), &listed); err != nil || len(listed.Memories) != 3 {
		t.Fatalf("list: %v %+v", err, listed)
	}
	run("", "link", "decision-use-oauth2-with-pkce", "learning-token-refresh", "--label", "implements")
	if g := run("", "graph"); !strings.Contains(g, "learning-token-refresh -[implemented-by]-> decision-use-oauth2-with-pkce") {
		t.Errorf("graph: %s", g)
	}
	var found struct {
		Results []struct {
			Slug      string
			Relevance float64
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(run("", "search", "--json", "refresh token expiry")), &found); err != nil || len(found.Results) == 0 || found.Results[0].Slug != "learning-token-refresh" {
		t.Errorf("search: %v %+v", err, found)
	}
	if out := run("", "search", "--type", "breadcrumb", "keys"); !strings.Contains(out, "breadcrumb-where-the-keys-live") {
		t.Errorf("search --type: %s", out)
	}
	run("", "update", "learning-token-refresh", "--tags", "auth,tokens")
	if out := run("", "show", "learning-token-refresh"); !strings.Contains(out, "- tokens") || !strings.Contains(out, "decision-use-oauth2-with-pkce") {
		t.Errorf("show after update and link: %s", out)
	}
	if _, _, code := memctl(t, root, home, "", "health"); code != 0 {
		out, _, _ := memctl(t, root, home, "", "health")
		t.Errorf("health of a clean store: exit %d\n%s", code, out)
	}
	run("", "delete", "decision-use-oauth2-with-pkce")
	if out := run("", "show", "--json", "learning-token-refresh"); strings.Contains(out, "decision-use-oauth2-with-pkce") {
		t.Errorf("link survived delete: %s", out)
	}

	// Bad input: a clear error, the right exit code, nothing written.
	before := tree(t, root)
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", []string{"write", "--type", "gotcha", "--title", "T", "--tags", "x", "--slug", "../evil", "--content", "c"}, 2, "invalid memory: slug"},
		{"", []string{"write", "--type", "gotcha", "--title", "T", "--tags", "x", "--slug", "Bad Slug", "--content", "c"}, 2, "slug"},
		{"---\ntype: [gotcha\n---\nbody\n", []string{"write", "--stdin"}, 1, "invalid YAML"},
		{"---\nid: gotcha-future\ntype: gotcha\ntitle: F\ntags: [x]\ncreated: \"2999-01-01T00:00:00Z\"\n---\nbody\n", []string{"write", "--stdin"}, 1, "in the future"},
		{"", []string{"write", "--type", "gotcha", "--title", "T", "--tags", "x", "--content", "c", "--scope", "../x"}, 2, "invalid scope"},
		{"", []string{"write", "--type", "nonsense", "--title", "T", "--tags", "x", "--content", "c"}, 2, "invalid memory type"},
		{"", []string{"show", "../../etc/passwd"}, 2, "invalid slug"}, // a bad argument: usage
		{"", []string{"link", "learning-token-refresh", "learning-token-refresh"}, 1, "itself"},
	} {
		_, errOut, code := memctl(t, root, home, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("memory %v: exit %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	after := tree(t, root)
	for p, content := range after {
		if before[p] != content && !strings.HasPrefix(p, ".ctxls") {
			t.Errorf("bad input changed %s", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("bad input created files: %d before, %d after", len(before), len(after))
	}
}

// tree maps every file under root (relative path) to its content.
func tree(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(root, p)
			data, _ := os.ReadFile(p)
			out[rel] = string(data)
		}
		return nil
	})
	return out
}

func TestQualityWhy(t *testing.T) {
	for _, c := range []struct {
		q    map[string]int
		want string
	}{
		{nil, ""},
		{map[string]int{"a": 100}, ""},
		{map[string]int{"a": 100, "b": 55}, " (the mean of each memory's score; below 100: b 55)"},
		{map[string]int{"a": 70, "b": 55, "c": 70, "d": 90, "e": 100}, " (the mean of each memory's score; below 100: b 55, a 70, c 70 and 1 more)"},
	} {
		if got := qualityWhy(c.q); got != c.want {
			t.Errorf("qualityWhy(%v) = %q, want %q", c.q, got, c.want)
		}
	}
}
