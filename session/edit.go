package session

// Edits of open documents in the editor's positions: applying them, the
// tree-sitter edit they make, the word under a position and the
// declarations an edit touched. The documents themselves live in package
// overlay.

import (
	"bytes"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctxls/ctxls/symbols"
)

// Position is a place in a document as an editor counts (LSP): a 0-based
// line and a 0-based column in UTF-16 code units.
type Position struct {
	Line, Character uint32
}

// Range is the text between two positions.
type Range struct {
	Start, End Position
}

// Edit is one change of a document's text: Text replaces Range, or the
// whole document when Range is nil.
type Edit struct {
	Range *Range
	Text  string
}

// apply returns text with change applied, the tree-sitter edit describing it
// (nil for a whole-document replacement) and the 1-based lines of the new
// text the change covers.
func apply(text []byte, ch Edit) (out []byte, edit *sitter.EditInput, fromLine, toLine int) {
	if ch.Range == nil {
		return []byte(ch.Text), nil, 1, bytes.Count([]byte(ch.Text), []byte("\n")) + 1
	}
	start, sp := offset(text, ch.Range.Start)
	end, ep := offset(text, ch.Range.End)
	if end < start {
		start, end, sp, ep = end, start, ep, sp
	}
	out = make([]byte, 0, len(text)-(end-start)+len(ch.Text))
	out = append(out, text[:start]...)
	out = append(out, ch.Text...)
	out = append(out, text[end:]...)
	np := advance(sp, []byte(ch.Text))
	edit = &sitter.EditInput{
		StartIndex: uint32(start), OldEndIndex: uint32(end), NewEndIndex: uint32(start + len(ch.Text)),
		StartPoint: sp, OldEndPoint: ep, NewEndPoint: np,
	}
	// The lines the change touches, without the whitespace and newlines at
	// its ends: appending a function after the last line starts the change
	// at the end of that line, which is not an edit of that line's symbol.
	ins := []byte(ch.Text)
	trimmed := bytes.TrimLeft(ins, " \t\r\n")
	if len(trimmed) == 0 {
		return out, edit, int(sp.Row) + 1, int(sp.Row) + 1
	}
	first := advance(sp, ins[:len(ins)-len(trimmed)])
	last := advance(first, bytes.TrimRight(trimmed, " \t\r\n"))
	return out, edit, int(first.Row) + 1, int(last.Row) + 1
}

// advance returns the point after text inserted at p.
func advance(p sitter.Point, text []byte) sitter.Point {
	if nl := bytes.Count(text, []byte("\n")); nl > 0 {
		p.Row += uint32(nl)
		p.Column = uint32(len(text) - bytes.LastIndexByte(text, '\n') - 1)
	} else {
		p.Column += uint32(len(text))
	}
	return p
}

// offset converts an LSP position (line, UTF-16 code units) to a byte offset
// and a tree-sitter point (row, byte column), clamping positions past the end
// of a line or of the text, as the specification asks.
func offset(text []byte, pos Position) (int, sitter.Point) {
	lineStart := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := bytes.IndexByte(text[lineStart:], '\n')
		if i < 0 {
			// Past the last line: the end of the text.
			return len(text), sitter.Point{Row: line, Column: uint32(len(text) - lineStart)}
		}
		lineStart += i + 1
	}
	off, units := lineStart, uint32(0)
	for off < len(text) && units < pos.Character {
		r, size := utf8.DecodeRune(text[off:])
		if r == '\n' || (r == '\r' && off+1 < len(text) && text[off+1] == '\n') {
			break
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		off += size
	}
	return off, sitter.Point{Row: pos.Line, Column: uint32(off - lineStart)}
}

// wordAt returns the identifier around an LSP position and its 1-based line.
func wordAt(text []byte, pos Position) (string, int) {
	off, _ := offset(text, pos)
	isWord := func(b byte) bool {
		return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
	}
	start, end := off, off
	for start > 0 && isWord(text[start-1]) {
		start--
	}
	for end < len(text) && isWord(text[end]) {
		end++
	}
	w := string(text[start:end])
	if w == "" || (w[0] >= '0' && w[0] <= '9') || !utf8.ValidString(w) {
		return "", int(pos.Line) + 1
	}
	return w, int(pos.Line) + 1
}

// changedSymbols names the innermost declarations of f that overlap the
// given 1-based line spans.
func changedSymbols(f *symbols.File, spans [][2]int) []string {
	if f == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, sp := range spans {
		overlap := map[int]bool{}
		for i, e := range f.Entities {
			if e.Kind != symbols.KindFile && e.StartLine <= sp[1] && e.EndLine >= sp[0] {
				overlap[i] = true
			}
		}
		// Innermost: no other overlapping entity lies inside it.
		outer := map[int]bool{}
		for i := range overlap {
			if p := f.Entities[i].Parent; overlap[p] {
				outer[p] = true
			}
		}
		for i, e := range f.Entities {
			if overlap[i] && !outer[i] && !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		}
	}
	return out
}
