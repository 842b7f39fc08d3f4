// Package symbols extracts code entities (types, functions, methods, headings,
// ...) and the references between them from source files with tree-sitter.
//
// Each language is described by one embedded tags-style query file in
// queries/ and one line in the registry (languages.go): adding a language is
// adding data, not logic.
package symbols

import "strings"

// Kind classifies an entity.
type Kind string

// Entity kinds. Every supported language maps its declarations onto these.
const (
	KindFile      Kind = "file"
	KindModule    Kind = "module" // package, namespace, module
	KindClass     Kind = "class"
	KindStruct    Kind = "struct"
	KindInterface Kind = "interface" // also traits and protocols
	KindEnum      Kind = "enum"
	KindType      Kind = "type" // type alias or other named type
	KindFunction  Kind = "function"
	KindMethod    Kind = "method"
	KindConstant  Kind = "constant"
	KindVariable  Kind = "variable" // top-level only
	KindHeading   Kind = "heading"  // Markdown section
)

// EdgeKind classifies a reference from one entity to a name.
type EdgeKind string

// Reference kinds recorded by Extract. "contains" edges are implied by
// Entity.Parent and "imports" by File.Imports.
const (
	EdgeCalls      EdgeKind = "calls"
	EdgeReferences EdgeKind = "references" // a type or other identifier use
	EdgeExtends    EdgeKind = "extends"
	EdgeImplements EdgeKind = "implements"
)

// Entity is one declaration found in a file.
type Entity struct {
	Kind Kind
	// Name is the declared identifier, e.g. "Serve".
	Name string
	// QualName is the name qualified by package and enclosing types, e.g.
	// "http.Server.Serve". It is unique within a file except for overloads.
	QualName string
	// StartLine and EndLine are 1-based and inclusive.
	StartLine, EndLine int
	// StartByte and EndByte delimit the declaration in the source.
	StartByte, EndByte uint32
	// Signature is the declaration's first line (or header up to the body),
	// whitespace-collapsed and capped in length.
	Signature string
	// Doc is the doc comment attached to the declaration, with comment
	// markers removed and trimmed.
	Doc string
	// Parent is the index in File.Entities of the enclosing entity (a type
	// for a method, a heading for a sub-heading), or -1 for the file itself.
	Parent int
}

// Ref is a use of a name inside a file: a call, a type reference, or an
// extends/implements clause. Refs are resolved to entities by the indexer.
type Ref struct {
	Kind EdgeKind
	// From is the index in File.Entities of the innermost enclosing entity,
	// or -1 when the use is at file level.
	From int
	// Name is the referenced identifier without qualification, e.g.
	// "ListenAndServe".
	Name string
	// Qualifier is what stood before the name, if anything: a package alias
	// ("http"), a receiver expression ("srv"), a namespace ("std"). Empty for
	// bare names.
	Qualifier string
	// Line is 1-based.
	Line int
}

// Import is one import, include, use or require statement, or one name
// such a statement brings into scope from a module.
type Import struct {
	// Path is the imported module as written, without quotes: "net/http",
	// "./util", "os.path", "stdio.h".
	Path string
	// Alias is the local name the import is bound to, when the syntax gives
	// one explicitly ("nethttp" in `import nethttp "net/http"`, "bar" in
	// `from m import foo as bar`).
	Alias string
	// Name is the name imported from the module, for a statement that
	// imports names rather than the module ("foo" in `from m import foo`
	// and `import { foo } from "./m"`, "default" for a default import),
	// ImportAll for a wildcard; empty when the module itself is imported.
	Name string
	Line int
}

// ImportAll is the Name of an import of every public name of a module
// (`from m import *`).
const ImportAll = "*"

// Local is the name an import of a name binds in its file: the alias, else
// the imported name.
func (im Import) Local() string {
	if im.Alias != "" {
		return im.Alias
	}
	return im.Name
}

// ImportQualifier is how the index stores an import's alias and name in one
// column: the alias alone for an import of a module, "local=name" for an
// import of a name. SplitImportQualifier reverses it.
func (im Import) ImportQualifier() string {
	if im.Name == "" {
		return im.Alias
	}
	return im.Local() + "=" + im.Name
}

// SplitImportQualifier returns the alias of an import of a module, or the
// local name and the imported name of an import of a name (name != "").
func SplitImportQualifier(q string) (local, name string) {
	local, name, _ = strings.Cut(q, "=")
	return local, name
}

// File is what Extract found in one source file.
type File struct {
	Path     string
	Language string
	// Package is the file's package or namespace where the language declares
	// one (Go package clause, Java package, C# namespace); empty otherwise.
	Package  string
	Entities []Entity
	Refs     []Ref
	Imports  []Import
	// HasErrors reports that the parse tree contained syntax errors; what
	// tree-sitter recovered is still returned.
	HasErrors bool
}
