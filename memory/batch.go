package memory

import (
	"context"
	"database/sql"
	"strings"
)

// batchRows is how many rows one multi-row INSERT carries (as in package
// store's writer): for rows this small, the per-statement cost of
// database/sql and cgo is a large part of an insert.
const batchRows = 32

// batchInsert inserts rows into one table, batchRows at a time.
type batchInsert struct {
	one, many *sql.Stmt
	args      []any
}

// prepareBatch prepares head ("INSERT ... VALUES") for one row and for
// batchRows rows of cols values each.
func prepareBatch(ctx context.Context, tx *sql.Tx, head string, cols int) (*batchInsert, error) {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	one, err := tx.PrepareContext(ctx, head+row)
	if err != nil {
		return nil, err
	}
	many, err := tx.PrepareContext(ctx, head+strings.Repeat(row+",", batchRows-1)+row)
	if err != nil {
		one.Close()
		return nil, err
	}
	return &batchInsert{one: one, many: many, args: make([]any, 0, batchRows*cols)}, nil
}

// insert inserts n rows; row appends the values of row i to dst.
func (b *batchInsert) insert(ctx context.Context, n int, row func(i int, dst []any) []any) error {
	i := 0
	for ; i+batchRows <= n; i += batchRows {
		args := b.args[:0]
		for j := i; j < i+batchRows; j++ {
			args = row(j, args)
		}
		if _, err := b.many.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	for ; i < n; i++ {
		if _, err := b.one.ExecContext(ctx, row(i, b.args[:0])...); err != nil {
			return err
		}
	}
	return nil
}

func (b *batchInsert) close() {
	b.one.Close()
	b.many.Close()
}
