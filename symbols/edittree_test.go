package symbols

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeDump appends every node of the tree under c, with its byte range
// and points, to b: two parses of the same text agree on it exactly when
// they are the same tree.
func treeDump(b []byte, c *sitter.TreeCursor) []byte {
	for {
		n := c.CurrentNode()
		sp, ep := n.StartPoint(), n.EndPoint()
		b = append(b, n.Type()...)
		for _, v := range []uint32{n.StartByte(), n.EndByte(), sp.Row, sp.Column, ep.Row, ep.Column} {
			b = strconv.AppendUint(append(b, ' '), uint64(v), 10)
		}
		b = append(b, '\n')
		if c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return b
			}
		}
	}
}

// reparse parses old, edits the tree into new with EditTree and parses new
// from it. It returns the tree's dump and that of a parse of new from
// scratch.
func reparse(t *testing.T, path string, old, new []byte, edit sitter.EditInput) (got, want string) {
	t.Helper()
	ctx := context.Background()
	lang, ok := LanguageFor(path)
	if !ok {
		t.Fatalf("no language for %s", path)
	}
	x := NewExtractor()
	defer x.Close()
	tree, err := x.parse(ctx, lang, nil, old)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	EditTree(tree, edit)
	inc, err := x.parse(ctx, lang, tree, new)
	if err != nil {
		t.Fatal(err)
	}
	defer inc.Close()
	fresh, err := x.parse(ctx, lang, nil, new)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	gc, wc := sitter.NewTreeCursor(inc.RootNode()), sitter.NewTreeCursor(fresh.RootNode())
	defer gc.Close()
	defer wc.Close()
	return string(treeDump(nil, gc)), string(treeDump(nil, wc))
}

func TestEditTree(t *testing.T) {
	src := "package p\n\nfunc isTest(base string) bool {\n\treturn strings.HasSuffix(base, \"_test.go\") || strings.HasPrefix(base, \"test_\") ||\n\t\tstrings.Contains(base, \".test.\")\n}\n\nfunc after() {}\n"
	for _, tc := range []struct{ name, old, repl string }{
		{"characters typed in a line", `"_test.go"`, `"_spec.go"`},
		{"lines replaced by as many lines", "\treturn strings.HasSuffix(base, \"_test.go\") || strings.HasPrefix(base, \"test_\") ||\n\t\tstrings.Contains(base, \".test.\")", "\tok := strings.HasSuffix(base, \"_test.go\")\n\treturn ok"},
		{"lines added", "\treturn strings.HasSuffix(base, \"_test.go\") || strings.HasPrefix(base, \"test_\") ||", "\t// Go builds only _test.go files as tests.\n\tgoFile := strings.HasSuffix(base, \".go\")\n\treturn strings.HasSuffix(base, \"_test.go\") || (strings.HasPrefix(base, \"test_\") && !goFile) ||"},
		{"a line removed", "\t\tstrings.Contains(base, \".test.\")\n", ""},
		{"a line typed before the function", "func isTest", "// isTest reports a test.\nfunc isTest"},
		{"the last line, no newline after it", "func after() {}\n", "func after() { return }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, edit := editAt(t, []byte(src), "package p", tc.old, tc.repl)
			got, want := reparse(t, "a.go", []byte(src), out, edit)
			if got != want {
				t.Errorf("the parse after the edit differs from a parse from scratch:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// Every change to a parsed file in this repository's newest commits, parsed
// as the index's resident worker parses a saved file (EditBetween, EditTree,
// then incrementally), gives the tree a parse from scratch gives, node for
// node and point for point. With the binding's Tree.Edit, 41 of 1,091 such
// changes did not.
func TestIncrementalParseOfARealHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the files of 40 commits twice")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("the tests do not run in a git clone of the project (%v): no history to parse", err)
	}
	repo := strings.TrimSpace(string(top))
	git := func(args ...string) ([]byte, error) {
		return exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
	}
	log, err := git("log", "--first-parent", "--format=%H", "-n", "40")
	if err != nil {
		t.Fatal(err)
	}
	changes := 0
	for _, c := range strings.Fields(string(log)) {
		names, err := git("diff-tree", "-r", "--name-only", "--no-commit-id", "--diff-filter=M", c+"^", c)
		if err != nil {
			continue // the root commit
		}
		for _, p := range strings.Fields(string(names)) {
			if _, ok := LanguageFor(p); !ok {
				continue
			}
			old, err1 := git("show", c+"^:"+p)
			new, err2 := git("show", c+":"+p)
			if err1 != nil || err2 != nil || len(old) > 1<<20 || bytes.Equal(old, new) {
				continue
			}
			edit, _ := EditBetween(old, new)
			got, want := reparse(t, p, old, new, edit)
			changes++
			if got != want {
				t.Errorf("%.8s %s: the incremental parse differs from a parse from scratch", c, p)
			}
		}
	}
	t.Logf("%d file changes", changes)
	if changes < 25 {
		t.Errorf("%d file changes: the test checks little", changes)
	}
}
