package store

import "github.com/ctxls/ctxls/internal/workspace"

// RefKind classifies a reference row. It is stored as a small integer to keep
// the refs table compact.
type RefKind int

// Reference kinds.
const (
	RefCalls RefKind = iota + 1
	RefReferences
	RefExtends
	RefImplements
	RefImports
)

var refKindNames = [...]string{"", "calls", "references", "extends", "implements", "imports"}

// String returns the edge label used in output ("calls", "imports", ...).
func (k RefKind) String() string {
	if k <= 0 || int(k) >= len(refKindNames) {
		return "unknown"
	}
	return refKindNames[k]
}

// ParseRefKind returns the kind named s, or 0.
func ParseRefKind(s string) RefKind {
	for i, n := range refKindNames {
		if i > 0 && n == s {
			return RefKind(i)
		}
	}
	return 0
}

// File is a tracked file.
type File struct {
	ID   int64
	Path string // slash-separated, relative to the workspace root
	Lang string
	// Class is what kind of file it is, decided by the indexer (tests,
	// docs and third-party code are ranked down).
	Class workspace.Class
	Size  int64
	MTime int64 // UnixNano
	Hash  string
	// Skip says why the file was not parsed ("" when it was).
	Skip string
	// Note records something worth knowing about a parsed file, such as
	// syntax errors or repaired encoding.
	Note      string
	Pkg       string
	IndexedAt int64
}

// Entity is a stored entity.
type Entity struct {
	ID        int64
	FileID    int64
	ParentID  int64 // 0 for the file entity itself
	Kind      string
	Name      string
	QName     string
	StartLine int
	EndLine   int
	Signature string
	Doc       string
	// Path and Class are the file's, filled by queries that join files;
	// they are not written with the entity.
	Path  string
	Class workspace.Class
}

// Ref is a stored reference.
type Ref struct {
	RowID     int64 // filled by queries
	SrcID     int64
	FileID    int64
	Kind      RefKind
	Name      string
	Qualifier string
	Line      int
	DstID     int64 // 0 when unresolved
}

// Doc is the analyzed text of one entity for the full-text index. Each field
// holds space-separated terms produced by package analyzer.
type Doc struct {
	ID        int64
	Name      string
	QName     string
	Path      string
	Signature string
	Doc       string
	Body      string
}

// FileData is everything the index holds for one file, written together.
type FileData struct {
	File     File
	Entities []Entity
	Refs     []Ref
	Docs     []Doc
	// Whole is the file's whole-file document: Path and Body are used. It
	// goes in the corpus of tests, docs and third-party code, whose
	// statistics are kept apart from the source's, when File.Class is
	// Aside.
	Whole Doc
}
