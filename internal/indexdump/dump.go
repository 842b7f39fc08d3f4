// Package indexdump prints what an index holds that is derived from the
// code, one line per row or posting, in a form that two indexes of the same
// tree agree on however they were built: file rows without their indexing
// time, entities without their full-text row number (seq follows the order
// in which parallel workers finish), references with their resolved
// targets, and every full-text posting (term, entity, column, offset) of
// fts, fts_files and fts_files_aside with its row number mapped back to the
// entity id. Sorted, the lines of two indexes are equal exactly when their
// content is: a row or a posting dropped or written twice shows.
package indexdump

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// Dump calls emit with each line of the index in db, unsorted.
func Dump(ctx context.Context, db *sql.DB, emit func(line string)) error {
	// The fts5vocab tables below are temporary, which is per connection.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	queries := []struct{ tag, q string }{
		{"file", `SELECT id, path, lang, size, mtime, hash, skip, note, pkg FROM files`},
		{"entity", `SELECT id, file_id, coalesce(parent_id, 0), kind, name, qname, start_line, end_line, signature, doc FROM entities`},
		{"ref", `SELECT src_id, kind, name, qualifier, line, coalesce(dst_id, 0) FROM refs`},
		{"meta", `SELECT key, value FROM meta WHERE key = 'documents'`},
	}
	for _, table := range []string{"fts", "fts_files", "fts_files_aside"} {
		vocab := "temp.indexdump_" + table
		if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+vocab+` USING fts5vocab(main, `+table+`, instance)`); err != nil {
			return fmt.Errorf("dump %s: %w", table, err)
		}
		queries = append(queries, struct{ tag, q string }{table,
			`SELECT v.term, e.id, v.col, v."offset" FROM ` + vocab + ` v JOIN entities e ON e.seq = v.doc`})
		// A posting whose row number maps to no entity is an orphan.
		queries = append(queries, struct{ tag, q string }{table + "-orphan",
			`SELECT v.term, v.doc, v.col, v."offset" FROM ` + vocab + ` v WHERE v.doc NOT IN (SELECT seq FROM entities)`})
	}
	for _, q := range queries {
		if err := dumpRows(ctx, conn, q.tag, q.q, emit); err != nil {
			return err
		}
	}
	return nil
}

// Lines returns Dump's lines, unsorted.
func Lines(ctx context.Context, db *sql.DB) ([]string, error) {
	var out []string
	err := Dump(ctx, db, func(line string) { out = append(out, line) })
	return out, err
}

func dumpRows(ctx context.Context, conn *sql.Conn, tag, q string, emit func(string)) error {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("dump %s: %w", tag, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("dump %s: %w", tag, err)
		}
		b.Reset()
		b.WriteString(tag)
		for _, v := range vals {
			b.WriteByte('\t')
			switch v := v.(type) {
			case nil:
				b.WriteString("NULL")
			case int64:
				b.WriteString(strconv.FormatInt(v, 10))
			case []byte:
				b.WriteString(strconv.Quote(string(v)))
			case string:
				b.WriteString(strconv.Quote(v))
			default:
				fmt.Fprint(&b, v)
			}
		}
		emit(b.String())
	}
	return rows.Err()
}
