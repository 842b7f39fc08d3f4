package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// ReplaceRefs turns a file's stored references (old, as read by RefsTx
// before the file's entities were replaced) into refs. A reference that is
// still there, only on another line or with another target, is updated in
// place; only the others are deleted or inserted. Deleting and re-inserting
// every reference of a large file touched a random page of each of the
// three refs indexes per row and was the costliest statement of a one-file
// update.
func (w *Writer) ReplaceRefs(ctx context.Context, old, refs []Ref) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = quick(ctx)
	type key struct {
		src        int64
		kind       RefKind
		name, qual string
	}
	// Old references by key, in line order, so that the n-th occurrence in
	// the new text takes the n-th stored row.
	slices.SortFunc(old, func(a, b Ref) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.RowID, b.RowID))
	})
	stored := make(map[key][]Ref, len(old))
	for _, r := range old {
		k := key{r.SrcID, r.Kind, r.Name, r.Qualifier}
		stored[k] = append(stored[k], r)
	}
	var added []Ref
	for _, r := range refs {
		k := key{r.SrcID, r.Kind, r.Name, r.Qualifier}
		q := stored[k]
		if len(q) == 0 {
			added = append(added, r)
			continue
		}
		o := q[0]
		stored[k] = q[1:]
		if o.Line == r.Line && o.DstID == r.DstID {
			continue
		}
		var dst any
		if r.DstID != 0 {
			dst = r.DstID
		}
		if _, err := w.setRef.ExecContext(ctx, r.Line, dst, o.RowID); err != nil {
			return classify(fmt.Errorf("update reference: %w", err))
		}
	}
	for _, q := range stored {
		for _, o := range q {
			if _, err := w.delRef.ExecContext(ctx, o.RowID); err != nil {
				return classify(fmt.Errorf("delete reference: %w", err))
			}
		}
	}
	return w.PutRefs(ctx, added)
}
