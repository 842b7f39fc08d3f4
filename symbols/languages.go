package symbols

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	markdown "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

//go:embed queries/*.scm
var queryFiles embed.FS

// Language describes one supported language: its grammar and its query.
type Language struct {
	// Name is the language's identifier ("go", "typescript", ...).
	Name string
	// Extensions are the file name suffixes it claims, with the dot.
	Extensions []string
	// Names are whole file names it claims (e.g. "Rakefile").
	Names []string
	// family groups languages whose code can name each other's
	// definitions (TypeScript and JavaScript; C and C++); empty means Name.
	family string

	grammar func() *sitter.Language
	// queryName names the query file when it is not Name (TSX shares
	// TypeScript's query: its grammar is a superset).
	queryName string
	// docInBody says a declaration's doc is the first statement of its
	// body (a Python docstring), not a comment before it.
	docInBody bool
	// unknown, when set, returns a copy of a source in which the syntax
	// the grammar predates is blanked out, byte for byte, so that the
	// rest parses (unknownKotlin); names and text are still read from
	// the source itself.
	unknown func(src []byte) []byte
	// sep joins qualified name parts ("." for most, "::" never: names are
	// normalised to dots so that queries can match any language alike).
	once  sync.Once
	query *sitter.Query
	// hasPredicates[i] says pattern i has #eq?/#match? predicates, which
	// need filtering (looked up once: the binding allocates per call).
	hasPredicates []bool
	// captures[i] is the name of capture i (looked up once: each lookup is
	// a cgo call, and there is one per captured node).
	captures []string
	err      error
}

// registry lists the supported languages: adding one is a query file in
// queries/ and a line here.
var registry = []*Language{
	{Name: "go", Extensions: []string{".go"}, grammar: golang.GetLanguage},
	{Name: "typescript", Extensions: []string{".ts", ".mts", ".cts"}, family: "js", grammar: typescript.GetLanguage},
	{Name: "tsx", Extensions: []string{".tsx"}, family: "js", grammar: tsx.GetLanguage, queryName: "typescript"},
	{Name: "javascript", Extensions: []string{".js", ".jsx", ".mjs", ".cjs"}, family: "js", grammar: javascript.GetLanguage},
	{Name: "python", Extensions: []string{".py", ".pyi"}, grammar: python.GetLanguage, docInBody: true},
	{Name: "rust", Extensions: []string{".rs"}, grammar: rust.GetLanguage},
	// Java and Kotlin call each other's classes in one project.
	{Name: "java", Extensions: []string{".java"}, family: "jvm", grammar: java.GetLanguage},
	{Name: "kotlin", Extensions: []string{".kt", ".kts"}, family: "jvm", grammar: kotlin.GetLanguage, unknown: unknownKotlin},
	{Name: "swift", Extensions: []string{".swift"}, grammar: swift.GetLanguage},
	{Name: "c", Extensions: []string{".c", ".h"}, family: "c", grammar: c.GetLanguage},
	{Name: "cpp", family: "c", Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"}, grammar: cpp.GetLanguage},
	{Name: "csharp", Extensions: []string{".cs"}, grammar: csharp.GetLanguage},
	{Name: "ruby", Extensions: []string{".rb", ".rake", ".gemspec"}, Names: []string{"Rakefile", "Gemfile"}, grammar: ruby.GetLanguage},
	{Name: "php", Extensions: []string{".php"}, grammar: php.GetLanguage},
	{Name: "markdown", Extensions: []string{".md", ".markdown"}, grammar: markdown.GetLanguage},
}

// Languages returns all registered languages.
func Languages() []*Language { return registry }

// Family returns the group of languages whose code can refer to this
// one's definitions by name; references never resolve across families.
func (l *Language) Family() string {
	if l.family != "" {
		return l.family
	}
	return l.Name
}

// FamilyOf returns the language family of a path, or "" when no supported
// language claims it.
func FamilyOf(p string) string {
	if l, ok := LanguageFor(p); ok {
		return l.Family()
	}
	return ""
}

// LanguageFor returns the language of a path by file name or extension.
func LanguageFor(p string) (*Language, bool) {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	lower := strings.ToLower(base)
	for _, l := range registry {
		for _, n := range l.Names {
			if n == base {
				return l, true
			}
		}
	}
	for _, l := range registry {
		for _, ext := range l.Extensions {
			if strings.HasSuffix(lower, ext) && len(lower) > len(ext) {
				return l, true
			}
		}
	}
	return nil, false
}

// compiled returns the language's query, compiling it once.
// Prepare compiles the language's query now, which the first extraction
// would otherwise do: 10–60 ms, TypeScript's the slowest (measured on the
// 2-core VM), that a long-running process can spend before it is asked.
func (l *Language) Prepare() error {
	_, err := l.compiled()
	return err
}

func (l *Language) compiled() (*sitter.Query, error) {
	l.once.Do(func() {
		name := l.Name
		if l.queryName != "" {
			name = l.queryName
		}
		src, err := queryFiles.ReadFile("queries/" + name + ".scm")
		if err != nil {
			l.err = fmt.Errorf("query for %s: %w", l.Name, err)
			return
		}
		l.query, l.err = sitter.NewQuery(src, l.grammar())
		if l.err != nil {
			l.err = fmt.Errorf("compile query for %s: %w", l.Name, l.err)
			return
		}
		l.captures = make([]string, l.query.CaptureCount())
		for i := range l.captures {
			l.captures[i] = l.query.CaptureNameForId(uint32(i))
		}
		l.hasPredicates = make([]bool, l.query.PatternCount())
		for i := range l.hasPredicates {
			l.hasPredicates[i] = len(l.query.PredicatesForPattern(uint32(i))) > 0
		}
	})
	return l.query, l.err
}

// repairsMisreads reports whether l's query captures constructs its
// grammar misreads, which a full extraction parses again (misread.go).
// The query must be compiled.
func (l *Language) repairsMisreads() bool { return slices.Contains(l.captures, capMisread) }
