package symbols

/*
#include <stdint.h>

// tree-sitter's TSPoint and TSInputEdit (api.h), field for field.
typedef struct { uint32_t row; uint32_t column; } ctxls_point;
typedef struct {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	ctxls_point start_point;
	ctxls_point old_end_point;
	ctxls_point new_end_point;
} ctxls_input_edit;

// Defined by the tree-sitter runtime the binding compiles and links in.
void ts_tree_edit(void *self, const ctxls_input_edit *edit);
*/
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// EditTree edits tree, a parse of a text, to match the text after edit, so
// that the text can be re-parsed incrementally from it.
//
// It calls tree-sitter's ts_tree_edit itself because the binding's
// Tree.Edit passes the edit's OldEndPoint where tree-sitter takes its new
// end point (EditInput.c in smacker/go-tree-sitter, at the pinned version,
// its newest): every edit that added or removed lines told tree-sitter the
// wrong rows, and the re-parse reused nodes where they no longer were. Of
// 1,091 changes to source files in this repository's newest 600 commits, 41 parsed
// differently from a parse from scratch, 36 of them into syntax errors, and
// the index stored their declarations at wrong lines. Parsing those from
// scratch instead cost 37 ms of CPU where an incremental parse took 0.7
// (a line typed into net/http/server.go, BenchmarkDidChange).
//
// The tree's C pointer is the first field of the binding's BaseTree, the
// one unexported thing read here: an upgrade of the binding must keep it
// so, and TestIncrementalParseOfARealHistory, which fails with the
// binding's own Tree.Edit, checks the edits reach tree-sitter as meant.
func EditTree(tree *sitter.Tree, edit sitter.EditInput) {
	if tree == nil || tree.BaseTree == nil {
		return
	}
	c := *(*unsafe.Pointer)(unsafe.Pointer(tree.BaseTree))
	if c == nil {
		return
	}
	point := func(p sitter.Point) C.ctxls_point {
		return C.ctxls_point{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)}
	}
	in := C.ctxls_input_edit{
		start_byte:    C.uint32_t(edit.StartIndex),
		old_end_byte:  C.uint32_t(edit.OldEndIndex),
		new_end_byte:  C.uint32_t(edit.NewEndIndex),
		start_point:   point(edit.StartPoint),
		old_end_point: point(edit.OldEndPoint),
		new_end_point: point(edit.NewEndPoint),
	}
	C.ts_tree_edit(c, &in)
}
