package symbols

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// UnknownOperand starts the qualifier of a Go selector whose operand's type
// the file does not state ("?cc.mu"): the resolver binds such a selector
// only when one method in reach has the name, never by preference.
const UnknownOperand = "?"

// goTyper types Go selector operands from what one file states: the types
// of locals and package variables (declared, or of their first value),
// struct fields, declared results of functions and methods, conversions,
// composite literals and type assertions. A selector's qualifier becomes
// the operand's type ("Server", "sync.Mutex"), the package it names
// ("http"), or, when the file does not say, the operand's text after
// UnknownOperand. What another file declares is not known here. Values,
// fields and results are read from the syntax tree when a selector needs
// them, not by query patterns that would match on every file.
type goTyper struct {
	e       *extraction
	scope   map[scoped]*goLocal
	imports map[string]bool // names the file's imports bind
	// types and funcs index e.defs by a top-level type's name and by a
	// function's ("F") or method's ("Recv.M") name.
	types, funcs map[string]int
	fields       map[string]map[string]string // type → field → type, on demand
	results      map[string]string            // funcs key → first result's type, on demand
}

// goLocal is every declaration of one name in one entity.
type goLocal struct {
	decls []local
	typ   string
	state uint8 // 0: not typed yet, 1: being typed (a cycle), 2: typed
}

// maxTypeDepth bounds how deep an operand expression is followed.
const maxTypeDepth = 8

func (e *extraction) goTyper(ents []Entity) *goTyper {
	g := &goTyper{e: e, scope: map[scoped]*goLocal{}, imports: map[string]bool{},
		types: map[string]int{}, funcs: map[string]int{}, fields: map[string]map[string]string{}, results: map[string]string{}}
	for _, im := range e.f.Imports {
		if a := GoImportName(im.Path, im.Alias); a != "" {
			g.imports[a] = true
		}
	}
	for i := range e.defs {
		d := &e.defs[i]
		switch {
		case isType(ents[i].Kind) && ents[i].Parent < 0:
			g.types[d.name] = i
		case d.receiver != "":
			g.funcs[d.receiver+"."+d.name] = i
		case ents[i].Kind == KindFunction && ents[i].Parent < 0:
			g.funcs[d.name] = i
		}
	}
	// Two patterns can match one declaration, one of them with the type.
	typed := map[uint32]string{}
	for _, l := range e.locals {
		if l.typ != "" {
			typed[l.nameAt] = l.typ
		}
	}
	done := map[uint32]bool{}
	for _, l := range e.locals {
		if done[l.nameAt] || l.name == "_" {
			continue
		}
		done[l.nameAt] = true
		l.typ = typed[l.nameAt]
		from := enclosing(ents, l.at)
		if from >= 0 && ents[from].Parent < 0 && ents[from].StartByte == l.at && ents[from].Name == l.name {
			from = -1 // a package-level var: its own entity encloses it
		}
		k := scoped{from, l.name}
		if g.scope[k] == nil {
			g.scope[k] = &goLocal{}
		}
		g.scope[k].decls = append(g.scope[k].decls, l)
	}
	return g
}

// isLocal reports whether name is declared in entity from.
func (g *goTyper) isLocal(from int, name string) bool {
	_, ok := g.scope[scoped{from, name}]
	return ok
}

// declaredBefore reports whether name is declared in entity from by a
// declaration that ends before at: in "n := n(x)" the call is not of n.
func (g *goTyper) declaredBefore(from int, name string, at uint32) bool {
	l := g.scope[scoped{from, name}]
	if l == nil {
		return false
	}
	for _, d := range l.decls {
		if d.decl == nil || d.decl.EndByte() <= at {
			return true
		}
	}
	return false
}

// qualifier returns the qualifier a selector on operand is recorded with.
func (g *goTyper) qualifier(operand *sitter.Node, from int) string {
	if operand.Type() == "identifier" {
		name := g.e.text(operand)
		if g.scope[scoped{from, name}] == nil && g.imports[name] {
			return name
		}
	}
	if t := g.typeOf(operand, from, 0); t != "" {
		return t
	}
	q := normaliseQualifier(strings.TrimSpace(g.e.text(operand)))
	if len(q) > 80 {
		q = q[len(q)-80:]
	}
	return UnknownOperand + q
}

// typeOf returns the type of expression n in entity from, "" when the file
// does not say.
func (g *goTyper) typeOf(n *sitter.Node, from, depth int) string {
	if n == nil || depth > maxTypeDepth {
		return ""
	}
	switch n.Type() {
	case "identifier":
		return g.identType(g.e.text(n), from, depth)
	case "parenthesized_expression":
		return g.typeOf(n.NamedChild(0), from, depth+1)
	case "unary_expression":
		if op := g.e.text(n.ChildByFieldName("operator")); op == "&" || op == "*" {
			return g.typeOf(n.ChildByFieldName("operand"), from, depth+1)
		}
	case "composite_literal", "type_assertion_expression":
		return localType(g.e.text(n.ChildByFieldName("type")))
	case "selector_expression":
		x := n.ChildByFieldName("operand")
		if x == nil || g.isPackage(x, from) {
			return "" // another package's variable: its type is not here
		}
		return g.field(g.typeOf(x, from, depth+1), g.e.text(n.ChildByFieldName("field")))
	case "call_expression":
		return g.callType(n.ChildByFieldName("function"), n.ChildByFieldName("arguments"), from, depth)
	}
	return ""
}

// identType types a name: a local of from, else a package variable or a
// type (a method expression T.M) the file declares.
func (g *goTyper) identType(name string, from, depth int) string {
	if l := g.scope[scoped{from, name}]; l != nil {
		return g.localTypeOf(l, from, depth)
	}
	if g.imports[name] {
		return ""
	}
	if l := g.scope[scoped{-1, name}]; l != nil {
		return g.localTypeOf(l, -1, depth)
	}
	if _, ok := g.types[name]; ok {
		return name
	}
	return ""
}

// localTypeOf returns the type of a declared name: the same for every
// declaration of it in its entity, or "".
func (g *goTyper) localTypeOf(l *goLocal, from, depth int) string {
	switch l.state {
	case 1:
		return "" // x := x.next: typing x needs x
	case 2:
		return l.typ
	}
	l.state = 1
	typ := ""
	for i, d := range l.decls {
		t := d.typ
		if t == "" {
			t = g.typeOf(firstValue(d), from, depth+1)
		}
		if t == "" || (i > 0 && t != typ) {
			typ = ""
			break
		}
		typ = t
	}
	l.typ, l.state = typ, 2
	return typ
}

// callType types a call: a conversion to a declared type, new(T), or a
// function or method whose declaration in the file states its result.
func (g *goTyper) callType(fn, args *sitter.Node, from, depth int) string {
	if fn == nil {
		return ""
	}
	switch fn.Type() {
	case "identifier":
		name := g.e.text(fn)
		if g.declaredBefore(from, name, fn.StartByte()) {
			return "" // a function value: its result is not declared here
		}
		if name == "new" && args != nil && args.NamedChildCount() == 1 {
			return localType(g.e.text(args.NamedChild(0)))
		}
		if _, ok := g.types[name]; ok {
			return name
		}
		return g.result(name)
	case "selector_expression":
		x := fn.ChildByFieldName("operand")
		if x == nil || g.isPackage(x, from) {
			return ""
		}
		if t := g.typeOf(x, from, depth+1); t != "" && !strings.Contains(t, ".") {
			return g.result(t + "." + g.e.text(fn.ChildByFieldName("field")))
		}
		return ""
	case "parenthesized_expression":
		return localType(strings.Trim(g.e.text(fn), "()")) // (*T)(x)
	}
	return ""
}

// field returns the type of a field of a struct type this file declares
// (an embedded field is named by its type); another file's or package's
// types are not known here.
func (g *goTyper) field(typ, name string) string {
	if typ == "" || strings.Contains(typ, ".") {
		return ""
	}
	fs, ok := g.fields[typ]
	if !ok {
		fs = g.structFields(typ)
		g.fields[typ] = fs
	}
	return fs[name]
}

// structFields reads the fields of the struct type declared as typ.
func (g *goTyper) structFields(typ string) map[string]string {
	i, ok := g.types[typ]
	if !ok || g.e.defs[i].node.Type() != "type_spec" {
		return nil
	}
	st := g.e.defs[i].node.ChildByFieldName("type")
	if st == nil || st.Type() != "struct_type" {
		return nil
	}
	fs := map[string]string{}
	for j := 0; j < int(st.NamedChildCount()); j++ {
		list := st.NamedChild(j)
		if list.Type() != "field_declaration_list" {
			continue
		}
		for k := 0; k < int(list.NamedChildCount()); k++ {
			fd := list.NamedChild(k)
			if fd.Type() != "field_declaration" {
				continue
			}
			t := localType(g.e.text(fd.ChildByFieldName("type")))
			if t == "" {
				continue
			}
			named := false
			for c := 0; c < int(fd.ChildCount()); c++ {
				if fd.FieldNameForChild(c) == "name" {
					fs[g.e.text(fd.Child(c))] = t
					named = true
				}
			}
			if !named {
				fs[t[strings.LastIndexByte(t, '.')+1:]] = t
			}
		}
	}
	return fs
}

// result returns the type of the first result of the function ("F") or
// method ("Recv.M") this file declares.
func (g *goTyper) result(key string) string {
	if t, ok := g.results[key]; ok {
		return t
	}
	t := ""
	if i, ok := g.funcs[key]; ok {
		t = firstResult(g.e.text(g.e.defs[i].node.ChildByFieldName("result")))
	}
	g.results[key] = t
	return t
}

// firstValue returns the expression that declares l's value ("f()" of
// "v, err := f()"), nil when it has none of its own: only the first name
// of a declaration is paired with the first value.
func firstValue(l local) *sitter.Node {
	d := l.decl
	if d == nil {
		return nil
	}
	var names, values *sitter.Node
	switch d.Type() {
	case "short_var_declaration":
		names, values = d.ChildByFieldName("left"), d.ChildByFieldName("right")
		if names != nil {
			names = names.NamedChild(0)
		}
	case "var_spec":
		names, values = d.ChildByFieldName("name"), d.ChildByFieldName("value")
	default:
		return nil
	}
	if names == nil || values == nil || names.StartByte() != l.nameAt {
		return nil
	}
	return values.NamedChild(0)
}

// isPackage reports whether n is an import's name, not shadowed in from.
func (g *goTyper) isPackage(n *sitter.Node, from int) bool {
	if n.Type() != "identifier" {
		return false
	}
	name := g.e.text(n)
	return g.imports[name] && !g.isLocal(from, name)
}

// firstResult returns the type of a Go function's first result from the
// declared result: "*Response" of "(*Response, error)", "T" of "(a, b T)".
func firstResult(result string) string {
	result = strings.TrimSpace(result)
	if !strings.HasPrefix(result, "(") {
		return localType(result)
	}
	items := splitTop(strings.TrimSuffix(strings.TrimPrefix(result, "("), ")"))
	for _, it := range items {
		// A named result ("err error") gives the type of every name before
		// it ("a, b T"); an unnamed list is types only.
		name, typ, ok := strings.Cut(strings.TrimSpace(it), " ")
		if ok && !typeKeyword[name] && !strings.ContainsAny(name, "*[.(") {
			return localType(typ)
		}
	}
	if len(items) == 0 {
		return ""
	}
	return localType(items[0])
}

var typeKeyword = map[string]bool{"chan": true, "func": true, "map": true, "interface": true, "struct": true}

// splitTop splits s at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// GoImportName is the name a Go import binds in its file: the alias, or
// the path's last element ("yaml" of gopkg.in/yaml.v3, "rand" of
// math/rand/v2); "" for blank and dot imports.
func GoImportName(importPath, alias string) string {
	if alias != "" {
		if alias == "_" || alias == "." {
			return ""
		}
		return alias
	}
	last := path.Base(importPath)
	if len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" && path.Dir(importPath) != "." {
		last = path.Base(path.Dir(importPath)) // a major version suffix
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return strings.TrimPrefix(last, "go-")
}
