package symbols

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// editAt returns src with old (its first occurrence after anchor) replaced
// by repl, and the tree-sitter edit describing it.
func editAt(t *testing.T, src []byte, anchor, old, repl string) ([]byte, sitter.EditInput) {
	t.Helper()
	a := bytes.Index(src, []byte(anchor))
	if a < 0 {
		t.Fatalf("anchor %q not found", anchor)
	}
	i := bytes.Index(src[a:], []byte(old))
	if i < 0 {
		t.Fatalf("%q not found after %q", old, anchor)
	}
	start, end := a+i, a+i+len(old)
	out := append(append(append([]byte(nil), src[:start]...), repl...), src[end:]...)
	point := func(b []byte, off int) sitter.Point {
		row := bytes.Count(b[:off], []byte("\n"))
		col := off - (bytes.LastIndexByte(b[:off], '\n') + 1)
		return sitter.Point{Row: uint32(row), Column: uint32(col)}
	}
	return out, sitter.EditInput{
		StartIndex: uint32(start), OldEndIndex: uint32(end), NewEndIndex: uint32(start + len(repl)),
		StartPoint: point(src, start), OldEndPoint: point(src, end), NewEndPoint: point(out, start+len(repl)),
	}
}

func TestExtractEditMatchesFullExtraction(t *testing.T) {
	goSrc := `package p

// A is a type.
type A struct{ n int }

// Get returns n.
func (a *A) Get() int {
	return a.n
}

func helper(x int) int {
	y := x + 1
	return y
}

// Last comes after.
func Last() {}
`
	pySrc := `class C:
    def run(self):
        x = 1
        return x

def after():
    """Comes after."""
    y = 1
    pass
`
	tsSrc := `export class Panel {
  render(): string {
    return "x";
  }
  size(): number { return 1; }
}
export function mount(p: Panel) { return p.render(); }
`
	// Kotlin parses a rewritten copy (unknownKotlin), never a kept tree.
	ktSrc := `package p

interface Shape {
    fun area(): Int
}

class Box {
    fun size(): Int {
        val n = 1
        return n
    }
}

fun build(builder: () -> Unit) = builder()
`
	for _, tc := range []struct {
		name, path, src   string
		anchor, old, repl string
		reused            bool
	}{
		{"go: a line typed in a body", "a.go", goSrc, "func helper", "\treturn y", "\ty++\n\ty *= 2\n\treturn y", true},
		{"go: a line deleted in a body", "a.go", goSrc, "func helper", "\ty := x + 1\n", "", true},
		{"go: characters typed in a statement", "a.go", goSrc, "func (a *A) Get", "a.n", "a.n + 1", true},
		{"go: the signature edited", "a.go", goSrc, "func helper", "(x int)", "(x, z int)", false},
		{"go: a type declared in the body", "a.go", goSrc, "func helper", "\treturn y", "\ttype local int\n\treturn y", false},
		{"go: the closing brace deleted", "a.go", goSrc, "func helper", "return y\n}", "return y\n", false},
		{"go: a declaration's name typed", "a.go", goSrc, "// Last", "Last()", "Later()", false},
		{"python: a statement in a method", "a.py", pySrc, "def run", "x = 1", "x = 1\n        x += 2", true},
		{"python: a nested def", "a.py", pySrc, "def run", "x = 1", "def inner():\n            pass\n        x = 1", false},
		{"python: a statement before the first", "a.py", pySrc, "def run", "x = 1", "y = 0\n        x = 1", true},
		{"python: a top-level statement after a function", "a.py", pySrc, "def after", "    pass\n", "    pass\nz = 3\n", false},
		// A docstring is in the body, and is the declaration's Doc.
		{"python: the docstring edited", "a.py", pySrc, "def after", "Comes after.", "Comes last.", false},
		{"python: a docstring typed", "a.py", pySrc, "def run", "x = 1", "\"\"\"Runs.\"\"\"\n        x = 1", false},
		{"python: a statement after the docstring", "a.py", pySrc, "def after", "y = 1", "y = 2\n    z = 3", true},
		{"go: the opening brace replaced", "a.go", goSrc, "func helper", "{", "{ _ = 0;", true},
		{"typescript: a method body", "a.ts", tsSrc, "render()", `return "x";`, "const y = 2;\n    return \"x\" + y;", true},
		// Kotlin's grammar names no body field: the whole tree is queried.
		{"kotlin: a method body", "a.kt", ktSrc, "fun size", "return n", "val m = n + 1\n        return m", false},
		{"kotlin: an interface made functional", "a.kt", ktSrc, "interface Shape", "interface", "fun interface", false},
		{"kotlin: a receiver typed", "a.kt", ktSrc, "fun build", "() -> Unit", "Box.() -> Unit", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			x := NewExtractor()
			defer x.Close()
			src := []byte(tc.src)
			prev, tree, err := x.ExtractIncremental(ctx, tc.path, nil, src)
			if err != nil {
				t.Fatal(err)
			}
			out, ed := editAt(t, src, tc.anchor, tc.old, tc.repl)
			EditTree(tree, ed)
			got, nt, reused, err := x.ExtractEdit(ctx, tc.path, tree, prev, ed, out)
			if err != nil {
				t.Fatal(err)
			}
			defer nt.Close()
			tree.Close()
			if reused != tc.reused {
				t.Errorf("reused = %v, want %v", reused, tc.reused)
			}
			want, err := Extract(ctx, tc.path, out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Entities, want.Entities) {
				t.Errorf("entities differ from a full extraction:\n got %s\nwant %s", dump(got.Entities), dump(want.Entities))
			}
			if got.Package != want.Package || got.HasErrors != want.HasErrors || got.Refs != nil || got.Imports != nil {
				t.Errorf("file = %+v, want package %q errors %v and no refs", got, want.Package, want.HasErrors)
			}
		})
	}
}

func dump(ents []Entity) string {
	var b strings.Builder
	for _, e := range ents {
		fmt.Fprintf(&b, "\n  %s %s %q lines %d-%d bytes %d-%d parent %d", e.Kind, e.Name, e.Signature, e.StartLine, e.EndLine, e.StartByte, e.EndByte, e.Parent)
	}
	return b.String()
}
