package symbols

import (
	"context"
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// ExtractEdit re-parses src incrementally (old must already carry edit, as
// for ExtractIncremental) and returns its declarations. prev is the
// extraction of the text before edit.
//
// Typing happens inside function bodies. When the edit lies inside the body
// of one declaration that declares nothing else, before and after the edit,
// the language's query runs over that body only, to confirm it still
// declares nothing, and prev's declarations are reused, moved by the lines
// and bytes the edit added or removed: on net/http/server.go (3,700 lines)
// the query over the whole tree is most of the ~20 ms of CPU an edit cost.
// reused reports that this happened; otherwise the whole tree was queried.
//
// The result holds Entities, Package and HasErrors only, never Refs or
// Imports, whichever path was taken: it serves an editor's overlay, and the
// indexer extracts references from the text itself.
func (x *Extractor) ExtractEdit(ctx context.Context, path string, old *sitter.Tree, prev *File, edit sitter.EditInput, src []byte) (f *File, tree *sitter.Tree, reused bool, err error) {
	lang, ok := LanguageFor(path)
	if !ok {
		return nil, nil, false, fmt.Errorf("extract %s: unsupported language", path)
	}
	q, err := lang.compiled()
	if err != nil {
		return nil, nil, false, fmt.Errorf("extract %s: %w", path, err)
	}
	tree, err = x.parse(ctx, lang, old, src)
	if err != nil {
		return nil, nil, false, fmt.Errorf("extract %s: %w", path, err)
	}
	root := tree.RootNode()
	if f := x.shifted(q, lang, root, prev, edit); f != nil {
		return f, tree, true, nil
	}
	if f, tree, err = x.extract(ctx, lang, q, path, tree, src); err != nil {
		return nil, nil, false, fmt.Errorf("extract %s: %w", path, err)
	}
	f.Refs, f.Imports = nil, nil
	return f, tree, false, nil
}

func (x *Extractor) parser(lang *Language) *sitter.Parser {
	p := x.parsers[lang.Name]
	if p == nil {
		p = sitter.NewParser()
		p.SetLanguage(lang.grammar())
		x.parsers[lang.Name] = p
	}
	return p
}

// shifted returns prev's declarations moved past edit when edit lies inside
// the body of a declaration that declares nothing else (see ExtractEdit),
// or nil when the whole tree must be queried.
func (x *Extractor) shifted(q *sitter.Query, lang *Language, root *sitter.Node, prev *File, edit sitter.EditInput) *File {
	if prev == nil || lang.Name == "markdown" || edit.OldEndIndex < edit.StartIndex {
		return nil
	}
	// The innermost declaration holding the edit.
	in := -1
	for i, en := range prev.Entities {
		if en.StartByte < edit.StartIndex && edit.OldEndIndex < en.EndByte && (in < 0 || en.StartByte >= prev.Entities[in].StartByte) {
			in = i
		}
	}
	if in < 0 {
		return nil
	}
	for _, en := range prev.Entities {
		if en.Parent == in {
			return nil // it declares something: the edit may change that
		}
	}
	delta := int64(edit.NewEndIndex) - int64(edit.OldEndIndex)
	decl := prev.Entities[in]
	newEnd := uint32(int64(decl.EndByte) + delta)
	// The declaration's node in the new tree: the edit must not have moved
	// its ends (a deleted brace makes a function swallow the next one).
	n := root.NamedDescendantForPointRange(edit.StartPoint, edit.StartPoint)
	var body *sitter.Node
	for ; n != nil; n = n.Parent() {
		if n.StartByte() < decl.StartByte {
			break
		}
		if n.StartByte() == decl.StartByte && n.EndByte() == newEnd {
			if body = n.ChildByFieldName("body"); body != nil {
				break
			}
		}
	}
	if body == nil || body.StartByte() > edit.StartIndex || edit.NewEndIndex > body.EndByte() {
		return nil
	}
	if lang.docInBody {
		// An edit of the body's first statement that is, was or becomes the
		// declaration's docstring changes its Doc.
		first, end := firstStatement(body), body.StartByte()
		if first != nil {
			end = first.EndByte()
		}
		if edit.StartIndex <= end && (decl.Doc != "" || isDocstring(first)) {
			return nil
		}
	}
	if root.HasError() && !prev.HasErrors && lang.repairsMisreads() {
		// Whether the parse's errors are misreads the full extraction
		// repairs (and then reports none) only that extraction can tell.
		return nil
	}
	// The body still declares nothing.
	x.cursor.Exec(q, body)
	for {
		m, ok := x.cursor.NextMatch()
		if !ok {
			break
		}
		for _, c := range m.Captures {
			if strings.HasPrefix(lang.captures[c.Index], defPrefix) {
				return nil
			}
		}
	}
	lines := int(edit.NewEndPoint.Row) - int(edit.OldEndPoint.Row)
	f := &File{Path: prev.Path, Language: prev.Language, Package: prev.Package, HasErrors: root.HasError(), Entities: make([]Entity, len(prev.Entities))}
	for i, en := range prev.Entities {
		switch {
		case en.StartByte >= edit.OldEndIndex: // after the edit
			en.StartByte, en.EndByte = uint32(int64(en.StartByte)+delta), uint32(int64(en.EndByte)+delta)
			en.StartLine += lines
			en.EndLine += lines
		case en.EndByte > edit.OldEndIndex: // around it: the declaration and its parents
			en.EndByte = uint32(int64(en.EndByte) + delta)
			en.EndLine += lines
		}
		f.Entities[i] = en
	}
	return f
}

// firstStatement returns the first statement of body, comments aside, or
// nil when it holds none.
func firstStatement(body *sitter.Node) *sitter.Node {
	for i := range int(body.NamedChildCount()) {
		if s := body.NamedChild(i); s.Type() != "comment" {
			return s
		}
	}
	return nil
}

// isDocstring reports a statement that is a string literal alone: a
// Python docstring when it comes first in a body.
func isDocstring(s *sitter.Node) bool {
	return s != nil && s.Type() == "expression_statement" && s.NamedChildCount() == 1 && s.NamedChild(0).Type() == "string"
}
