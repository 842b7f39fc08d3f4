package index

import (
	"cmp"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// resolver binds reference names to definitions with a scope preference:
// same file, same directory (package), imported packages, then a unique
// definition anywhere. Ambiguity is left unresolved rather than guessed: a
// wrong edge misleads ranking more than a missing one.
type resolver struct {
	// defs holds every definition by name, each name's in id order so
	// that a choice among equals does not depend on the order the store
	// returned them in (sortDefs).
	defs   map[string][]def
	files  *fileSet
	byFile map[int64]*fileScope
	// defFiles holds what resolution asks of a defining file, once per
	// file; parents interns the names of enclosing types. A kernel has
	// millions of definitions: a path string per definition was most of
	// the memory of a cold index.
	defFiles map[int64]*defFile
	parents  map[string]string
	// cands and tier are resolve's scratch buffers: a resolver is used by
	// one goroutine.
	cands, tier []*def
	members     []*def // member's buffer
	// load reads a file's stored references, for the scope of a file no
	// file of the run had (scopeOf); loadErr is its first error.
	load    func(fileID int64) ([]store.Ref, error)
	loadErr error
	// javaDirs caches the directory of each Java package a wildcard
	// import names.
	javaDirs map[string]string
}

// def is a definition as the resolver keeps it; its name is its key in
// resolver.defs.
type def struct {
	id     int64
	file   *defFile
	parent string // enclosing type for methods, "" for top-level
	kind   defKind
}

// defFile is the file of one or more definitions.
type defFile struct {
	id   int64
	path string
	dir  string
	// family is the file's language family: a JavaScript call to filter()
	// never names a Go method called filter.
	family string
}

// defKind is an entity kind as resolution tells kinds apart.
type defKind uint8

const (
	kindOther defKind = iota
	kindFunction
	kindMethod
	kindClass
	kindStruct
	kindType
	kindConstant
	kindInterface
	kindEnum
	kindModule
)

var defKinds = map[string]defKind{
	"function": kindFunction, "method": kindMethod, "class": kindClass, "struct": kindStruct, "type": kindType,
	"constant": kindConstant, "interface": kindInterface, "enum": kindEnum, "module": kindModule,
}

// kindSet is a set of defKinds.
type kindSet uint16

func kinds(ks ...defKind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kindSet) has(k defKind) bool { return k != kindOther && s&(1<<k) != 0 }

// fileScope is what one file imports.
type fileScope struct {
	path    string
	dir     string
	lang    string
	family  string            // language family: references resolve only within it
	aliases map[string]string // import alias → directory of the imported code
	dirs    map[string]bool   // directories of everything imported
	dot     map[string]bool   // directories of Go dot imports
	// bound, stars and reach are the scope of an import-scoped language
	// (importScoped): local name → what an import bound to it, the files
	// imported with `*`, and every imported file.
	bound map[string]binding
	stars []string
	reach map[string]bool
}

// fileSet answers path questions for import resolution. Its indexes by base
// name and by directory are built on first use: a re-index of one file
// often needs neither (a Go file's imports need only directories), and
// building them for every tracked path cost more than that file's parse.
type fileSet struct {
	paths map[string]int64 // path → file id
	// module is the module path of the workspace root's go.mod, "" without
	// one: it decides which Go import paths name workspace packages.
	module string
	// rootCrate is the package name of the root's Cargo.toml, "" without
	// one: `use NAME::…` in its tests names the workspace's own crate.
	rootCrate string
	baseIndex map[string][]string // base name → paths; see byBase
	dirIndex  map[string][]string // dir → paths, sorted; see dirs
	idIndex   map[int64]string    // file id → path; see pathOf
}

func newFileSet(paths map[string]int64) *fileSet {
	return &fileSet{paths: paths}
}

// pathsChanged drops the indexes built over paths, after paths gained or
// lost a file.
func (fs *fileSet) pathsChanged() {
	fs.baseIndex, fs.dirIndex, fs.idIndex = nil, nil, nil
}

// pathOf returns the path of the file with id, "" for none.
func (fs *fileSet) pathOf(id int64) string {
	if fs.idIndex == nil {
		fs.idIndex = make(map[int64]string, len(fs.paths))
		for p, id := range fs.paths {
			fs.idIndex[id] = p
		}
	}
	return fs.idIndex[id]
}

// byBase returns the paths with a base name.
func (fs *fileSet) byBase(base string) []string {
	if fs.baseIndex == nil {
		fs.baseIndex = map[string][]string{}
		for p := range fs.paths {
			b := path.Base(p)
			fs.baseIndex[b] = append(fs.baseIndex[b], p)
		}
		// Sorted, as tail keeps the first of paths equally close: in map
		// order an #include that two headers match resolved to either,
		// and two runs over one tree to different indexes (decision 0107).
		for _, ps := range fs.baseIndex {
			sort.Strings(ps)
		}
	}
	return fs.baseIndex[base]
}

// dirs returns the paths in a directory, sorted, and whether it has any.
func (fs *fileSet) dirs(dir string) ([]string, bool) {
	if fs.dirIndex == nil {
		fs.dirIndex = map[string][]string{}
		for p := range fs.paths {
			d := path.Dir(p)
			fs.dirIndex[d] = append(fs.dirIndex[d], p)
		}
		for _, ps := range fs.dirIndex {
			sort.Strings(ps)
		}
	}
	ps, ok := fs.dirIndex[dir]
	return ps, ok
}

// tail returns the known path ending with suffix that is closest to from.
func (fs *fileSet) tail(suffix, from string) string {
	if _, ok := fs.paths[suffix]; ok {
		return suffix
	}
	best, bestScore := "", -1
	for _, p := range fs.byBase(path.Base(suffix)) {
		if !strings.HasSuffix(p, "/"+suffix) {
			continue
		}
		if s := commonPrefix(p, from); s > bestScore {
			best, bestScore = p, s
		}
	}
	return best
}

// pyTail returns the known path of an absolute Python module (rel, as
// "pkg/mod.py") closest to from, where the directory above the module's top
// package is not itself a package: `import json` is not a workspace's
// pkg/json.py, which Python knows only as pkg.json.
func (fs *fileSet) pyTail(rel, from string) string {
	best, bestScore := "", -1
	for _, p := range fs.byBase(path.Base(rel)) {
		prefix, ok := strings.CutSuffix(p, rel)
		if !ok || (prefix != "" && !strings.HasSuffix(prefix, "/")) {
			continue
		}
		if prefix != "" && fs.paths[prefix+"__init__.py"] != 0 {
			continue
		}
		if s := commonPrefix(p, from); s > bestScore {
			best, bestScore = p, s
		}
	}
	return best
}

// dirFile returns a representative file of a directory: its first file that
// is not a test.
func (fs *fileSet) dirFile(dir string) string {
	ps, _ := fs.dirs(dir)
	for _, p := range ps {
		if !workspace.IsTest(p) {
			return p
		}
	}
	if len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// goDir maps a Go import path onto the workspace directory holding that
// package, or "" when the package is not in the workspace. A path under the
// root's module is that directory exactly; a vendored one is under vendor/.
// Otherwise the path maps by its longest suffix that is a directory
// ("github.com/org/repo/core/logx" → "core/logx"), for workspaces that are
// several modules, a GOPATH or a copy of part of GOROOT. Inside a module
// (other than GOROOT's "std") a standard-library path is never a workspace
// directory: the module's errors/ is not package "errors".
func (fs *fileSet) goDir(importPath string) string {
	if m := fs.module; m != "" && m != "std" {
		if importPath == m {
			if _, ok := fs.dirs("."); ok {
				return "."
			}
			return ""
		}
		if rest, ok := strings.CutPrefix(importPath, m+"/"); ok {
			if _, ok := fs.dirs(rest); ok {
				return rest
			}
			return ""
		}
	}
	if _, ok := fs.dirs("vendor/" + importPath); ok {
		return "vendor/" + importPath
	}
	// Inside a module, a package outside it is the standard library or a
	// dependency, whose last element alone ("errors" of
	// github.com/pkg/errors) says nothing: at least two must match.
	last := 0
	if m := fs.module; m != "" && m != "std" {
		if first, _, _ := strings.Cut(importPath, "/"); !strings.Contains(first, ".") {
			return ""
		}
		last = 1
	}
	parts := strings.Split(importPath, "/")
	for i := 0; i < len(parts)-last; i++ {
		d := strings.Join(parts[i:], "/")
		if _, ok := fs.dirs(d); ok {
			return d
		}
	}
	return ""
}

// goModule returns the module path the go.mod at root declares, "" when
// there is none or it cannot be read: imports then map by suffix alone.
func goModule(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

var jsExts = []string{"", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"}

// resolveImport returns the workspace file an import statement names, or "".
func (fs *fileSet) resolveImport(lang, from, spec string) string {
	dir := path.Dir(from)
	switch lang {
	case "go":
		if d := fs.goDir(spec); d != "" {
			return fs.dirFile(d)
		}
	case "javascript", "typescript", "tsx":
		if strings.HasPrefix(spec, ".") {
			base := path.Join(dir, spec)
			for _, ext := range jsExts {
				if _, ok := fs.paths[base+ext]; ok {
					return base + ext
				}
			}
			// TypeScript's ESM imports name the emitted file: "./x.js" is
			// x.ts.
			if stem, ok := strings.CutSuffix(base, ".js"); ok {
				for _, ext := range []string{".ts", ".tsx"} {
					if _, ok := fs.paths[stem+ext]; ok {
						return stem + ext
					}
				}
			}
		}
	case "python":
		rel := spec
		base := ""
		if strings.HasPrefix(spec, ".") {
			n := len(spec) - len(strings.TrimLeft(spec, "."))
			base = dir
			for i := 1; i < n; i++ {
				base = path.Dir(base)
			}
			rel = spec[n:]
		}
		mod := strings.ReplaceAll(rel, ".", "/")
		for _, cand := range []string{mod + ".py", mod + "/__init__.py"} {
			if base != "" {
				if _, ok := fs.paths[path.Join(base, cand)]; ok {
					return path.Join(base, cand)
				}
				continue
			}
			if p := fs.pyTail(cand, from); p != "" {
				return p
			}
		}
	case "c", "cpp":
		if p := path.Join(dir, spec); fs.paths[p] != 0 {
			return p
		}
		return fs.tail(spec, from)
	case "java":
		// The whole package path: java.util.List is not a workspace's
		// util/List.java. A class of the project's Kotlin is in the file
		// named after it, by convention.
		if !strings.HasSuffix(spec, "*") {
			file := strings.ReplaceAll(spec, ".", "/")
			if p := fs.tail(file+".java", from); p != "" {
				return p
			}
			return fs.tail(file+".kt", from)
		}
	case "rust":
		return fs.rustModule(from, strings.Split(spec, "::"))
	case "php":
		return fs.dropLeading(strings.ReplaceAll(strings.TrimPrefix(spec, `\`), `\`, "/")+".php", from)
	case "ruby":
		if strings.HasPrefix(spec, ".") {
			p := path.Join(dir, spec)
			if !strings.HasSuffix(p, ".rb") {
				p += ".rb"
			}
			if fs.paths[p] != 0 {
				return p
			}
		}
		if !strings.HasSuffix(spec, ".rb") {
			spec += ".rb"
		}
		return fs.tail(spec, from)
	}
	return ""
}

// dropLeading tries suffixes of p with leading components removed until one
// names a known file (namespaces often have a prefix the tree does not).
func (fs *fileSet) dropLeading(p, from string) string {
	for {
		if q := fs.tail(p, from); q != "" {
			return q
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[i+1:]
	}
}

func newResolver(files *fileSet) *resolver {
	return &resolver{defs: make(map[string][]def), files: files, byFile: map[int64]*fileScope{},
		defFiles: map[int64]*defFile{}, parents: map[string]string{}}
}

// addDef makes a definition available to resolve; sortDefs must follow the
// last. Definitions of kinds that no reference resolves to are not kept.
func (r *resolver) addDef(d *store.Def) {
	k := defKinds[d.Kind]
	if k == kindOther {
		return
	}
	f := r.defFiles[d.FileID]
	if f == nil {
		f = &defFile{id: d.FileID, path: d.Path, dir: path.Dir(d.Path), family: symbols.FamilyOf(d.Path)}
		r.defFiles[d.FileID] = f
	}
	parent := d.ParentName
	if parent != "" {
		if p, ok := r.parents[parent]; ok {
			parent = p
		} else {
			r.parents[parent] = parent
		}
	}
	r.defs[d.Name] = append(r.defs[d.Name], def{id: d.ID, file: f, parent: parent, kind: k})
}

// sortDefs puts each name's definitions in id order.
func (r *resolver) sortDefs() {
	for _, ds := range r.defs {
		if len(ds) > 1 {
			slices.SortFunc(ds, func(a, b def) int { return cmp.Compare(a.id, b.id) })
		}
	}
}

// addScope records a file's imports; it returns the resolved target file id
// of each import ref (0 when outside the workspace), updating refs in place.
func (r *resolver) addScope(fileID int64, filePath, lang string, refs []store.Ref) {
	sc := &fileScope{path: filePath, dir: path.Dir(filePath), lang: lang, family: symbols.FamilyOf(filePath), aliases: map[string]string{}, dirs: map[string]bool{}}
	r.byFile[fileID] = sc
	for i := range refs {
		ref := &refs[i]
		if ref.Kind != store.RefImports {
			continue
		}
		if importScoped(lang) {
			r.addImportScope(sc, ref)
			continue
		}
		target := r.files.resolveImport(lang, filePath, ref.Name)
		ref.DstID = 0
		if target == "" {
			// A Go package outside the workspace still binds its name:
			// errors.New must not be guessed from another package's New.
			if lang == "go" {
				if alias := goAlias(ref); alias != "" {
					sc.aliases[alias] = ""
				}
			}
			continue
		}
		ref.DstID = r.files.paths[target]
		tdir := path.Dir(target)
		sc.dirs[tdir] = true
		alias := ref.Qualifier
		if alias == "" {
			alias = defaultAlias(lang, ref.Name)
		}
		if alias != "" && alias != "_" && alias != "." {
			sc.aliases[alias] = tdir
		}
		if lang == "go" && alias == "." {
			if sc.dot == nil {
				sc.dot = map[string]bool{}
			}
			sc.dot[tdir] = true
		}
	}
}

// goAlias is the name a Go import binds in its file, "" for blank and dot
// imports.
func goAlias(ref *store.Ref) string {
	return symbols.GoImportName(ref.Name, ref.Qualifier)
}

// defaultAlias is the name an import binds when the statement gives none.
func defaultAlias(lang, spec string) string {
	switch lang {
	case "go":
		return symbols.GoImportName(spec, "")
	case "python":
		return spec[strings.LastIndexByte(spec, '.')+1:]
	}
	return ""
}

var (
	callable = kinds(kindFunction, kindMethod, kindClass, kindStruct, kindType, kindConstant)
	typeLike = kinds(kindClass, kindStruct, kindInterface, kindEnum, kindType, kindModule)
	goValue  = kinds(kindStruct, kindInterface, kindType, kindFunction, kindMethod)
)

// resolveGo binds a Go reference by Go's scoping: a name qualified by an
// import is looked up only in that package (and stays unresolved when the
// package is outside the workspace); a selector on an operand of a known
// type names that type's method; a bare name is one of the file's own
// package or, failing that, of a dot import. Go has no other way for a bare
// name to reach another package, so none is guessed. A selector on an
// operand whose type the file does not state (symbols.UnknownOperand)
// binds only when one method in reach has the name. Only test files reach
// definitions in test files.
func (r *resolver) resolveGo(ref *store.Ref, sc *fileScope, cands []*def) int64 {
	// A _test.go file is no part of the package that other files build.
	if !strings.HasSuffix(sc.path, "_test.go") {
		cands = append(cands[:0], r.filter(cands, func(d *def) bool { return !strings.HasSuffix(d.file.path, "_test.go") })...)
	}
	q := ref.Qualifier
	if q == "" {
		// A method is never named bare.
		cands = append(cands[:0], r.filter(cands, func(d *def) bool { return d.parent == "" })...)
		if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID }); len(t) > 0 {
			return pick(t, true)
		}
		if t := r.filter(cands, func(d *def) bool { return d.file.dir == sc.dir }); len(t) > 0 {
			return pick(t, true)
		}
		return pick(r.filter(cands, func(d *def) bool { return sc.dot[d.file.dir] }), true)
	}
	if expr, unknown := strings.CutPrefix(q, symbols.UnknownOperand); unknown {
		return r.resolveGoUnknown(expr, sc, cands)
	}
	head, rest, _ := strings.Cut(q, ".")
	if dir, isImport := sc.aliases[head]; isImport {
		if dir == "" {
			return 0
		}
		if rest == "" {
			return pick(r.filter(cands, func(d *def) bool { return d.file.dir == dir && d.parent == "" }), false)
		}
		// pkg.T: a method of type T of that package.
		return pick(r.filter(cands, func(d *def) bool { return d.file.dir == dir && d.parent == rest }), false)
	}
	if rest != "" {
		return 0 // not a type this file can name
	}
	// A type of the file's package or of a dot import.
	if t := r.filter(cands, func(d *def) bool { return d.parent == q && d.file.dir == sc.dir }); len(t) > 0 {
		return pick(t, false)
	}
	return pick(r.filter(cands, func(d *def) bool { return d.parent == q && sc.dot[d.file.dir] }), false)
}

// resolveGoUnknown binds a selector on an operand of unknown type (expr,
// its text) to the one method of the name in reach, or to none: every
// method of the name must be one type's, in the file's package or one it
// imports. An operand that is another package's variable ("pkg.Var")
// reaches only that package's methods.
func (r *resolver) resolveGoUnknown(expr string, sc *fileScope, cands []*def) int64 {
	methods := append(cands[:0], r.filter(cands, func(d *def) bool { return d.parent != "" })...)
	if head, _, ok := strings.Cut(expr, "."); ok {
		if dir, isImport := sc.aliases[head]; isImport {
			if dir == "" {
				return 0
			}
			methods = append(methods[:0], r.filter(methods, func(d *def) bool { return d.file.dir == dir })...)
		}
	}
	if len(methods) == 0 {
		return 0
	}
	first := methods[0]
	dir := first.file.dir
	for _, d := range methods[1:] {
		if d.parent != first.parent || d.file.dir != dir {
			return 0
		}
	}
	if dir != sc.dir && !sc.dirs[dir] && !sc.dot[dir] {
		return 0
	}
	return first.id
}

// resolve returns the entity a reference names, or 0.
func (r *resolver) resolve(ref *store.Ref) int64 {
	sc := r.byFile[ref.FileID]
	if sc == nil {
		return 0
	}
	all := r.defs[ref.Name]
	if len(all) == 0 && !importScoped(sc.lang) {
		return 0
	}
	ok := typeLike
	switch {
	case ref.Kind == store.RefCalls:
		ok = callable
	case sc.lang == "go" && ref.Kind == store.RefReferences:
		// A Go identifier names a type or, as a value, a function: one
		// namespace per package, so one name cannot mean both.
		ok = goValue
	}
	// Candidates are pointers into r.defs, collected in a buffer reused
	// across calls: common names have hundreds of definitions and this runs
	// once per reference.
	cands := r.cands[:0]
	for i := range all {
		if d := &all[i]; ok.has(d.kind) && d.id != ref.SrcID && d.file.family == sc.family {
			cands = append(cands, d)
		}
	}
	r.cands = cands
	if importScoped(sc.lang) {
		// An imported name may be an alias: its definitions are found
		// under the name it imports.
		return r.resolveScoped(ref, sc, cands, ok)
	}
	if len(cands) == 0 {
		return 0
	}
	if sc.lang == "go" {
		return r.resolveGo(ref, sc, cands)
	}
	q := ref.Qualifier
	if i := strings.LastIndexAny(q, ".:>"); i >= 0 {
		q = q[i+1:]
	}
	if q != "" {
		if dir, isImport := sc.aliases[q]; isImport {
			return pick(r.filter(cands, func(d *def) bool { return d.file.dir == dir && d.parent == "" }), false)
		}
		if byType := r.filter(cands, func(d *def) bool { return strings.EqualFold(d.parent, q) }); len(byType) > 0 {
			cands = append(cands[:0], byType...)
		} else if methods := r.filter(cands, func(d *def) bool { return d.parent != "" }); len(methods) > 0 {
			cands = append(cands[:0], methods...)
		}
	}
	if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID }); len(t) > 0 {
		return pick(t, q == "")
	}
	if t := r.filter(cands, func(d *def) bool { return d.file.dir == sc.dir }); len(t) > 0 {
		return pick(t, q == "")
	}
	if t := r.filter(cands, func(d *def) bool { return sc.dirs[d.file.dir] }); len(t) > 0 {
		return pick(t, q == "")
	}
	if len(cands) == 1 {
		return cands[0].id
	}
	return 0
}

// filter returns the definitions of ds that keep accepts, in a buffer that
// the next call reuses.
func (r *resolver) filter(ds []*def, keep func(*def) bool) []*def {
	out := r.tier[:0]
	for _, d := range ds {
		if keep(d) {
			out = append(out, d)
		}
	}
	r.tier = out
	return out
}

// pick chooses among candidates of one scope tier. Top-level definitions of
// the same name (build-tag variants of a function) are interchangeable;
// methods of different types are not.
func pick(cands []*def, preferTop bool) int64 {
	if len(cands) == 0 {
		return 0
	}
	if len(cands) == 1 {
		return cands[0].id
	}
	var top *def // the first top-level definition
	parent, parents := "", 0
	for _, d := range cands {
		switch {
		case d.parent == "":
			if top == nil {
				top = d
			}
		case parents == 0:
			parent, parents = d.parent, 1
		case d.parent != parent:
			parents = 2 // two or more
		}
	}
	if top != nil && (preferTop || parents == 0) {
		return top.id
	}
	if parents == 1 && top == nil {
		return cands[0].id
	}
	return 0
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
