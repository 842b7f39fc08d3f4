// Command calledges compares the call edges a ctxls index resolved with
// the callees go/types finds, for a few packages of a Go tree indexed at
// the tree's root (normally a copy of GOROOT/src):
//
//	ctxls index --root /tmp/src            # a copy of $(go env GOROOT)/src
//	go run -tags sqlite_fts5 ./scripts/calledges -db /tmp/src/.ctxls/index.db net/http strings
//
// An edge is (caller, callee), both named by directory and qualified name
// (net/http http.Server.Serve), so build-tag variants of one function are
// one callee. go/types' side is every call in a function declaration of
// the package's files for this platform whose callee is a concrete
// function or method in the tree: calls of builtins, conversions, function
// variables and interface methods have no definition to point at.
// Callees in files the index skipped (generated code) are left out of both:
// an edge go/types finds into a skipped file is not counted against ctxls
// when ctxls points at the same callee's variant in a file it indexed
// (syscall.Getpid of zsyscall_linux_amd64.go and of syscall_plan9.go).
// ctxls's side is its "calls" references from the same functions that
// resolved to a function or method. Precision is the share of ctxls's
// edges that go/types has; recall the share of go/types' edges ctxls has.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3"
)

type edge struct{ caller, callee string }

func main() {
	db := flag.String("db", "", "index.db of the tree")
	show := flag.Int("show", 0, "print this many of each package's wrong and missed edges")
	src := flag.String("src", filepath.Join(build.Default.GOROOT, "src"), "root of the tree as go/types reads it")
	flag.Parse()
	if *db == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: calledges -db INDEX.DB [-src DIR] PKGDIR...")
		os.Exit(2)
	}
	conn, err := sql.Open("sqlite3", "file:"+*db+"?mode=ro")
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	indexed, err := indexedFiles(conn)
	if err != nil {
		fail(err)
	}
	fmt.Println("package\tgo/types edges\tctxls edges\tboth\tprecision\trecall")
	var tw, tc, tb int
	for _, dir := range flag.Args() {
		want, skipped, files, err := typesEdges(*src, dir, indexed)
		if err != nil {
			fail(fmt.Errorf("%s: %w", dir, err))
		}
		got, err := ctxlsEdges(conn, files)
		if err != nil {
			fail(fmt.Errorf("%s: %w", dir, err))
		}
		both, wrong, missed := 0, 0, 0
		for e := range got {
			if skipped[e] {
				delete(got, e)
				continue
			}
			if want[e] {
				both++
			} else if wrong++; wrong <= *show {
				fmt.Printf("  wrong  %s → %s\n", e.caller, e.callee)
			}
		}
		for e := range want {
			if !got[e] {
				if missed++; missed <= *show {
					fmt.Printf("  missed %s → %s\n", e.caller, e.callee)
				}
			}
		}
		fmt.Printf("%s\t%d\t%d\t%d\t%s\t%s\n", dir, len(want), len(got), both, pct(both, len(got)), pct(both, len(want)))
		tw, tc, tb = tw+len(want), tc+len(got), tb+both
	}
	fmt.Printf("all\t%d\t%d\t%d\t%s\t%s\n", tw, tc, tb, pct(tb, tc), pct(tb, tw))
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "calledges:", err)
	os.Exit(1)
}

// typesEdges type-checks the package in dir (relative to src) and returns
// its call edges, the edges into files the index skipped and the files it
// read, relative to src.
func typesEdges(src, dir string, indexed map[string]bool) (edges, skipped map[edge]bool, rel []string, err error) {
	bp, err := build.ImportDir(filepath.Join(src, dir), 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("import dir: %w", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("parse: %w", err)
		}
		files = append(files, f)
		rel = append(rel, path.Join(dir, name))
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check(bp.ImportPath, fset, files, info); err != nil {
		return nil, nil, nil, fmt.Errorf("type-check: %w", err)
	}
	// key names a function by directory and qualified name, and says
	// whether its file was indexed.
	key := func(obj *types.Func) (string, bool) {
		p := fset.Position(obj.Pos()).Filename
		r, err := filepath.Rel(src, p)
		if err != nil {
			return "", false
		}
		q := obj.Pkg().Name() + "."
		if recv := obj.Signature().Recv(); recv != nil {
			t := recv.Type()
			if pt, ok := t.(*types.Pointer); ok {
				t = pt.Elem()
			}
			named, ok := t.(*types.Named)
			if !ok || types.IsInterface(named) {
				return "", false // an interface method: no body to point at
			}
			q += named.Obj().Name() + "."
		}
		return filepath.ToSlash(filepath.Dir(r)) + " " + q + obj.Name(), indexed[filepath.ToSlash(r)]
	}
	edges, skipped = map[edge]bool{}, map[edge]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, _ := info.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			caller, ok := key(fn)
			if !ok {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fun := ast.Unparen(call.Fun)
				switch x := fun.(type) {
				case *ast.IndexExpr:
					fun = x.X
				case *ast.IndexListExpr:
					fun = x.X
				}
				var id *ast.Ident
				switch x := fun.(type) {
				case *ast.Ident:
					id = x
				case *ast.SelectorExpr:
					id = x.Sel
				default:
					return true
				}
				if fn, ok := info.Uses[id].(*types.Func); ok {
					switch callee, ok := key(fn.Origin()); {
					case ok:
						edges[edge{caller, callee}] = true
					case callee != "":
						skipped[edge{caller, callee}] = true
					}
				}
				return true
			})
		}
	}
	return edges, skipped, rel, nil
}

// ctxlsEdges returns the resolved calls edges from functions and methods
// of files (paths relative to the index's root) to functions and methods.
func ctxlsEdges(db *sql.DB, files []string) (map[edge]bool, error) {
	edges := map[edge]bool{}
	for _, f := range files {
		rows, err := db.Query(`SELECT s.qname, df.path, d.qname FROM refs r
			JOIN entities s ON s.id = r.src_id JOIN files sf ON sf.id = s.file_id
			JOIN entities d ON d.id = r.dst_id JOIN files df ON df.id = d.file_id
			WHERE r.kind = 1 AND sf.path = ? AND s.kind IN ('function', 'method') AND d.kind IN ('function', 'method')`, f)
		if err != nil {
			return nil, fmt.Errorf("query refs of %s: %w", f, err)
		}
		for rows.Next() {
			var caller, dpath, callee string
			if err := rows.Scan(&caller, &dpath, &callee); err != nil {
				rows.Close()
				return nil, fmt.Errorf("scan refs of %s: %w", f, err)
			}
			edges[edge{path.Dir(f) + " " + caller, path.Dir(dpath) + " " + callee}] = true
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("refs of %s: %w", f, err)
		}
	}
	return edges, nil
}

// indexedFiles returns the paths of the files the index parsed.
func indexedFiles(db *sql.DB) (map[string]bool, error) {
	rows, err := db.Query(`SELECT path FROM files WHERE skip = ''`)
	if err != nil {
		return nil, fmt.Errorf("query files: %w", err)
	}
	defer rows.Close()
	paths := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("scan files: %w", err)
		}
		paths[p] = true
	}
	return paths, rows.Err()
}
