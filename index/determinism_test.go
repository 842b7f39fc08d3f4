package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
)

// realTree copies real files of this repository in several languages (Go,
// TypeScript, Python and the parser samples of every supported language)
// into a new root, and adds a kernel-shaped C tree where two headers answer
// the same #include at the same distance (include/linux and
// tools/include/linux), as the kernel's do.
func realTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, glob := range []string{"../store/*.go", "../extension/*.ts", "../scripts/scale/*.py", "../symbols/testdata/sample.*"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("glob %s: %v (%d files)", glob, err, len(paths))
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			write(t, root, strings.TrimPrefix(filepath.ToSlash(p), "../"), string(data))
		}
	}
	for i := range 8 {
		h := fmt.Sprintf("linux/h%d.h", i)
		body := fmt.Sprintf("static inline int helper%d(int x) { return x + %d; }\n", i, i)
		write(t, root, "include/"+h, body)
		write(t, root, "tools/include/"+h, body)
		write(t, root, fmt.Sprintf("drivers/d%d.c", i), fmt.Sprintf("#include <%s>\n\nint probe%d(void) { return helper%d(1); }\n", h, i, i))
	}
	return root
}

// The same tree gives the same index, reference for reference, whatever the
// number of parse workers and however often it is indexed cold (issue 25:
// two cold runs of a kernel resolved different numbers of references).
func TestColdIndexIsDeterministic(t *testing.T) {
	ctx := context.Background()
	root := realTree(t)
	var first []string
	for i, workers := range []int{1, 4, 2, 4} {
		if err := os.RemoveAll(workspace.Dir(root)); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(ctx, root, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Run(ctx, st, Options{Root: root, Config: config.Default(), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Resolved == 0 {
			t.Fatalf("run %d resolved no reference: %+v", i, sum)
		}
		dump := sortedDump(t, st)
		st.Close()
		if i == 0 {
			first = dump
			continue
		}
		if d := diffLines(dump, first); d != "" {
			t.Fatalf("run %d with %d workers differs from run 0 with 1 worker:\n%s", i, workers, d)
		}
	}
}
