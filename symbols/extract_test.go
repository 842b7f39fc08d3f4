package symbols

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// facts are what a person reading each fixture can check: entities as
// "kind qualified.name", references as "kind qualifier.name" (or "kind
// name"), imports as written.
var facts = []struct {
	file     string
	pkg      string
	entities []string
	refs     []string
	imports  []string
	docs     map[string]string // qualified name → doc prefix
	parents  map[string]string // qualified name → parent's qualified name
}{
	{"sample.go", "shop",
		[]string{"constant shop.MaxItems", "variable shop.registry", "struct shop.Cart", "interface shop.Item", "type shop.ID", "method shop.Cart.Add", "method shop.Cart.validate", "function shop.NewCart"},
		[]string{"extends Base", "calls fmt.Errorf", "calls Cart.validate", "calls Cart.Add", "calls str.ToUpper", "references Item"},
		[]string{"fmt", "strings"},
		map[string]string{"shop.Cart.Add": "Add puts an item", "shop.MaxItems": "MaxItems bounds", "shop.Cart": "Cart holds items"},
		map[string]string{"shop.Cart.Add": "shop.Cart"}},
	{"sample.ts", "",
		[]string{"interface Shape", "method Shape.area", "class Circle", "method Circle.area", "method Circle.scale", "method Circle.grow", "method Circle.step", "type ID", "enum Color", "function double", "function make"},
		[]string{"extends Base", "implements Shape", "calls helper", "calls Circle", "calls Circle.step"},
		[]string{"./util"},
		map[string]string{"Shape": "A shape with an area.", "Circle": "Circle is round."},
		map[string]string{"Circle.area": "Circle", "Circle.scale": "Circle"}},
	{"sample.tsx", "",
		[]string{"interface Props", "function Header", "function Footer"},
		[]string{"calls format", "references Props"},
		[]string{"react"},
		map[string]string{"Header": "Header renders a title."}, nil},
	{"sample.js", "",
		[]string{"function parseConfig", "class Reader", "method Reader.read", "method Reader.reset", "method Reader.skip", "method Reader.next", "function run", "method res.send", "method Reader.close", "method exports.helper", "function legacy", "function wire",
			"method View.render", "method Request.accepts", "method Reader.open", "method exports.format", "method mount", "function setup"},
		[]string{"extends Base", "calls load", "calls path.join", "calls parseConfig", "calls Reader", "calls Reader.next"},
		[]string{"path", "./loader.js"},
		map[string]string{"parseConfig": "Parses a config file."}, nil},
	{"sample.py", "",
		[]string{"variable LIMIT", "type Items", "class Store", "method Store.save", "method Store.validate", "function helper"},
		[]string{"extends Base", "calls Store.validate", "calls helper", "calls osp.join", "references User"},
		[]string{"os.path", ".models"},
		map[string]string{"Store": "Keeps things.", "Store.save": "Save an item."},
		map[string]string{"Store.save": "Store"}},
	{"sample.rs", "",
		[]string{"struct Point", "interface Shape", "method Shape.area", "method Point.area", "enum Color", "constant ORIGIN", "function helper"},
		[]string{"implements Shape", "calls helper", "calls HashMap.new", "references HashMap"},
		[]string{"std::collections::HashMap"},
		map[string]string{"Point": "A point in space.", "Point.area": "The area of a point."},
		map[string]string{"Point.area": "Point"}},
	{"Sample.java", "com.example.shop",
		[]string{"class com.example.shop.Cart", "method com.example.shop.Cart.add", "interface com.example.shop.Container", "enum com.example.shop.Color"},
		[]string{"extends Base", "implements Container", "calls items.add", "calls validate", "references List"},
		[]string{"java.util.List"},
		map[string]string{"com.example.shop.Cart": "A cart of items.", "com.example.shop.Cart.add": "Adds an item."}, nil},
	{"sample.kt", "com.example.shop",
		[]string{"class com.example.shop.Cart", "method com.example.shop.Cart.add", "constant com.example.shop.Cart.MAX_ITEMS", "method com.example.shop.Cart.empty",
			"interface com.example.shop.Container", "class com.example.shop.Registry", "enum com.example.shop.Color", "constant com.example.shop.Color.RED",
			"class com.example.shop.Item", "type com.example.shop.Handler", "method com.example.shop.Cart.total", "variable com.example.shop.defaultCart",
			"interface com.example.shop.Keyer", "method com.example.shop.Keyer.key", "function com.example.shop.build"},
		[]string{"extends ShopBase", "extends Container", "calls validate", "calls items.add", "calls carts.add", "calls Cart", "calls Cart.empty", "references Item"},
		[]string{"java.util.ArrayList", "kotlinx.coroutines", "com.example.base.Base"},
		map[string]string{"com.example.shop.Cart": "A cart of items.", "com.example.shop.Cart.add": "Adds an item.", "com.example.shop.Cart.total": "Totals the prices.", "com.example.shop.Keyer": "Keys a value."},
		map[string]string{"com.example.shop.Cart.add": "com.example.shop.Cart", "com.example.shop.Cart.MAX_ITEMS": "com.example.shop.Cart"}},
	{"sample.swift", "",
		[]string{"class Cart", "method Cart.add", "interface Container", "method Container.size", "struct Item", "enum Color", "constant Color.red", "constant Color.green",
			"method Cart.total", "type Handler", "function helper", "variable defaultCart", "class Counter", "method Counter.bump"},
		[]string{"extends Base", "extends Container", "calls validate", "calls items.append", "calls Session.default.request", "calls Cart", "references Item"},
		[]string{"Foundation", "Alamofire.HTTPHeaders"},
		map[string]string{"Cart": "A cart of items.", "Cart.add": "Adds an item."},
		map[string]string{"Cart.total": "Cart", "Color.green": "Color"}},
	{"sample.c", "",
		[]string{"constant MAX", "struct point", "type point_t", "function print_point", "variable counter"},
		[]string{"calls printf", "calls helper", "references point_t"},
		[]string{"stdio.h", "util.h"},
		map[string]string{"print_point": "Prints a point.", "point": "A point."}, nil},
	{"sample.cpp", "",
		[]string{"module geo", "class geo.Circle", "method geo.Circle.area", "function main"},
		[]string{"extends Shape", "calls helper", "calls c.area"},
		[]string{"vector", "shape.hpp"},
		map[string]string{"geo.Circle": "A circle."}, nil},
	{"sample.cs", "Shop",
		[]string{"module Shop", "class Shop.Cart", "method Shop.Cart.Add", "method Shop.Cart.Validate", "interface Shop.IContainer", "enum Shop.Color"},
		[]string{"extends Base", "extends IContainer", "calls Validate", "calls items.Add"},
		[]string{"System.Collections.Generic"},
		map[string]string{"Shop.Cart": "<summary>A cart.</summary>"}, nil},
	{"sample.rb", "",
		[]string{"class Cart", "method Cart.add", "module Shop", "method Shop.open", "constant LIMIT"},
		[]string{"extends Base", "calls validate", "calls @items.push", "calls Cart.new"},
		[]string{"json", "base"},
		map[string]string{"Cart": "A cart of items."}, nil},
	{"sample.php", `App\Shop`,
		[]string{"class App.Shop.Cart", "method App.Shop.Cart.add", "interface App.Shop.Container", "function App.Shop.helper"},
		[]string{"extends Base", "implements Container", "calls $this.validate", "calls helper", "calls Util.wrap"},
		[]string{`App\Models\Item`},
		map[string]string{"App.Shop.Cart": "A cart.", "App.Shop.Cart.add": "Adds an item."}, nil},
	{"sample.md", "",
		[]string{"heading Guide", "heading Install", "heading From source", "heading Usage", "heading Setext Title"},
		nil, nil, nil,
		map[string]string{"From source": "Install", "Install": "Guide"}},
}

func TestFixtures(t *testing.T) {
	for _, tt := range facts {
		t.Run(tt.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Extract(context.Background(), tt.file, src)
			if err != nil {
				t.Fatal(err)
			}
			if f.HasErrors {
				t.Errorf("fixture parsed with errors")
			}
			if f.Package != tt.pkg {
				t.Errorf("package = %q, want %q", f.Package, tt.pkg)
			}
			ents := map[string]Entity{}
			var have []string
			for _, e := range f.Entities {
				ents[e.QualName] = e
				have = append(have, string(e.Kind)+" "+e.QualName)
			}
			for _, want := range tt.entities {
				if !contains(have, want) {
					t.Errorf("missing entity %q; have %q", want, have)
				}
			}
			var refs []string
			for _, r := range f.Refs {
				n := r.Name
				if r.Qualifier != "" {
					n = r.Qualifier + "." + n
				}
				refs = append(refs, string(r.Kind)+" "+n)
				if r.From >= 0 && f.Entities[r.From].QualName == r.Name && r.Kind == EdgeReferences {
					t.Errorf("declaration refers to itself: %+v", r)
				}
			}
			for _, want := range tt.refs {
				if !contains(refs, want) {
					t.Errorf("missing reference %q; have %q", want, refs)
				}
			}
			// One module per statement: the names a statement imports
			// are checked by TestImportedNames.
			whole := map[int]bool{}
			for _, im := range f.Imports {
				if im.Name == "" {
					whole[im.Line] = true
				}
			}
			var imps []string
			prev := Import{}
			for _, im := range f.Imports {
				if (im.Name == "" || !whole[im.Line]) && (im.Path != prev.Path || im.Line != prev.Line) {
					imps = append(imps, im.Path)
				}
				prev = im
			}
			if strings.Join(imps, ",") != strings.Join(tt.imports, ",") {
				t.Errorf("imports = %q, want %q", imps, tt.imports)
			}
			for q, doc := range tt.docs {
				if !strings.HasPrefix(ents[q].Doc, doc) {
					t.Errorf("doc of %s = %q, want prefix %q", q, ents[q].Doc, doc)
				}
			}
			for q, parent := range tt.parents {
				e, ok := ents[q]
				if !ok || e.Parent < 0 || f.Entities[e.Parent].QualName != parent {
					t.Errorf("parent of %s: %+v", q, e)
				}
			}
			for _, e := range f.Entities {
				if e.StartLine < 1 || e.EndLine < e.StartLine || e.StartByte > e.EndByte || int(e.EndByte) > len(src) {
					t.Errorf("bad range for %s: %+v", e.QualName, e)
				}
			}
			golden(t, tt.file, f)
		})
	}
}

// golden compares the full extraction with testdata/golden/<file>.json; the
// facts above are what makes a golden trustworthy, the golden catches any
// other change.
func golden(t *testing.T, name string, f *File) {
	t.Helper()
	got, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", path, err)
	}
	if strings.TrimSpace(string(want)) != strings.TrimSpace(string(got)) {
		t.Errorf("extraction of %s differs from %s (run go test ./symbols -update and review the diff)\n%s", name, path, got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSyntaxErrorsKeepRecoveredEntities(t *testing.T) {
	src, _ := os.ReadFile("testdata/broken.go")
	f, err := Extract(context.Background(), "broken.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasErrors {
		t.Error("HasErrors not set")
	}
	var names []string
	for _, e := range f.Entities {
		names = append(names, e.Name)
	}
	for _, want := range []string{"Good", "Fine"} {
		if !contains(names, want) {
			t.Errorf("recovered entities %v lack %s", names, want)
		}
	}
}

func TestHostileInput(t *testing.T) {
	inputs := map[string][]byte{
		"empty":   {},
		"nul":     []byte("package p\x00\x00func F() {}"),
		"invalid": []byte("package p\n// \xff\xfe\nfunc F() {}\n"),
		"deep":    []byte("package p\nvar x = " + strings.Repeat("(", 500) + strings.Repeat(")", 500)),
		"garbage": []byte(strings.Repeat("}{)(][", 1000)),
	}
	for name, src := range inputs {
		for _, l := range Languages() {
			if _, err := Extract(context.Background(), "f"+l.Extensions[0], src); err != nil {
				t.Errorf("%s as %s: %v", name, l.Name, err)
			}
		}
	}
	if _, err := Extract(context.Background(), "notes.txt", []byte("x")); err == nil {
		t.Error("unsupported file accepted")
	}
}

func TestRealCode(t *testing.T) {
	path := filepath.Join(goroot(t), "src", "net", "http", "server.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	f, err := Extract(context.Background(), "net/http/server.go", src)
	if err != nil {
		t.Fatal(err)
	}
	var serve, las *Entity
	for i := range f.Entities {
		switch f.Entities[i].QualName {
		case "http.Server.Serve":
			serve = &f.Entities[i]
		case "http.ListenAndServe":
			las = &f.Entities[i]
		}
	}
	if serve == nil || !strings.HasPrefix(serve.Doc, "Serve accepts incoming connections") || serve.Kind != KindMethod {
		t.Fatalf("http.Server.Serve = %+v", serve)
	}
	if las == nil {
		t.Fatal("http.ListenAndServe missing")
	}
	found := false
	for _, r := range f.Refs {
		if r.From >= 0 && &f.Entities[r.From] == las && r.Name == "ListenAndServe" && r.Qualifier != "" && r.Kind == EdgeCalls {
			found = true
		}
	}
	if !found {
		t.Error("http.ListenAndServe does not call <x>.ListenAndServe")
	}
}

func BenchmarkExtractNetHTTP(b *testing.B) {
	dir := filepath.Join(goroot(b), "src", "net", "http")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(paths) == 0 {
		b.Skip("no GOROOT sources")
	}
	var srcs [][]byte
	var total int64
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		srcs = append(srcs, src)
		total += int64(len(src))
	}
	x := NewExtractor()
	defer x.Close()
	b.SetBytes(total)
	c0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, src := range srcs {
			if _, err := x.Extract(context.Background(), paths[j], src); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total)*float64(b.N)/1e6/(cpuSeconds()-c0), "MB/cpu-s")
}

// goroot returns the Go installation's root, as "go env GOROOT" reports it.
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// A method whose body declares a type of its receiver's name is not
// attached to that type: it would be its own parent's parent, and its
// qualified name's walk up the parents never ended (serde_json's
// src/value/de.rs took 17 GB before it was killed).
func TestMethodDeclaringItsReceiversName(t *testing.T) {
	src := []byte(`impl<'de> Deserialize<'de> for Value {
    fn deserialize<D>(deserializer: D) -> Result<Value, D::Error> {
        struct ValueVisitor;
        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = Value;
            fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
                Ok(Value::Bool(value))
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}
`)
	done := make(chan *File, 1)
	go func() {
		f, err := Extract(context.Background(), "src/value/de.rs", src)
		if err != nil {
			t.Error(err)
		}
		done <- f
	}()
	var f *File
	select {
	case f = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("extraction did not end")
	}
	if f == nil {
		return
	}
	var names []string
	for _, e := range f.Entities {
		names = append(names, e.QualName)
	}
	if !slices.Contains(names, "Value.deserialize") {
		t.Errorf("qualified names = %v, want Value.deserialize among them", names)
	}
}
