package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// typescriptModules returns the node_modules holding the TypeScript compiler
// (the repository's, which .ci/run installs; CTXLS_NODE_MODULES overrides),
// skipping the test when node or the compiler is missing.
func typescriptModules(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed (.ci/run installs Node and the repository's npm packages)")
	}
	dir := os.Getenv("CTXLS_NODE_MODULES")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "node_modules"))
	}
	if _, err := os.Stat(filepath.Join(dir, "typescript", "package.json")); err != nil {
		t.Skipf("TypeScript compiler not installed in %s (make test installs the repository's npm packages first)", dir)
	}
	return dir
}

// TestTypeScriptEdgesAgreeWithCompiler resolves the calls of a small
// TypeScript/CommonJS workspace and asks the TypeScript compiler's
// LanguageService (scripts/calledges/tsoracle.mjs) where each called name
// is defined: every edge ctxls resolves must point where the compiler
// does, and every call the compiler resolves to a function, method or
// class of the workspace must be resolved.
func TestTypeScriptEdgesAgreeWithCompiler(t *testing.T) {
	modules := typescriptModules(t)
	root := testWorkspace(t, tsScopeFiles)
	_, st := run(t, root, config.Default())
	rows, err := st.DB().Query(`SELECT sf.path, r.line, r.name, IFNULL(df.path, ''), IFNULL(d.name, ''),
			IFNULL(d.start_line, 0), IFNULL(d.end_line, 0)
		FROM refs r JOIN entities s ON s.id = r.src_id JOIN files sf ON sf.id = s.file_id
		LEFT JOIN entities d ON d.id = r.dst_id LEFT JOIN files df ON df.id = d.file_id
		WHERE r.kind = 1 ORDER BY sf.path, r.line, r.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	type edge struct {
		path, name, dstPath, dstName string
		line, col, start, end        int
	}
	var edges []edge
	seen := map[string]int{}
	for rows.Next() {
		var e edge
		if err := rows.Scan(&e.path, &e.line, &e.name, &e.dstPath, &e.dstName, &e.start, &e.end); err != nil {
			t.Fatal(err)
		}
		// The column of the k-th reference of a name on a line is that of
		// the name's k-th occurrence there.
		src, err := os.ReadFile(filepath.Join(root, e.path))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Split(string(src), "\n")[e.line-1]
		key := fmt.Sprint(e.path, e.line, e.name)
		at := regexp.MustCompile(`(^|[^\w$])`+regexp.QuoteMeta(e.name)+`($|[^\w$])`).FindAllStringSubmatchIndex(text, -1)
		if seen[key] >= len(at) {
			t.Fatalf("%s:%d: no occurrence %d of %s", e.path, e.line, seen[key], e.name)
		}
		e.col = at[seen[key]][3]
		seen[key]++
		edges = append(edges, e)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var questions bytes.Buffer
	for _, e := range edges {
		fmt.Fprintf(&questions, `{"path": %q, "line": %d, "col": %d}`+"\n", e.path, e.line, e.col)
	}
	cmd := exec.Command("node", filepath.Join("..", "scripts", "calledges", "tsoracle.mjs"), root, modules)
	cmd.Stdin = &questions
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tsoracle: %v\n%s", err, stderr.String())
	}
	answers := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(answers) != len(edges) {
		t.Fatalf("%d answers for %d questions", len(answers), len(edges))
	}
	resolved := 0
	for i, e := range edges {
		var a *struct {
			Path, Name, Other string
			Line              int
		}
		if err := json.Unmarshal([]byte(answers[i]), &a); err != nil {
			t.Fatalf("answer %q: %v", answers[i], err)
		}
		inWorkspace := a != nil && a.Path != "" && a.Other == ""
		agree := inWorkspace && a.Path == e.dstPath && a.Name == e.dstName && e.start <= a.Line && a.Line <= e.end
		switch {
		case e.dstPath != "" && !agree:
			t.Errorf("%s:%d %s resolved to %s:%d %s, the compiler says %s", e.path, e.line, e.name, e.dstPath, e.start, e.dstName, answers[i])
		case e.dstPath == "" && inWorkspace:
			t.Errorf("%s:%d %s unresolved, the compiler says %s", e.path, e.line, e.name, answers[i])
		}
		if e.dstPath != "" {
			resolved++
		}
	}
	if resolved < 10 {
		t.Errorf("%d edges resolved: the workspace no longer tests much", resolved)
	}
}
