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
// too.
func importScoped(lang string) bool {
	switch lang {
	case "python", "javascript", "typescript", "tsx", "java":
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
		if sc.lang == "python" {
			if sub := r.files.resolveImport("python", sc.path, pyJoin(ref.Name, name)); sub != "" {
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
			if strings.HasSuffix(p, ".java") {
				sc.stars = append(sc.stars, p)
			}
		}
	default:
		sc.bound[name] = binding{file: target, name: name, parent: last}
	}
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
		if strings.HasSuffix(p, ".java") && (d == suffix || strings.HasSuffix(d, "/"+suffix)) && (best == "" || len(d) < len(best) || len(d) == len(best) && d < best) {
			best = d
		}
	}
	r.javaDirs[pkg] = best
	return best
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
			return pick(r.filter(cands, func(d *def) bool { return d.file.dir == sc.dir && d.parent == "" }), true)
		}
		return 0
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
		// An imported class: one of its methods.
		return pick(r.filter(cands, func(d *def) bool { return d.file.path == b.file && d.parent == b.name }), false)
	}
	head, _, _ := strings.Cut(q, ".")
	if b, imported := sc.bound[head]; imported && b.file == "" {
		return 0 // a member of something outside the workspace
	}
	if t := r.filter(cands, func(d *def) bool { return d.file.id == ref.FileID && d.parent == q }); len(t) > 0 {
		return pick(t, false)
	}
	if java { // a static member of a class of the same package
		return pick(r.filter(cands, func(d *def) bool { return d.file.dir == sc.dir && d.parent == q }), false)
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
	for range maxReexports {
		if b.file == "" || b.name == "" {
			return 0
		}
		// A module's top-level definition, or a Java static import's
		// member of its class.
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
		next, imported := sc.bound[b.name]
		if !imported {
			for _, f := range sc.stars {
				if id := r.member(binding{file: f, name: b.name}, ok, self); id != 0 {
					return id
				}
			}
			return 0
		}
		if next.name == "default" {
			next.name = b.name
		}
		b = next
	}
	return 0
}

// ptrs returns pointers to ds in the resolver's candidate buffer.
func (r *resolver) ptrs(ds []def) []*def {
	out := r.cands[:0]
	for i := range ds {
		out = append(out, &ds[i])
	}
	r.cands = out
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
