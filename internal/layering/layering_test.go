package layering

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	module = "github.com/ctxls/ctxls"
	store  = module + "/store"
	driver = "github.com/mattn/go-sqlite3"
)

// devTools are the developer scripts that read an index file directly
// (read-only, by its path) to measure it; they are not part of the
// program. Any other package that imports the driver breaks the layering.
var devTools = []string{
	module + "/scripts/calledges",
	module + "/scripts/dumpindex",
	module + "/scripts/gate/colstats",
	module + "/scripts/gate/declfiles",
}

// stdlibOnly are the packages that must link only the standard library:
// the thin client people and hooks run (static, no cgo: decision 0086) and
// what it shares with the full program.
var stdlibOnly = []string{
	module + "/cmd/ctxls",
	module + "/hookcall",
	module + "/internal/workspace",
	module + "/internal/wspath",
}

// slowToStart are standard packages the thin client must not link: their
// initialisation runs before main on every hook call. crypto/* brings Go's
// FIPS 140 module, regexp a pattern compiled at start; without them a
// call's CPU fell 7 % (docs/PERFORMANCE.md, stop 26).
var slowToStart = []string{"crypto", "regexp"}

// sessionOwned are the packages of the editor's state, which the language
// server reaches only through package session (decision 0112).
var sessionOwned = []string{
	store,
	module + "/index",
	module + "/overlay",
	module + "/memory",
	module + "/internal/treewatch",
}

// pkg is what the test reads of `go list -json`.
type pkg struct {
	ImportPath   string
	Dir          string
	Standard     bool
	GoFiles      []string
	CgoFiles     []string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
	Error        *struct{ Err string }
	DepsErrors   []*struct{ Err string }
}

// listPackages runs go list over the whole module, with the build tag of
// every go command of the Makefile.
func listPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the go tool is needed to check the layering: %v", err)
		}
		t.Skipf("no go tool: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-test=false", "-tags", "sqlite_fts5", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(pkg)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	if pkgs[store] == nil || pkgs[module+"/cmd/ctxls"] == nil {
		t.Fatalf("go list did not list the module (%d packages)", len(pkgs))
	}
	return pkgs
}

func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)

	t.Run("packages load without import cycles", func(t *testing.T) {
		for _, p := range pkgs {
			if p.Error != nil {
				t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
			}
			for _, e := range p.DepsErrors {
				t.Errorf("%s: %s", p.ImportPath, e.Err)
			}
		}
	})

	t.Run("only store imports the SQLite driver", func(t *testing.T) {
		for _, p := range pkgs {
			// store/ftsrank extends the driver's SQLite in C: it is store's.
			if !ours(p.ImportPath) || p.ImportPath == store || strings.HasPrefix(p.ImportPath, store+"/") ||
				slices.Contains(devTools, p.ImportPath) {
				continue
			}
			for _, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
				if slices.Contains(imports, driver) {
					t.Errorf("%s imports %s: SQL belongs in package store, behind named methods", p.ImportPath, driver)
				}
			}
		}
	})

	t.Run("nothing outside store calls DB()", func(t *testing.T) {
		for _, p := range pkgs {
			if !ours(p.ImportPath) || p.ImportPath == store {
				continue
			}
			for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
				for _, pos := range dbCalls(t, filepath.Join(p.Dir, name)) {
					t.Errorf("%s: .DB() outside package store: add a store method", pos)
				}
			}
		}
	})

	t.Run("retrieval does not depend on index", func(t *testing.T) {
		r := pkgs[module+"/retrieval"]
		if r == nil {
			t.Fatal("retrieval not listed")
		}
		if slices.Contains(r.Deps, module+"/index") {
			t.Errorf("retrieval depends on index (imports %v): read what the indexer decided from the store", r.Imports)
		}
	})

	t.Run("the editor's state is the session's, not the language server's", func(t *testing.T) {
		srv := pkgs[module+"/server"]
		if srv == nil {
			t.Fatal("server not listed")
		}
		for _, imp := range srv.Imports {
			if slices.Contains(sessionOwned, imp) {
				t.Errorf("server imports %s: the index, documents, watcher and memories are package session's; make one call into it", imp)
			}
		}
	})

	t.Run("the thin client and its packages link only the standard library", func(t *testing.T) {
		for _, path := range stdlibOnly {
			p := pkgs[path]
			if p == nil {
				t.Errorf("%s not listed", path)
				continue
			}
			if len(p.CgoFiles) > 0 {
				t.Errorf("%s uses cgo", path)
			}
			for _, d := range p.Deps {
				dep := pkgs[d]
				switch {
				case dep == nil:
					t.Errorf("%s: dependency %s not listed", path, d)
				case dep.Standard:
				case ours(d) && slices.Contains(stdlibOnly, d):
				default:
					t.Errorf("%s depends on %s, which is not the standard library", path, d)
				}
			}
		}
	})

	t.Run("the thin client links nothing slow to start", func(t *testing.T) {
		for _, d := range pkgs[module+"/cmd/ctxls"].Deps {
			for _, slow := range slowToStart {
				if d == slow || strings.HasPrefix(d, slow+"/") {
					t.Errorf("the thin client links %s", d)
				}
			}
		}
	})
}

// dbCalls returns the positions of calls x.DB() in a Go file.
func dbCalls(t *testing.T, file string) []token.Position {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	var out []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "DB" {
			out = append(out, fset.Position(call.Pos()))
		}
		return true
	})
	return out
}
