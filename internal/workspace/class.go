package workspace

import (
	"bytes"
	"path"
	"strings"
)

// Class is what kind of file a workspace file is, as a set: a file can be
// both a test and documentation (docs/example_test.go). The zero Class is
// Source, the code a question about the workspace is usually after. The
// indexer decides a file's class once and stores it with the file; ranking
// reads it from there.
type Class uint8

// The classes. Their values are stored in the index (files.class): add new
// ones at the end.
const (
	// Test is a test file or test data, by the conventions of the
	// supported languages (IsTest).
	Test Class = 1 << iota
	// Doc is documentation or an example (IsDoc), or a TypeScript
	// declaration file (IsDeclarationFile): both describe code that runs
	// elsewhere.
	Doc
	// ThirdParty is most likely a copy of someone else's code
	// (IsThirdParty).
	ThirdParty
	// Generated is code a generator wrote, by its header (IsGenerated).
	// Unlike the others it is a class of the content, not of the path.
	Generated
	// BuildOutput is a compiler's or bundler's output checked in beside
	// its source (IsBuildOutput): a copy of the workspace's own code.
	BuildOutput
	// BuildScript is a script or configuration that builds, packages or
	// runs tasks for the project (IsBuildScript): how it is shipped, not
	// what it does.
	BuildScript

	// Source is the empty set.
	Source Class = 0
)

// ClassOf returns the classes a workspace path (slash-separated, relative to
// the root) belongs to by its name alone.
func ClassOf(p string) Class {
	var c Class
	if IsTest(p) {
		c |= Test
	}
	if IsDoc(p) || IsDeclarationFile(p) {
		c |= Doc
	}
	if IsThirdParty(p) {
		c |= ThirdParty
	}
	if IsBuildOutput(p) {
		c |= BuildOutput
	}
	if IsBuildScript(p) {
		c |= BuildScript
	}
	return c
}

// Has reports whether c includes every class of x.
func (c Class) Has(x Class) bool { return c&x == x }

// Aside reports tests, docs, third-party code, build output and build
// scripts: files that are rarely what a question about the workspace's code
// is after, whose whole-file documents are therefore kept out of the source
// corpus's statistics (decision 0073).
func (c Class) Aside() bool { return c&(Test|Doc|ThirdParty|BuildOutput|BuildScript) != 0 }

// String names the classes of c, joined by "+", or "source".
func (c Class) String() string {
	if c == Source {
		return "source"
	}
	var names []string
	for _, n := range []struct {
		c    Class
		name string
	}{{Test, "test"}, {Doc, "doc"}, {ThirdParty, "third-party"}, {Generated, "generated"}, {BuildOutput, "build-output"}, {BuildScript, "build-script"}} {
		if c.Has(n.c) {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, "+")
}

// IsTest reports whether a path looks like a test file or test data, by the
// conventions of the supported languages and their test frameworks.
func IsTest(p string) bool {
	base := path.Base(p)
	// Go builds only _test.go files as tests: its test_helpers.go is the
	// package's own code (gin's CreateTestContext for its users).
	goFile := strings.HasSuffix(base, ".go")
	return strings.HasSuffix(base, "_test.go") || (strings.HasPrefix(base, "test_") && !goFile) ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasSuffix(strings.TrimSuffix(base, path.Ext(base)), "_test") ||
		testFiles[base] || strings.HasSuffix(base, "_spec.rb") ||
		strings.Contains("/"+p, "/testdata/") || testsDir(p) ||
		isTestSupport(p)
}

// testsDir reports a path under a directory named test or tests, in any
// case: SwiftPM's and many .NET and C++ projects' Tests/ as Python's
// tests/.
func testsDir(p string) bool {
	lp := strings.ToLower("/" + p)
	return strings.Contains(lp, "/tests/") || strings.Contains(lp, "/test/")
}

// testFiles are files of test code by their whole name: pytest's shared
// fixtures and RSpec's set-up.
var testFiles = map[string]bool{"conftest.py": true, "spec_helper.rb": true, "rails_helper.rb": true}

// testSupportDirs name directories of code that only tests use, whatever
// its files are called: helpers, mocks, fakes, fixtures, Jest's test, mock
// and fixture directories, Gradle's testFixtures, end-to-end suites and
// benchmarks (Cargo's benches/, a project's benchmarks/: code that
// exercises the library, not where its behaviour lives). Held-out
// projects' test utilities ranked above the code a change was about
// (issue 18), and benchmark harnesses, which spell out
// whole command lines and APIs, outranked it on the Rust and TypeScript dev
// cases. "testing" is not among them: it is a library's own package as often
// (Go's testing, a framework's test helpers for its users).
var testSupportDirs = map[string]bool{
	"testutil": true, "testutils": true, "testhelper": true, "testhelpers": true, "test_helpers": true,
	"mock": true, "mocks": true, "fake": true, "fakes": true, "fixtures": true,
	"__tests__": true, "__mocks__": true, "__fixtures__": true, "testfixtures": true, "e2e": true,
	"bench": true, "benches": true, "benchmark": true, "benchmarks": true,
}

// isTestSupport reports a path under a testSupportDirs directory or a
// directory named as tests (testDir), or a mock by its file name
// (mock_store.go, store_mock.go).
func isTestSupport(p string) bool {
	if underDir(p, func(d string) bool { return testSupportDirs[strings.ToLower(d)] || testDir(d) }) {
		return true
	}
	if specLanguage(p) && underDir(p, func(d string) bool { d = strings.ToLower(d); return d == "spec" || d == "specs" }) {
		return true
	}
	base := path.Base(p)
	stem := strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))
	return strings.HasPrefix(stem, "mock_") || strings.HasSuffix(stem, "_mock")
}

// specLanguage reports JavaScript, TypeScript and Ruby, whose test
// frameworks (Jasmine, Mocha, RSpec) keep tests under spec/: there a spec
// directory is tests (express's spec/ ranked above lib/ on the JavaScript
// checks), elsewhere it is as often an API's specification (go-zero's
// tools/goctl/api/spec).
func specLanguage(p string) bool {
	return isScript(p) || strings.EqualFold(path.Ext(p), ".rb")
}

// isScript reports a JavaScript or TypeScript file by its extension.
func isScript(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return true
	}
	return false
}

// testDir reports a directory named as tests by its last word (Gradle's
// androidTest and integrationTest source sets, a .NET Foo.Tests project,
// runtime-tests, integration_tests) or as test support by its first
// (test-utils, test_support). A word inside a name does not count: a test
// framework's own packages (jest-test-result) are its source.
func testDir(d string) bool {
	for i := len(d) - 1; i > 0; i-- {
		switch {
		case d[i] == '-' || d[i] == '_' || d[i] == '.':
			if w := strings.ToLower(d[i+1:]); w == "test" || w == "tests" {
				return true
			}
		case d[i] == 'T' && d[i-1] >= 'a' && d[i-1] <= 'z':
			if w := d[i:]; w == "Test" || w == "Tests" {
				return true
			}
		}
	}
	if i := strings.IndexAny(d, "-_"); i > 0 {
		if w := strings.ToLower(d[:i]); w == "test" || w == "tests" {
			return true
		}
	}
	return false
}

// IsDoc reports documentation and examples.
func IsDoc(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".markdown" || strings.Contains("/"+p, "/docs/") ||
		strings.Contains("/"+p, "/example/") || strings.Contains("/"+p, "/examples/")
}

// IsDeclarationFile reports a TypeScript declaration file (x.d.ts, .d.mts,
// .d.cts): the types of an API whose behaviour is implemented elsewhere,
// in the JavaScript beside it or in a package. A library written in
// JavaScript keeps its whole API in one (axios's index.d.ts), and it
// matched the words of a change to that API's behaviour as well as the
// implementation did, so it outranked the file the change was in (a
// quarter of the JavaScript commit checks, docs/EVAL.md, stop 35).
func IsDeclarationFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	return strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".d.mts") || strings.HasSuffix(base, ".d.cts")
}

// IsBuildScript reports a script or configuration file that builds,
// packages or runs a project's tasks: Python's setup.py and its kin, task
// runners' files (nox, Fabric, Paver, Mage, gulp, Grunt), the x.config.js
// of JavaScript's tools (webpack, rollup, vite, jest), Gradle's Kotlin
// scripts (build.gradle.kts, settings.gradle.kts) and Swift's package
// manifest (Package.swift). Such a file names
// the project's modules, dependencies and version, so it matched the words
// of changes to them (requests' setup.py was among the first three files
// for 17 of 250 dev cases; coil's build.gradle.kts was first for 20 of 150
// Kotlin cases) without being where their behaviour lives.
func IsBuildScript(p string) bool {
	base := strings.ToLower(path.Base(p))
	if buildScripts[base] || strings.HasSuffix(base, ".gradle.kts") {
		return true
	}
	if !isScript(base) {
		return false
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasSuffix(stem, ".config") || stem == "gulpfile" || stem == "gruntfile"
}

// buildScripts are build and task scripts by their whole (lower-cased) name.
var buildScripts = map[string]bool{
	"setup.py": true, "ez_setup.py": true, "distribute_setup.py": true, "noxfile.py": true,
	"fabfile.py": true, "pavement.py": true, "magefile.go": true, "package.swift": true,
}

// IsThirdParty reports code that is most likely a copy of someone else's:
// under extern/ or external/, or a Python package vendored under a
// packages/ directory (requests/packages/urllib3). Vendor directories
// proper are not indexed at all unless configured.
func IsThirdParty(p string) bool {
	s := "/" + p
	if strings.Contains(s, "/extern/") || strings.Contains(s, "/external/") {
		return true
	}
	return strings.HasSuffix(p, ".py") && strings.Contains(s, "/packages/")
}

// IsBuildOutput reports a JavaScript or TypeScript file under a directory
// named as a build's output: dist, or a dist of some kind (deno_dist,
// dist-esm). In that ecosystem dist/ is what a compiler or bundler wrote
// from the source beside it, so every match in it repeats a match in the
// source (hono's deno_dist/ outranked src/ on the dev cases). Only for
// those languages: Go's cmd/dist is the source of a tool.
func IsBuildOutput(p string) bool {
	if !isScript(p) {
		return false
	}
	return underDir(p, func(d string) bool {
		d = strings.ToLower(d)
		return d == "dist" || strings.HasPrefix(d, "dist-") || strings.HasPrefix(d, "dist_") ||
			strings.HasSuffix(d, "-dist") || strings.HasSuffix(d, "_dist")
	})
}

// underDir reports whether a directory on a slash-separated path (not its
// file name) satisfies named.
func underDir(p string, named func(dir string) bool) bool {
	dir, _ := path.Split(p)
	for _, d := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if d != "" && named(d) {
			return true
		}
	}
	return false
}

// IsGenerated recognises generated code by its header: the comments before
// the file's first line of code, within its first 2 KB. Text after the
// header never counts: a generator's own source spells the header it writes
// in a string (goctl's route template held "// Code generated by goctl. DO
// NOT EDIT.", and the file was taken for generated and never parsed). The
// markers are Go's "Code generated ... DO NOT EDIT." line (go help
// generate), "@generated" on a line comment (prost, Relay, Cargo), and a
// comment saying the file was generated in a header that says not to edit
// it: the protocol buffer compiler's "Generated by ... DO NOT EDIT!" for
// Python, Java and C++, an older protoc-gen-go's "DO NOT EDIT!" on a line of
// its own, Thrift's and OpenAPI Generator's banners.
func IsGenerated(src []byte) bool {
	head := src
	if len(head) > 2048 {
		head = head[:2048]
	}
	var said, doNotEdit bool // the header says generated; says do not edit
	var block string         // the closing delimiter of an open block comment
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case block != "":
			if bytes.Contains(line, []byte(block)) {
				block = ""
			}
		case len(line) == 0:
			continue
		case bytes.HasPrefix(line, []byte("//")) || bytes.HasPrefix(line, []byte("#")) || bytes.HasPrefix(line, []byte("--")) || bytes.HasPrefix(line, []byte(";")):
			if bytes.Contains(line, []byte("Code generated")) && bytes.Contains(line, []byte("DO NOT EDIT")) ||
				bytes.Contains(line, []byte("@generated")) {
				return true
			}
		default:
			opens := false
			for _, d := range blockComments {
				if bytes.HasPrefix(line, []byte(d.open)) {
					opens = true
					if !bytes.Contains(line[len(d.open):], []byte(d.close)) {
						block = d.close
					}
					break
				}
			}
			if !opens {
				return said && doNotEdit // the first line of code ends the header
			}
		}
		lower := bytes.ToLower(line)
		said = said || bytes.Contains(lower, []byte("generated"))
		doNotEdit = doNotEdit || bytes.Contains(lower, []byte("do not edit"))
	}
	return said && doNotEdit
}

// blockComments are the delimiters of the comment blocks a header may
// hold: C's, HTML's, and Python's docstrings.
var blockComments = []struct{ open, close string }{{"/*", "*/"}, {"<!--", "-->"}, {`"""`, `"""`}, {"'''", "'''"}}
