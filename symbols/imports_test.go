package symbols

import (
	"context"
	"slices"
	"testing"
)

// TestImportedNames checks the names each kind of import statement brings
// into scope, as "path:name as alias" ("path as alias" for a module).
func TestImportedNames(t *testing.T) {
	for _, tc := range []struct {
		file, src string
		want      []string
	}{
		{"a.py", "import os.path\n", []string{"os.path"}},
		{"a.py", "import pkg.mod as m\n", []string{"pkg.mod as m"}},
		{"a.py", "from pkg.mod import foo, bar as baz\n", []string{"pkg.mod:foo", "pkg.mod:bar as baz"}},
		{"a.py", "from . import (x,\n  y)\n", []string{".:x", ".:y"}},
		{"a.py", "from ..z import *\n", []string{"..z:*"}},
		{"a.ts", "import { foo, bar as baz } from './x'\n", []string{"./x", "./x:foo", "./x:bar as baz"}},
		{"a.ts", "import * as ns from './y'\n", []string{"./y", "./y as ns"}},
		{"a.ts", "import Def, { q } from './z'\n", []string{"./z", "./z:q", "./z:default as Def"}},
		{"a.ts", "import type { T } from './t'\n", []string{"./t", "./t:T"}},
		{"a.ts", "import './side'\n", []string{"./side"}},
		{"a.ts", "export { a, b as c } from './x'\n", []string{"./x:a", "./x:b as c"}},
		{"a.ts", "export * from './y'\n", []string{"./y:*"}},
		{"a.js", "const m = require('./m')\n", []string{"./m as m", "./m"}},
		{"a.js", "const { a, b: c } = require('./n')\n", []string{"./n", "./n:a", "./n:b as c"}},
	} {
		f, err := Extract(context.Background(), tc.file, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, im := range f.Imports {
			s := im.Path
			if im.Name != "" {
				s += ":" + im.Name
			}
			if im.Alias != "" {
				s += " as " + im.Alias
			}
			got = append(got, s)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s %q: imports %q, want %q", tc.file, tc.src, got, want)
		}
	}
}

// TestImportQualifier checks that an import's alias and name survive the
// one column the index stores them in.
func TestImportQualifier(t *testing.T) {
	for _, im := range []Import{
		{Path: "m", Alias: "a"}, {Path: "m", Name: "foo"}, {Path: "m", Name: "foo", Alias: "bar"}, {Path: "m", Name: ImportAll},
	} {
		local, name := SplitImportQualifier(im.ImportQualifier())
		if name != im.Name || (name == "" && local != im.Alias) || (name != "" && local != im.Local()) {
			t.Errorf("%+v stored as %q → %q, %q", im, im.ImportQualifier(), local, name)
		}
	}
}

// TestSelfQualifier checks that the receiver naming the enclosing class
// becomes the class's name, and only inside a class.
func TestSelfQualifier(t *testing.T) {
	for _, tc := range []struct {
		file, src, name, want string
	}{
		{"a.py", "class S:\n    def a(self):\n        self.b()\n", "b", "S"},
		{"a.py", "class S:\n    @classmethod\n    def a(cls):\n        cls.b()\n", "b", "S"},
		{"a.py", "class S:\n    def a(self):\n        def inner():\n            self.b()\n", "b", "S"},
		{"a.py", "def a(self):\n    self.b()\n", "b", "self"},
		{"a.ts", "class K { run() { this.go() } }\n", "go", "K"},
		{"a.js", "function f() { this.go() }\n", "go", "this"},
	} {
		f, err := Extract(context.Background(), tc.file, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(f.Refs, func(r Ref) bool { return r.Name == tc.name })
		if i < 0 {
			t.Errorf("%q: no reference %s", tc.src, tc.name)
			continue
		}
		if q := f.Refs[i].Qualifier; q != tc.want {
			t.Errorf("%q: %s qualified %q, want %q", tc.src, tc.name, q, tc.want)
		}
	}
}
