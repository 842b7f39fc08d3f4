package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Writer is a write transaction on the index. Everything written through it
// becomes visible to other processes atomically at Commit.
type Writer struct {
	s  *Store
	tx *sql.Tx

	insFile, insEntity, insRef, insDoc *sql.Stmt
	insWhole, delWhole                 *sql.Stmt
	insAside, delAside                 *sql.Stmt
	delDocs, delEntities, delRefs      *sql.Stmt
	delFile, setDst                    *sql.Stmt
}

// BeginWrite starts a write transaction. It waits for other writers up to
// the busy timeout.
func (s *Store) BeginWrite(ctx context.Context) (*Writer, error) {
	if s.readOnly {
		return nil, fmt.Errorf("index %s is open read-only", s.path)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(fmt.Errorf("begin index write: %w", err))
	}
	w := &Writer{s: s, tx: tx}
	prep := []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.insFile, `INSERT INTO files(id, path, lang, size, mtime, hash, skip, note, pkg, indexed_at)
			VALUES(?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(path) DO UPDATE SET id=excluded.id, lang=excluded.lang, size=excluded.size,
			mtime=excluded.mtime, hash=excluded.hash, skip=excluded.skip, note=excluded.note,
			pkg=excluded.pkg, indexed_at=excluded.indexed_at`},
		{&w.insEntity, `INSERT OR REPLACE INTO entities(id, file_id, parent_id, kind, name, qname, start_line, end_line, signature, doc)
			VALUES(?,?,?,?,?,?,?,?,?,?)`},
		{&w.insRef, `INSERT INTO refs(src_id, file_id, kind, name, qualifier, line, dst_id) VALUES(?,?,?,?,?,?,?)`},
		{&w.insDoc, `INSERT INTO fts(rowid, name, qname, path, signature, doc, body) VALUES(?,?,?,?,?,?,?)`},
		{&w.delDocs, `DELETE FROM fts WHERE rowid IN (SELECT id FROM entities WHERE file_id = ?)`},
		{&w.delEntities, `DELETE FROM entities WHERE file_id = ?`},
		{&w.delRefs, `DELETE FROM refs WHERE file_id = ?`},
		{&w.delFile, `DELETE FROM files WHERE id = ?`},
		{&w.setDst, `UPDATE refs SET dst_id = ? WHERE rowid = ?`},
		{&w.insWhole, `INSERT INTO fts_files(rowid, path, body) VALUES(?,?,?)`},
		{&w.delWhole, `DELETE FROM fts_files WHERE rowid = ?`},
		{&w.insAside, `INSERT INTO fts_files_aside(rowid, path, body) VALUES(?,?,?)`},
		{&w.delAside, `DELETE FROM fts_files_aside WHERE rowid = ?`},
	}
	for _, p := range prep {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			tx.Rollback()
			return nil, classify(fmt.Errorf("prepare index write: %w", err))
		}
		*p.dst = st
	}
	return w, nil
}

// Commit makes the writes visible.
func (w *Writer) Commit() error { return classify(w.tx.Commit()) }

// Rollback discards the writes; it is a no-op after Commit.
func (w *Writer) Rollback() error { return w.tx.Rollback() }

// clearFile removes a file's entities, references and documents.
func (w *Writer) clearFile(ctx context.Context, fileID int64) error {
	for _, st := range []*sql.Stmt{w.delDocs, w.delEntities, w.delRefs, w.delWhole, w.delAside} {
		if _, err := st.ExecContext(ctx, fileID); err != nil {
			return classify(err)
		}
	}
	return nil
}

// PutFile replaces everything stored for fd.File.Path with fd. When the file
// is known to be new (replace false) the delete of old rows is skipped.
func (w *Writer) PutFile(ctx context.Context, fd *FileData, replace bool) error {
	f := &fd.File
	if err := w.PutEntities(ctx, f.ID, fd.Entities, fd.Docs, replace); err != nil {
		return fmt.Errorf("store %s: %w", f.Path, err)
	}
	if err := w.PutWhole(ctx, f.ID, &fd.Whole, fd.WholeAside); err != nil {
		return err
	}
	if err := w.UpsertFile(ctx, f); err != nil {
		return err
	}
	if err := w.PutRefs(ctx, fd.Refs); err != nil {
		return fmt.Errorf("store refs of %s: %w", f.Path, err)
	}
	return nil
}

// PutEntities replaces a file's entities and full-text documents, leaving
// its file row and references to UpsertFile and PutRefs. Pass replace false
// for a file known to have nothing stored.
func (w *Writer) PutEntities(ctx context.Context, fileID int64, ents []Entity, docs []Doc, replace bool) error {
	if replace {
		if err := w.clearFile(ctx, fileID); err != nil {
			return err
		}
	}
	for i := range ents {
		e := &ents[i]
		var parent any
		if e.ParentID != 0 {
			parent = e.ParentID
		}
		if _, err := w.insEntity.ExecContext(ctx, e.ID, fileID, parent, e.Kind, e.Name, e.QName, e.StartLine, e.EndLine, e.Signature, e.Doc); err != nil {
			return classify(fmt.Errorf("store entity %s: %w", e.QName, err))
		}
	}
	for i := range docs {
		d := &docs[i]
		if _, err := w.insDoc.ExecContext(ctx, d.ID, d.Name, d.QName, d.Path, d.Signature, d.Doc, d.Body); err != nil {
			return classify(fmt.Errorf("store text of entity %d: %w", d.ID, err))
		}
	}
	return nil
}

// PutWhole writes a file's whole-file document (after PutEntities cleared
// the old one), into the source corpus or, when aside, the corpus of tests,
// docs and third-party code (see CorpusAside).
func (w *Writer) PutWhole(ctx context.Context, fileID int64, d *Doc, aside bool) error {
	if d.Body == "" && d.Path == "" {
		return nil
	}
	ins := w.insWhole
	if aside {
		ins = w.insAside
	}
	if _, err := ins.ExecContext(ctx, fileID, d.Path, d.Body); err != nil {
		return classify(fmt.Errorf("store whole-file text: %w", err))
	}
	return nil
}

// UpsertFile writes a file's row.
func (w *Writer) UpsertFile(ctx context.Context, f *File) error {
	if _, err := w.insFile.ExecContext(ctx, f.ID, f.Path, f.Lang, f.Size, f.MTime, f.Hash, f.Skip, f.Note, f.Pkg, f.IndexedAt); err != nil {
		return classify(fmt.Errorf("store file %s: %w", f.Path, err))
	}
	return nil
}

// EntityKeys returns the ids and names of a file's entities (before a
// replace, to know which references elsewhere need re-resolution).
func (w *Writer) EntityKeys(ctx context.Context, fileID int64) (map[int64]string, error) {
	rows, err := w.tx.QueryContext(ctx, `SELECT id, name FROM entities WHERE file_id = ? AND kind != 'file'`, fileID)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			return nil, classify(err)
		}
		out[id] = n
	}
	return out, classify(rows.Err())
}

// PurgeOrphans removes rows left by an indexer that was killed between
// writing a file's entities and its file row.
func (w *Writer) PurgeOrphans(ctx context.Context) error {
	for _, q := range []string{
		`DELETE FROM fts WHERE rowid IN (SELECT id FROM entities WHERE file_id NOT IN (SELECT id FROM files))`,
		`DELETE FROM entities WHERE file_id NOT IN (SELECT id FROM files)`,
		`DELETE FROM refs WHERE file_id NOT IN (SELECT id FROM files)`,
		`DELETE FROM fts_files WHERE rowid NOT IN (SELECT id FROM files)`,
		`DELETE FROM fts_files_aside WHERE rowid NOT IN (SELECT id FROM files)`,
	} {
		if _, err := w.tx.ExecContext(ctx, q); err != nil {
			return classify(fmt.Errorf("purge orphans: %w", err))
		}
	}
	return nil
}

// PutRefs inserts references.
func (w *Writer) PutRefs(ctx context.Context, refs []Ref) error {
	for i := range refs {
		r := &refs[i]
		var dst any
		if r.DstID != 0 {
			dst = r.DstID
		}
		if _, err := w.insRef.ExecContext(ctx, r.SrcID, r.FileID, int(r.Kind), r.Name, r.Qualifier, r.Line, dst); err != nil {
			return classify(err)
		}
	}
	return nil
}

// DeleteFile removes a file and everything extracted from it.
func (w *Writer) DeleteFile(ctx context.Context, fileID int64) error {
	if err := w.clearFile(ctx, fileID); err != nil {
		return err
	}
	_, err := w.delFile.ExecContext(ctx, fileID)
	return classify(err)
}

// SetRefTarget records the resolved target of a stored reference (0 clears).
func (w *Writer) SetRefTarget(ctx context.Context, rowID, dstID int64) error {
	var dst any
	if dstID != 0 {
		dst = dstID
	}
	_, err := w.setDst.ExecContext(ctx, dst, rowID)
	return classify(err)
}

// SetMeta stores a meta value inside the transaction.
func (w *Writer) SetMeta(ctx context.Context, key, value string) error {
	_, err := w.tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return classify(err)
}

// Tx exposes the transaction to packages that keep their own tables in the
// index file.
func (w *Writer) Tx() *sql.Tx { return w.tx }

// placeholders returns "?,?,...,?" with n marks.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

// DropIndexes drops the secondary indexes before a bulk load; CreateIndexes
// (or the next Open) restores them.
func (w *Writer) DropIndexes(ctx context.Context) error {
	for _, n := range secondaryIndexNames {
		if _, err := w.tx.ExecContext(ctx, "DROP INDEX IF EXISTS "+n); err != nil {
			return classify(err)
		}
	}
	return nil
}

// CreateIndexes builds the secondary indexes.
func (w *Writer) CreateIndexes(ctx context.Context) error {
	for _, q := range secondaryIndexes {
		if _, err := w.tx.ExecContext(ctx, q); err != nil {
			return classify(fmt.Errorf("create index: %w", err))
		}
	}
	return nil
}
