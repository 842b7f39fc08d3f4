package index

import (
	"fmt"
	"path"
	"strings"

	"github.com/ctxls/ctxls/store"
	"github.com/ctxls/ctxls/symbols"
)

// importScoped reports whether a language's references resolve by what each
// file defines and imports (decision 0111) rather than by the preference
// order of resolve: in Python and JavaScript/TypeScript a name reaches
// another module only through an import, in Java another package's class
// too, in Rust another module's item through `use` or a path.
func importScoped(lang string) bool {
	switch lang {
	case "python", "javascript", "typescript", "tsx", "java", "rust":
		return true
	}
	return false
}

// binding is what an import brings into a file's scope under one local
// name: a module (name "") or one name defined in a module. file is the
// module's file, "" when it is outside the workspace (the standard library,
// a package): such a name binds nothing, however many workspace
// definitions share it.
type binding struct {
	file string
	name string
	// parent is the class of a Java static import's member.
	parent string
}

// addImportScope records, for an import-scoped language, the bindings of
// one import reference and sets its target file.
func (r *resolver) addImportScope(sc *fileScope, ref *store.Ref) {
	target := r.files.resolveImport(sc.lang, sc.path, ref.Name)
	ref.DstID = r.files.paths[target]
	if sc.bound == nil {
		sc.bound = map[string]binding{}
	}
	local, name := symbols.SplitImportQualifier(ref.Qualifier)
	switch {
	case sc.lang == "java":
		r.addJavaImport(sc, ref.Name, name, target)
	case name == symbols.ImportAll:
		if target != "" {
			sc.stars = append(sc.stars, target)
		}
	case name != "":
		b := binding{file: target, name: name}
		// `from pkg import mod` imports a module when pkg has one of the
		// name, else a name pkg defines.
		switch sc.lang {
		case "python":
			if sub := r.files.resolveImport("python", sc.path, pyJoin(ref.Name, name)); sub != "" {
				b = binding{file: sub}
			}
		case "rust": // `use crate::a::b` imports module b or item b of a
			if sub := r.files.resolveImport("rust", sc.path, ref.Name+"::"+name); sub != "" {
				b = binding{file: sub}
			}
		}
		sc.bound[local] = b
	case local != "":
		sc.bound[local] = binding{file: target}
	case sc.lang == "python":
		// `import a.b` binds a, through which a.b is reached as "a.b".
		sc.bound[ref.Name] = binding{file: target}
		if head, _, dotted := strings.Cut(ref.Name, "."); dotted {
			if _, seen := sc.bound[head]; !seen {
				sc.bound[head] = binding{file: r.files.resolveImport("python", sc.path, head)}
			}
		}
	}
	if target != "" {
		if sc.reach == nil {
			sc.reach = map[string]bool{}
		}
		sc.reach[target] = true
	}
}

// resolveRustPath binds a Rust path call, a::b::f() or T::f() (the
// qualifier "a.b" or "T", first element head): a function of the module the
// path names, from the crate root, self, super, a module the file uses, a
// child module or another crate of the workspace; else a method of the type
// the path names, which Rust lets any file of its crate implement: of the
// type's own file, else of the one file of the crate that implements a
// method of that name for a type so named.
func (r *resolver) resolveRustPath(ref *store.Ref, sc *fileScope, cands []*def, ok kindSet, head, rest string) int64 {
	segs := strings.Split(ref.Qualifier, ".")
	from := sc.path
	if b, imported := sc.bound[head]; imported {
		if b.name != "" { // a type the file uses
			if rest != "" {
				return 0
			}
			// Where it is declared: a crate's lib.rs often re-exports
			// its modules' types (`pub use builder::Command`).
			if d := r.defByID(b.name, r.memberAt(b, typeLike, ref.SrcID, 0)); d != nil {
				b.file = d.file.path
			}
			return r.rustMethod(cands, b.file, b.name)
		}
		from, segs = b.file, append([]string{"self"}, segs[1:]...)
	}
	if f := r.files.rustModule(from, segs); f != "" {
		return r.member(binding{file: f, name: ref.Name}, ok, ref.SrcID)
	}
	if rest != "" {
		// a::T::f(): a method of type T of module a.
		if f := r.files.rustModule(from, segs[:len(segs)-1]); f != "" {
			return r.rustMethod(cands, f, segs[len(segs)-1])
		}
		return 0
	}
	// A type of this file's module (or a child of it).
	return r.rustMethod(cands, sc.path, head)
}

// defByID returns the definition of a name with an id, nil when there is
// none.
func (r *resolver) defByID(name string, id int64) *def {
	ds := r.defs[name]
	for i := range ds {
		if ds[i].id == id {
			return &ds[i]
		}
	}
	return nil
}

// rustMethod returns typ's method among cands: in file, else in the one
// file of file's crate that has one.
func (r *resolver) rustMethod(cands []*def, file, typ string) int64 {
	if t := r.filter(cands, func(d *def) bool { return d.file.path == file && d.parent == typ }); len(t) > 0 {
		return pick(t, false)
	}
	root := r.files.crateRoot(file)
	if root == "" {
		return 0
	}
	t := r.filter(cands, func(d *def) bool { return d.parent == typ && strings.HasPrefix(d.file.path, root+"/") })
	if len(t) == 0 {
		return 0
	}
	for _, d := range t[1:] {
		if d.file != t[0].file {
			return 0
		}
	}
	return pick(t, false)
}

// addJavaImport binds what a Java import brings in: `import a.b.C` the
// class C (of a/b/C.java, nothing when that is not in the workspace),
// `import static a.b.C.m` C's member m, `import a.b.*` every class of the
// package's directory.
func (r *resolver) addJavaImport(sc *fileScope, spec, name, target string) {
	last := spec[strings.LastIndexByte(spec, '.')+1:]
	switch name {
	case "":
		sc.bound[last] = binding{file: target, name: last}
	case symbols.ImportAll:
		dir := r.javaPackageDir(spec)
		if dir == "" {
			return
		}
		ps, _ := r.files.dirs(dir)
		for _, p := range ps {
			if jvmSource(p) {
				sc.stars = append(sc.stars, p)
			}
		}
	default:
		sc.bound[name] = binding{file: target, name: name, parent: last}
	}
}

// jvmSource reports a Java or Kotlin file: a Java package's classes may be
// either (decision 0128).
func jvmSource(p string) bool { return strings.HasSuffix(p, ".java") || strings.HasSuffix(p, ".kt") }

// samePackageDir reports whether two directories hold one JVM package: the
// same directory, or the same path under a module's java and kotlin source
// roots (src/main/java/a/b and src/main/kotlin/a/b), where Gradle projects
// keep the two languages of one package. It allocates nothing: Java's
// same-package rule asks it of every definition of a name.
func samePackageDir(a, b string) bool {
	if a == b {
		return true
	}
	aBefore, aAfter, aRoot := cutSourceRoot(a)
	bBefore, bAfter, bRoot := cutSourceRoot(b)
	return aRoot != "" && bRoot != "" && aRoot != bRoot && aBefore == bBefore && aAfter == bAfter
}

// cutSourceRoot splits dir at its first path segment named java or kotlin:
// the path before it, the path after it, and the segment ("" when there
// is none).
func cutSourceRoot(dir string) (before, after, root string) {
	for start := 0; start < len(dir); {
		end := strings.IndexByte(dir[start:], '/')
		if end < 0 {
			end = len(dir)
		} else {
			end += start
		}
		if seg := dir[start:end]; seg == "java" || seg == "kotlin" {
			return strings.TrimSuffix(dir[:start], "/"), strings.TrimPrefix(dir[end:], "/"), seg
		}
		start = end + 1
	}
	return "", "", ""
}

// javaPackageDir returns the directory of the workspace that holds a Java
// package ("a.b" → "src/main/java/a/b"), "" when none does; the closest to
// the root when several do.
func (r *resolver) javaPackageDir(pkg string) string {
	if dir, ok := r.javaDirs[pkg]; ok {
		return dir
	}
	if r.javaDirs == nil {
		r.javaDirs = map[string]string{}
	}
	suffix := strings.ReplaceAll(pkg, ".", "/")
	best := ""
	for p := range r.files.paths {
		d := path.Dir(p)
		if jvmSource(p) && (d == suffix || strings.HasSuffix(d, "/"+suffix)) && (best == "" || len(d) < len(best) || len(d) == len(best) && d < best) {
			best = d
		}
	}
	r.javaDirs[pkg] = best
	return best
}

// pySubmodule returns the file of the module rest ("sub.mod") names inside
// the package whose __init__.py is pkg, "" when there is none.
func (fs *fileSet) pySubmodule(pkg, rest string) string {
	file := pkg
	for _, name := range strings.Split(rest, ".") {
		if path.Base(file) != "__init__.py" {
			return ""
		}
		dir := path.Dir(file)
		switch {
		case fs.paths[dir+"/"+name+".py"] != 0:
			file = dir + "/" + name + ".py"
		case fs.paths[dir+"/"+name+"/__init__.py"] != 0:
			file = dir + "/" + name + "/__init__.py"
		default:
			return ""
		}
	}
	return file
}

// pyJoin names a module's member module: "pkg" + "mod" → "pkg.mod", "." +
// "mod" → ".mod".
func pyJoin(mod, name string) string {
	if strings.HasSuffix(mod, ".") {
		return mod + name
	}
	return mod + "." + name
}

// resolveScoped binds a reference of an import-scoped language by the
// file's scope (decision 0111). A bare name is a top-level definition of the
// file, else what an import bound to the name (nothing when the module is
// outside the workspace), else a top-level definition of a module imported
// with `*`; never a method, and never a definition elsewhere that nothing
// brings into scope. A qualified name is a member of the module or class
// the qualifier names (self, cls and this are rewritten by extraction to
// the enclosing class); on an operand of unknown type it stays unresolved.
func (r *resolver) resolveScoped(ref *store.Ref, sc *fileScope, cands []*def, ok kindSet) int64 {
	q := ref.Qualifier
	java := sc.lang == "java"
	if q == "" {
		// A Java method calls its class's methods by their bare name.
		if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID && (d.kind != kindMethod || java) }); len(t) > 0 {
			return pick(t, true)
		}
		if b, imported := sc.bound[ref.Name]; imported {
			if b.name == "default" {
				b.name = ref.Name
			}
			return r.member(b, ok, ref.SrcID)
		}
		for _, f := range sc.stars {
			if id := r.member(binding{file: f, name: ref.Name}, ok, ref.SrcID); id != 0 {
				return id
			}
		}
		if java { // a class of the same package
			return pick(r.filter(cands, func(d *def) bool { return samePackageDir(d.file.dir, sc.dir) && d.parent == "" }), true)
		}
		return 0
	}
	head, rest, _ := strings.Cut(q, ".")
	if sc.lang == "rust" {
		if b, imported := sc.bound[head]; imported && b.file == "" {
			return 0 // an item of a crate outside the workspace
		}
		if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID && d.parent == q }); len(t) > 0 {
			return pick(t, false)
		}
		return r.resolveRustPath(ref, sc, cands, ok, head, rest)
	}
	if b, imported := sc.bound[q]; imported {
		if b.file == "" {
			return 0
		}
		if b.name == "" { // a module: one of its top-level definitions
			return r.member(binding{file: b.file, name: ref.Name}, ok, ref.SrcID)
		}
		if b.name == "default" {
			b.name = q
		}
		// An imported class: one of its methods, in the file that
		// declares it (a package may re-export it).
		if d := r.defByID(b.name, r.memberAt(b, typeLike, ref.SrcID, 0)); d != nil {
			b.file = d.file.path
		}
		return pick(r.filter(cands, func(d *def) bool { return d.file.path == b.file && d.parent == b.name }), false)
	}
	if b, imported := sc.bound[head]; imported && b.file == "" {
		return 0 // a member of something outside the workspace
	} else if imported && b.name == "" && sc.lang == "python" {
		// pkg.sub.f() after `import pkg`: a function of the submodule.
		if f := r.files.pySubmodule(b.file, rest); f != "" {
			return r.member(binding{file: f, name: ref.Name}, ok, ref.SrcID)
		}
	}
	if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID && d.parent == q }); len(t) > 0 {
		return pick(t, false)
	}
	if java { // a static member of a class of the same package
		return pick(r.filter(cands, func(d *def) bool { return samePackageDir(d.file.dir, sc.dir) && d.parent == q }), false)
	}
	// Anything else is an operand whose type the file does not state: a
	// method of that name in reach was most often another type's (a dict's
	// get bound to the one get a workspace class defines), so none is
	// guessed.
	return 0
}

// maxReexports bounds how many modules member follows a name through:
// re-export chains are short, and a cycle of imports must end.
const maxReexports = 4

// member returns the top-level definition b names in its module's file, or
// 0. A name the module does not define but imports (a package's
// __init__.py or index.ts re-exporting its modules' names, `export { f }
// from "./m"`) is followed to the module it comes from.
func (r *resolver) member(b binding, ok kindSet, self int64) int64 {
	return r.memberAt(b, ok, self, 0)
}

// memberAt is member after depth modules followed: a chain longer than
// maxReexports, or a cycle (two modules importing each other with `*`),
// ends unresolved.
func (r *resolver) memberAt(b binding, ok kindSet, self int64, depth int) int64 {
	if b.file == "" || b.name == "" || depth > maxReexports {
		return 0
	}
	// A module's top-level definition, or a Java static import's member
	// of its class.
	in := func(d *def) bool {
		return d.file.path == b.file && ok.has(d.kind) && d.id != self &&
			(b.parent == "" && d.kind != kindMethod || b.parent != "" && d.parent == b.parent)
	}
	if t := r.filter(r.ptrs(r.defs[b.name]), in); len(t) > 0 {
		return pick(t, true)
	}
	if b.parent != "" {
		return 0
	}
	sc := r.scopeOf(b.file)
	if sc == nil {
		return 0
	}
	if next, imported := sc.bound[b.name]; imported {
		if next.name == "default" {
			next.name = b.name
		}
		return r.memberAt(next, ok, self, depth+1)
	}
	for _, f := range sc.stars {
		if id := r.memberAt(binding{file: f, name: b.name}, ok, self, depth+1); id != 0 {
			return id
		}
	}
	return 0
}

// ptrs returns pointers to ds in a buffer of its own, which the next call
// reuses: resolve's candidates (r.cands) are still in use.
func (r *resolver) ptrs(ds []def) []*def {
	out := r.members[:0]
	for i := range ds {
		out = append(out, &ds[i])
	}
	r.members = out
	return out
}

// scopeOf returns the scope of the file at p: the one this run built, else
// one built from its stored imports; nil when there is none.
func (r *resolver) scopeOf(p string) *fileScope {
	id := r.files.paths[p]
	if id == 0 {
		return nil
	}
	if sc := r.byFile[id]; sc != nil {
		return sc
	}
	lang, ok := symbols.LanguageFor(p)
	if r.load == nil || !ok || !importScoped(lang.Name) {
		return nil
	}
	refs, err := r.load(id)
	if err != nil {
		if r.loadErr == nil {
			r.loadErr = fmt.Errorf("imports of %s: %w", p, err)
		}
		return nil
	}
	r.addScope(id, p, lang.Name, importRefs(refs))
	return r.byFile[id]
}

// importRefs returns the import references of refs.
func importRefs(refs []store.Ref) []store.Ref {
	var out []store.Ref
	for _, ref := range refs {
		if ref.Kind == store.RefImports {
			out = append(out, ref)
		}
	}
	return out
}
