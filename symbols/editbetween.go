package symbols

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// EditBetween returns the tree-sitter edit that turns old into new: the
// one range between their common prefix and common suffix. A tree parsed
// from old and edited with it can be re-parsed incrementally from new
// (ExtractIncremental) when only the text is known, not the edits that
// made it, as after a save. changed is false when old and new are equal.
func EditBetween(old, new []byte) (edit sitter.EditInput, changed bool) {
	if bytes.Equal(old, new) {
		return sitter.EditInput{}, false
	}
	n := min(len(old), len(new))
	start := 0
	for start < n && old[start] == new[start] {
		start++
	}
	suffix := 0
	for suffix < n-start && old[len(old)-1-suffix] == new[len(new)-1-suffix] {
		suffix++
	}
	oldEnd, newEnd := len(old)-suffix, len(new)-suffix
	return sitter.EditInput{
		StartIndex:  uint32(start),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointAt(old, start),
		OldEndPoint: pointAt(old, oldEnd),
		NewEndPoint: pointAt(new, newEnd),
	}, true
}

// pointAt returns the row and byte column of offset i in text.
func pointAt(text []byte, i int) sitter.Point {
	before := text[:i]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return sitter.Point{Row: uint32(bytes.Count(before, []byte{'\n'})), Column: uint32(i - lineStart)}
}
