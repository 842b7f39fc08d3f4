package symbols

import (
	"context"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// Tree-sitter parses without a preprocessor and without some of a
// language's rules, and where it misreads a construct, its error recovery
// can take the rest of a file with it. Each language's query captures the
// shapes it misreads as @misread (@name: the node to rewrite); extract
// rewrites them in a copy of the text, without moving a byte or a line,
// parses again and runs the query over the new tree, reading names and
// bodies from the original text (decision 0125).
//
// C: a loop macro whose body has no braces,
//
//	for_each_possible_cpu(cpu)
//		total += per_cpu(process_counts, cpu);
//
// reads as a declaration `T f(x)` whose type is the macro call: a function
// declared inside a function, and the call lost; when the next line also
// looks like a declarator, recovery folds the rest of the file into the
// enclosing function. C declares no function with a macro-call type in a
// function body: the macro's name becomes `if` and spaces, the statement
// the macro expands to (a loop around the next statement), and stays a
// call.
//
// TypeScript: a `<` after a line break never begins type arguments (the
// TypeScript parser checks for the line break; tree-sitter's grammar does
// not), so an interface's or object type's overloads written on lines that
// begin with their type parameters,
//
//	(a: A): R<A>
//	<B>(b: B): R<B>
//
// read as one type continued, and recovery ends the interface there and
// loses the declarations after it (hono's src/types.ts kept 19 of 56). The
// blank before such a `<` becomes `;`, the member separator.

// maxMisreadRounds bounds the parses of one file: each round rewrites every
// misread found, and a repaired region can reveal another behind it.
const maxMisreadRounds = 4

// extract runs the language's query over tree, and again over a tree
// parsed from a rewritten text while the query finds misreads (at most
// maxMisreadRounds times). It returns tree, the parse of src, marked as
// edited where it was rewritten: a caller that keeps it for the next
// incremental parse must hold a tree of the text it has, or that parse
// would reuse the rewritten reading and differ from a parse from scratch.
func (x *Extractor) extract(ctx context.Context, lang *Language, q *sitter.Query, path string, tree *sitter.Tree, src []byte) (*File, *sitter.Tree, error) {
	var text []byte // src with the misreads rewritten
	var calls []ref // the C macros rewritten, kept as calls
	cur := tree
	closeCur := func() {
		if cur != tree {
			cur.Close()
		}
	}
	for round := 0; ; round++ {
		root := cur.RootNode()
		f := &File{Path: path, Language: lang.Name, HasErrors: root.HasError()}
		e := &extraction{src: src, q: q, pred: lang.hasPredicates, captures: lang.captures, lang: lang.Name, f: f,
			declared: map[uint32]bool{}, refs: slices.Clone(calls)}
		e.run(x.cursor, root)
		if len(e.misreads) == 0 || round == maxMisreadRounds {
			closeCur()
			return f, tree, nil
		}
		if text == nil {
			text = slices.Clone(src)
		}
		for _, n := range e.misreads {
			start, end := n.StartByte(), n.EndByte()
			if lang.Name == "c" { // the macro name misread() accepted
				calls = append(calls, ref{kind: EdgeCalls, name: string(src[start:end]), at: start, nameAt: start, line: int(n.StartPoint().Row) + 1})
				text[start], text[start+1] = 'i', 'f'
				for i := start + 2; i < end; i++ {
					text[i] = ' '
				}
			} else {
				start, end = start-1, start
				text[start] = ';'
			}
			at := sitter.Point{Row: n.StartPoint().Row, Column: n.StartPoint().Column - (n.StartByte() - start)}
			endAt := sitter.Point{Row: at.Row, Column: at.Column + end - start}
			edit := sitter.EditInput{StartIndex: start, OldEndIndex: end, NewEndIndex: end, StartPoint: at, OldEndPoint: endAt, NewEndPoint: endAt}
			EditTree(cur, edit)
			if cur != tree {
				EditTree(tree, edit)
			}
		}
		next, err := x.parse(ctx, lang, cur, text)
		closeCur()
		if err != nil {
			tree.Close()
			return nil, nil, err
		}
		cur = next
	}
}

// misread reports whether a @misread capture is one: main the captured
// construct, name the node to rewrite.
func (e *extraction) misread(main, name *sitter.Node) bool {
	switch e.lang {
	case "c":
		// A macro-call type at file scope is a real one
		// (`STACK_OF(X509) *certs(void)`); a name of one letter has no
		// room for `if`.
		return name.EndByte()-name.StartByte() >= 2 && inFunctionBody(main)
	case "typescript", "tsx":
		// The `<` follows a line break (a generic type's arguments on a
		// later line than its name, or type parameters that recovery left
		// in an error) after a blank, which becomes the separator.
		if main.Type() != "ERROR" && name.StartPoint().Row == main.StartPoint().Row {
			return false
		}
		i := int(name.StartByte())
		if i == 0 || e.src[i-1] != ' ' && e.src[i-1] != '\t' {
			return false
		}
		for j := i - 1; j >= 0 && e.src[j] != '\n'; j-- {
			if e.src[j] != ' ' && e.src[j] != '\t' {
				return false // not the line's first token
			}
		}
		return true
	}
	return false
}

// inFunctionBody reports whether n lies in a function's body (a compound
// statement).
func inFunctionBody(n *sitter.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "compound_statement":
			return true
		case "translation_unit":
			return false
		}
	}
	return false
}
