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
// refs indexes per row and was the costliest statement of a one-file
// update. A source's new references go after its stored ones; one whose
// places would run out has all its references written again from its
// first place.
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
	next := map[int64]refPlace{}
	for _, r := range old {
		k := key{r.SrcID, r.Kind, r.Name, r.Qualifier}
		stored[k] = append(stored[k], r)
		p := refAt(r.RowID)
		p.place++ // the place after it
		if q, ok := next[r.SrcID]; !ok || p.place > q.place {
			next[r.SrcID] = p
		}
	}
	type match struct{ old, new Ref }
	var matched []match
	var added []Ref
	adds := map[int64]int{}
	for _, r := range refs {
		k := key{r.SrcID, r.Kind, r.Name, r.Qualifier}
		q := stored[k]
		if len(q) == 0 {
			added = append(added, r)
			adds[r.SrcID]++
			continue
		}
		matched = append(matched, match{q[0], r})
		stored[k] = q[1:]
	}
	// Sources whose new references would run past their last place.
	rewrite := map[int64]bool{}
	for src, n := range adds {
		if p, ok := next[src]; ok && p.place+n > MaxRefsPerEntity {
			rewrite[src] = true
			next[src] = refPlace{seq: p.seq}
		}
	}
	if len(rewrite) > 0 {
		var all []Ref
		for _, r := range refs {
			if rewrite[r.SrcID] {
				all = append(all, r)
			}
		}
		for _, r := range added {
			if !rewrite[r.SrcID] {
				all = append(all, r)
			}
		}
		added = all
	}
	for _, m := range matched {
		if rewrite[m.old.SrcID] {
			if _, err := w.delRef.ExecContext(ctx, m.old.RowID); err != nil {
				return classify(fmt.Errorf("delete reference: %w", err))
			}
			continue
		}
		if m.old.Line == m.new.Line && m.old.DstID == m.new.DstID {
			continue
		}
		var dst any
		if m.new.DstID != 0 {
			dst = m.new.DstID
		}
		if _, err := w.setRef.ExecContext(ctx, m.new.Line, dst, m.old.RowID); err != nil {
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
	return w.putRefs(ctx, added, next)
}
