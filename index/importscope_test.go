package index

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/store"
)

// scopedRef is one reference of an import-scoped language, from an entity
// named "path#qname", and the entity it must resolve to ("path#qname", ""
// for unresolved).
type scopedRef struct {
	rule             string
	from, name, qual string
	want             string
}

// checkScoped indexes files, checks refs, then re-indexes the file
// the references are in (the incremental path, where definitions are loaded
// by name) and checks them again.
func checkScoped(t *testing.T, files map[string]string, edited string, refs []scopedRef) {
	t.Helper()
	root := testWorkspace(t, files)
	_, st := run(t, root, config.Default())
	assertScoped(t, "cold", st, refs)
	st.Close()
	write(t, root, edited, files[edited]+"\n")
	mtimeLater(t, filepath.Join(root, edited))
	sum, st := run(t, root, config.Default())
	if sum.Parsed != 1 {
		t.Fatalf("re-index parsed %d files, want 1", sum.Parsed)
	}
	assertScoped(t, "incremental", st, refs)
}

// mtimeLater moves a file's modification time a second on, so that the
// next run sees it changed whatever the clock's resolution.
func mtimeLater(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	later := fi.ModTime().Add(1e9)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

func assertScoped(t *testing.T, pass string, st *store.Store, refs []scopedRef) {
	t.Helper()
	for _, tc := range refs {
		var got sql.NullString
		err := st.DB().QueryRow(`SELECT df.path || '#' || d.qname FROM refs r
			JOIN entities s ON s.id = r.src_id JOIN files sf ON sf.id = s.file_id
			LEFT JOIN entities d ON d.id = r.dst_id LEFT JOIN files df ON df.id = d.file_id
			WHERE sf.path || '#' || s.qname = ? AND r.name = ? AND r.qualifier = ? AND r.kind = ?`,
			tc.from, tc.name, tc.qual, store.RefCalls).Scan(&got)
		if err == sql.ErrNoRows {
			t.Errorf("%s: %s: no reference %s → %s.%s", pass, tc.rule, tc.from, tc.qual, tc.name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.String != tc.want {
			t.Errorf("%s: %s: %s → %s.%s resolved to %q, want %q", pass, tc.rule, tc.from, tc.qual, tc.name, got.String, tc.want)
		}
	}
}

// pythonScopeFiles is a package whose names app/main.py imports in every
// way Python has, beside definitions that share those names and that
// nothing imports.
var pythonScopeFiles = map[string]string{
	"pkg/__init__.py": "from .models import Model\n",
	"pkg/models.py": `class Model:
    def save(self):
        self.check()

    def check(self):
        pass

    @classmethod
    def make(cls):
        return cls.check()


def helper():
    pass


def loads(s):
    pass
`,
	"pkg/util.py":         "def helper():\n    pass\n\n\ndef fmt():\n    pass\n",
	"pkg/paths.py":        "def join(*a):\n    pass\n\n\ndef stray():\n    pass\n",
	"pkg/sub/__init__.py": "",
	"pkg/sub/deep.py":     "def deeper():\n    pass\n",
	"other/shapes.py":     "class Model:\n    def check(self):\n        pass\n",
	"app/main.py": `import json
import pkg
import pkg.util
import pkg.util as u
from pkg.models import helper as h, Model
from pkg import Model as M2
from pkg import util
from os.path import join


def run():
    json.loads("x")
    h()
    u.fmt()
    pkg.util.fmt()
    pkg.sub.deep.deeper()
    util.helper()
    M2()
    Model.check()
    join("a")
    stray()
    local()


def local():
    pass
`,
	"app/star.py": "from pkg.paths import *\nfrom pkg.c1 import *\n\n\ndef go():\n    stray()\n    nowhere()\n",
	// Two modules that import each other with *: a name neither defines
	// is looked for a bounded number of times.
	"pkg/c1.py": "from .c2 import *\n",
	"pkg/c2.py": "from .c1 import *\n\n\ndef nowhere2():\n    pass\n",
	"pkg/c3.py": "def nowhere():\n    pass\n",
}

// TestPythonImportScope checks that a Python reference resolves to what the
// file defines or imports, and to nothing a module outside the workspace or
// no import brings in.
func TestPythonImportScope(t *testing.T) {
	checkScoped(t, pythonScopeFiles, "app/main.py", []scopedRef{
		{"a name defined in the file", "app/main.py#run", "local", "", "app/main.py#local"},
		{"from m import a as b", "app/main.py#run", "h", "", "pkg/models.py#helper"},
		{"import m as a; a.f()", "app/main.py#run", "fmt", "u", "pkg/util.py#fmt"},
		{"import a.b; a.b.f()", "app/main.py#run", "fmt", "pkg.util", "pkg/util.py#fmt"},
		{"import pkg; pkg.sub.mod.f()", "app/main.py#run", "deeper", "pkg.sub.deep", "pkg/sub/deep.py#deeper"},
		{"from pkg import submodule", "app/main.py#run", "helper", "util", "pkg/util.py#helper"},
		{"a name re-exported by __init__.py", "app/main.py#run", "M2", "", "pkg/models.py#Model"},
		{"an imported class's method", "app/main.py#run", "check", "Model", "pkg/models.py#Model.check"},
		{"self is the enclosing class", "pkg/models.py#Model.save", "check", "Model", "pkg/models.py#Model.check"},
		{"cls is the enclosing class", "pkg/models.py#Model.make", "check", "Model", "pkg/models.py#Model.check"},
		{"a module outside the workspace", "app/main.py#run", "loads", "json", ""},
		{"a name imported from outside the workspace", "app/main.py#run", "join", "", ""},
		{"a name nothing imports", "app/main.py#run", "stray", "", ""},
		{"from m import *", "app/star.py#go", "stray", "", "pkg/paths.py#stray"},
		{"modules importing each other with *", "app/star.py#go", "nowhere", "", ""},
	})
}

// tsScopeFiles is a module whose names app/a.ts imports in every way
// TypeScript and CommonJS have, beside definitions sharing those names.
var tsScopeFiles = map[string]string{
	"src/util.ts": `export function helper() {}
export function other() {}
export default function main() {}
export class Box {
  static open() {}
}
`,
	"src/index.ts": "export { helper } from './util'\n",
	"src/all.ts":   "export * from './util'\n",
	"src/dup.ts":   "export function helper() {}\nexport function stray() {}\nexport function readFile() {}\nexport function main() {}\n",
	"app/a.ts": `import { helper as h, Box } from '../src/util'
import * as U from '../src/util'
import main from '../src/util'
import { readFile } from 'fs'
import { other } from '../src/util.js'
import { helper } from '../src'
import { other as o2 } from '../src/all'

export function run() {
  h()
  U.other()
  main()
  readFile()
  stray()
  Box.open()
  other()
  helper()
  local()
  o2()
}

function local() {}

class C {
  go() { this.stop() }
  stop() {}
}
`,
	"app/b.js": `const { helper } = require('../src/util')
const u = require('../src/util')
function r() {
  helper()
  u.other()
}
`,
}

// TestTypeScriptImportScope checks TS and CommonJS references against what
// each file imports.
func TestTypeScriptImportScope(t *testing.T) {
	checkScoped(t, tsScopeFiles, "app/a.ts", []scopedRef{
		{"a name defined in the file", "app/a.ts#run", "local", "", "app/a.ts#local"},
		{"import { a as b }", "app/a.ts#run", "h", "", "src/util.ts#helper"},
		{"import * as ns; ns.f()", "app/a.ts#run", "other", "U", "src/util.ts#other"},
		{"a default import", "app/a.ts#run", "main", "", "src/util.ts#main"},
		{"an imported class's method", "app/a.ts#run", "open", "Box", "src/util.ts#Box.open"},
		{"'./x.js' names x.ts", "app/a.ts#run", "other", "", "src/util.ts#other"},
		{"a name re-exported by index.ts", "app/a.ts#run", "helper", "", "src/util.ts#helper"},
		{"a name re-exported with export *", "app/a.ts#run", "o2", "", "src/util.ts#other"},
		{"this is the enclosing class", "app/a.ts#C.go", "stop", "C", "app/a.ts#C.stop"},
		{"a name imported from a package", "app/a.ts#run", "readFile", "", ""},
		{"a name nothing imports", "app/a.ts#run", "stray", "", ""},
		{"const { a } = require()", "app/b.js#r", "helper", "", "src/util.ts#helper"},
		{"const m = require(); m.f()", "app/b.js#r", "other", "u", "src/util.ts#other"},
	})
}

// javaScopeFiles is a Maven-style tree whose class app.Main imports classes
// of another package in every way Java has, beside classes sharing their
// names that nothing imports.
var javaScopeFiles = map[string]string{
	"src/main/java/lib/Thing.java":   "package lib;\n\npublic class Thing {\n  public static Thing make() { return new Thing(); }\n}\n",
	"src/main/java/lib/Util.java":    "package lib;\n\npublic class Util {\n  public static void helper() {}\n}\n",
	"src/main/java/lib/Extra.java":   "package lib;\n\npublic class Extra {}\n",
	"src/main/java/other/Thing.java": "package other;\n\npublic class Thing {\n  public static Thing make() { return null; }\n}\n",
	"src/main/java/other/List.java":  "package other;\n\npublic class List {}\n",
	"src/main/java/app/Peer.java":    "package app;\n\npublic class Peer {\n  public static void ping() {}\n}\n",
	"src/main/java/app/Main.java": `package app;

import java.util.List;
import lib.Thing;
import lib.*;
import static lib.Util.helper;

public class Main {
  void run() {
    go();
    this.go();
    Thing.make();
    new Thing();
    helper();
    new Extra();
    new Peer();
    Peer.ping();
    new List();
  }

  void go() {}
}
`,
}

// TestJavaImportScope checks Java references against the file's imports
// and package.
func TestJavaImportScope(t *testing.T) {
	main := "src/main/java/app/Main.java"
	checkScoped(t, javaScopeFiles, main, []scopedRef{
		{"a method of the class, bare", main + "#app.Main.run", "go", "", main + "#app.Main.go"},
		{"this is the enclosing class", main + "#app.Main.run", "go", "Main", main + "#app.Main.go"},
		{"import a.b.C; C.m()", main + "#app.Main.run", "make", "Thing", "src/main/java/lib/Thing.java#lib.Thing.make"},
		{"import a.b.C; new C()", main + "#app.Main.run", "Thing", "", "src/main/java/lib/Thing.java#lib.Thing"},
		{"import static a.b.C.m", main + "#app.Main.run", "helper", "", "src/main/java/lib/Util.java#lib.Util.helper"},
		{"import a.b.*", main + "#app.Main.run", "Extra", "", "src/main/java/lib/Extra.java#lib.Extra"},
		{"a class of the same package", main + "#app.Main.run", "Peer", "", "src/main/java/app/Peer.java#app.Peer"},
		{"a static method of the same package", main + "#app.Main.run", "ping", "Peer", "src/main/java/app/Peer.java#app.Peer.ping"},
		{"a class imported from outside the workspace", main + "#app.Main.run", "List", "", ""},
	})
}

// rustScopeFiles is a workspace of two crates whose app crate uses the
// other's and its own modules' items in every way Rust has, beside items
// sharing their names that nothing uses.
var rustScopeFiles = map[string]string{
	"Cargo.toml": "[package]\nname = \"app\"\n",
	"src/lib.rs": "mod parse;\nmod util;\n\npub fn top() {}\n",
	"src/util.rs": `pub fn helper() {}
pub fn other() {}
pub struct Thing;
`,
	"src/util/deep.rs": "pub fn deeper() {}\n",
	"src/thing_impl.rs": `use crate::util::Thing;

impl Thing {
    pub fn make() -> Thing { Thing }
}
`,
	"src/stray.rs":     "pub fn stray() {}\npub fn insert() {}\n",
	"lexer/src/lib.rs": "mod tok;\npub use tok::Token;\n\npub fn lex() {}\n",
	"lexer/src/tok.rs": "pub struct Token;\n\nimpl Token {\n    pub fn new() -> Token { Token }\n}\n",
	"src/parse.rs": `use crate::util::{helper, other as o};
use crate::util;
use std::collections::HashMap;
use super::util::*;
use lexer::lex;
use lexer::Token;

pub struct Parser;

impl Parser {
    pub fn run(&self) {
        helper();
        o();
        util::other();
        crate::util::deep::deeper();
        self.step();
        Self::step2();
        HashMap::new();
        lex();
        stray();
        util::Thing::make();
        super::top();
        Token::new();
    }
    fn step(&self) {}
    fn step2() {}
}
`,
}

// TestRustImportScope checks Rust references against the file's `use`
// declarations and module paths.
func TestRustImportScope(t *testing.T) {
	parse := "src/parse.rs"
	run := parse + "#Parser.run"
	checkScoped(t, rustScopeFiles, parse, []scopedRef{
		{"use a::{f}", run, "helper", "", "src/util.rs#helper"},
		{"use a::{f as g}", run, "o", "", "src/util.rs#other"},
		{"use crate::module; module::f()", run, "other", "util", "src/util.rs#other"},
		{"crate::a::b::f()", run, "deeper", "crate.util.deep", "src/util/deep.rs#deeper"},
		{"self is the impl's type", run, "step", "Parser", parse + "#Parser.step"},
		{"Self is the impl's type", run, "step2", "Parser", parse + "#Parser.step2"},
		{"another crate of the workspace", run, "lex", "", "lexer/src/lib.rs#lex"},
		{"a type's method implemented in another file", run, "make", "util.Thing", "src/thing_impl.rs#Thing.make"},
		{"super::f()", run, "top", "super", "src/lib.rs#top"},
		{"a type re-exported by its crate", run, "new", "Token", "lexer/src/tok.rs#Token.new"},
		{"a crate outside the workspace", run, "new", "HashMap", ""},
		{"a name nothing brings into scope", run, "stray", "", ""},
	})
}
