package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Writer is a write transaction on the index. Everything written through it
// becomes visible to other processes atomically at Commit.
type Writer struct {
	s  *Store
	tx *sql.Tx

	insFile, insWhole             *sql.Stmt
	insEntity, insRef, insDoc     inserter
	delDocs, delEntities, delRefs *sql.Stmt
	delWhole, delFile, setDst     *sql.Stmt
	insAside, delAside            *sql.Stmt
	setRef, delRef                *sql.Stmt
	fileSeqs, entitySeq           *sql.Stmt

	// t names the code tables written: the live ones, or a rebuild's.
	t *tableNames

	// nextSeq is the next entities.seq to assign.
	nextSeq int64
	seqs    map[int64]int64 // entity id → seq, for the file being written
	// kept is the seq of each entity of the file being written that was
	// stored before: it keeps its seq, and so its references' rows.
	kept map[int64]int64

	// unmapped says the transactions read the index file through SQLite's
	// page cache rather than the memory map (Unmap).
	unmapped bool
}

// batchRows is how many rows one multi-row INSERT carries: for rows this
// small, the per-statement cost (database/sql, cgo, starting the statement)
// is most of the cost of an insert.
const batchRows = 32

// inserter inserts rows into one table, batchRows at a time.
type inserter struct {
	one, many *sql.Stmt
	args      []any
}

// prepareInserter prepares "INSERT ... VALUES" (head) for one row and for
// batchRows rows of cols values each.
func prepareInserter(ctx context.Context, tx *sql.Tx, head string, cols int) (inserter, error) {
	row := "(" + placeholders(cols) + ")"
	one, err := tx.PrepareContext(ctx, head+row)
	if err != nil {
		return inserter{}, err
	}
	many, err := tx.PrepareContext(ctx, head+strings.Repeat(row+",", batchRows-1)+row)
	if err != nil {
		return inserter{}, err
	}
	return inserter{one: one, many: many, args: make([]any, 0, batchRows*cols)}, nil
}

// insert inserts n rows; row appends the values of row i to dst.
func (in *inserter) insert(ctx context.Context, n int, row func(i int, dst []any) []any) error {
	i := 0
	for ; i+batchRows <= n; i += batchRows {
		args := in.args[:0]
		for j := i; j < i+batchRows; j++ {
			args = row(j, args)
		}
		if _, err := in.many.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	for ; i < n; i++ {
		if _, err := in.one.ExecContext(ctx, row(i, in.args[:0])...); err != nil {
			return err
		}
	}
	clear(in.args[:cap(in.args)]) // drop references to the rows' strings
	return nil
}

// quick returns a context for the many short statements of a write: a
// cancellable context makes the driver start a goroutine per statement to
// watch it, which costs more than the statement. Callers check ctx between
// files instead.
func quick(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// BeginWrite starts a write transaction. It waits for other writers up to
// the busy timeout.
func (s *Store) BeginWrite(ctx context.Context) (*Writer, error) {
	return s.beginWrite(ctx, liveTables, 0)
}

// Next commits the transaction and begins the next one on the same tables.
// A rebuild's writer numbers entities on from where it was: its tables are
// written by this process alone and have no index on seq to find the
// highest one by.
func (w *Writer) Next(ctx context.Context) (*Writer, error) {
	if err := w.Commit(); err != nil {
		return nil, err
	}
	var seq int64
	if w.t.rebuild {
		seq = w.nextSeq
	}
	next, err := w.s.beginWrite(ctx, w.t, seq)
	if err == nil && w.unmapped {
		err = next.Unmap(ctx)
	}
	return next, err
}

// Unmap makes this writer and those Next starts from it read the index
// file through SQLite's page cache (32 MB) instead of its memory map, up to
// their Commit. A bulk load reads back most of what it writes (full-text
// segment merges, index builds, definitions): through the 1 GiB map, a
// kernel's cold index kept a gigabyte of the file resident in the
// process (decision 0106). The map is restored before each commit, for
// the connection's next user.
func (w *Writer) Unmap(ctx context.Context) error {
	w.unmapped = true
	_, err := w.tx.ExecContext(ctx, "PRAGMA main.mmap_size = 0")
	return classify(err)
}

// beginWrite starts a writer on the tables t; entities are numbered from
// nextSeq, or after the highest stored seq when it is 0.
func (s *Store) beginWrite(ctx context.Context, t *tableNames, nextSeq int64) (*Writer, error) {
	tx, err := s.beginIndexWrite(ctx)
	if err != nil {
		return nil, err
	}
	w := &Writer{s: s, tx: tx, t: t}
	prep := []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.insFile, `INSERT INTO {files}(id, path, lang, class, size, mtime, hash, skip, note, pkg, indexed_at)
			VALUES(?,?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(path) DO UPDATE SET id=excluded.id, lang=excluded.lang, class=excluded.class, size=excluded.size,
			mtime=excluded.mtime, hash=excluded.hash, skip=excluded.skip, note=excluded.note,
			pkg=excluded.pkg, indexed_at=excluded.indexed_at`},
		{&w.delDocs, `DELETE FROM {fts} WHERE rowid IN (SELECT seq FROM {entities} WHERE file_id = ?)`},
		{&w.delWhole, `DELETE FROM {fts_files} WHERE rowid IN (SELECT seq FROM {entities} WHERE id = ?)`},
		{&w.delAside, `DELETE FROM {fts_files_aside} WHERE rowid IN (SELECT seq FROM {entities} WHERE id = ?)`},
		{&w.delRefs, `DELETE FROM {refs} WHERE rowid IN (SELECT r.rowid FROM {entities} e JOIN {refs} r ON ` + refsOfEntity("e", "r") + ` WHERE e.file_id = ?)`},
		{&w.fileSeqs, `SELECT id, seq FROM {entities} WHERE file_id = ?`},
		{&w.entitySeq, `SELECT seq FROM {entities} WHERE id = ?`},
		{&w.delEntities, `DELETE FROM {entities} WHERE file_id = ?`},
		{&w.delFile, `DELETE FROM {files} WHERE id = ?`},
		{&w.setDst, `UPDATE {refs} SET dst_id = ? WHERE rowid = ?`},
		{&w.setRef, `UPDATE {refs} SET line = ?, dst_id = ? WHERE rowid = ?`},
		{&w.delRef, `DELETE FROM {refs} WHERE rowid = ?`},
		{&w.insWhole, insertWhole("{fts_files}")},
		{&w.insAside, insertWhole("{fts_files_aside}")},
	}
	for _, p := range prep {
		st, err := tx.PrepareContext(ctx, t.sql(p.sql))
		if err != nil {
			tx.Rollback()
			return nil, classify(fmt.Errorf("prepare index write: %w", err))
		}
		*p.dst = st
	}
	ins := []struct {
		dst  *inserter
		head string
		cols int
	}{
		{&w.insEntity, `INSERT OR REPLACE INTO {entities}(seq, id, file_id, parent_stored, kind_stored, name, qname_stored, start_line, end_line, signature_stored, doc) VALUES`, 11},
		// OR FAIL: a failed row ends the whole transaction anyway, and
		// without ABORT's partial rollback SQLite keeps no statement
		// journal for the pages the row and its three indexes touch.
		{&w.insRef, `INSERT OR FAIL INTO {refs}(rowid, src_id, kind, name, qualifier, line, dst_id) VALUES`, 7},
		{&w.insDoc, `INSERT INTO {fts}(rowid, ` + strings.Join(entityLayout.columns(), ", ") + `) VALUES`, 1 + len(entityLayout.columns())},
	}
	for _, in := range ins {
		if *in.dst, err = prepareInserter(ctx, tx, t.sql(in.head), in.cols); err != nil {
			tx.Rollback()
			return nil, classify(fmt.Errorf("prepare index write: %w", err))
		}
	}
	w.nextSeq = nextSeq
	if nextSeq == 0 {
		if err := tx.QueryRowContext(ctx, t.sql(`SELECT coalesce(max(seq), 0) + 1 FROM {entities}`)).Scan(&w.nextSeq); err != nil {
			tx.Rollback()
			return nil, classify(fmt.Errorf("prepare index write: %w", err))
		}
	}
	w.seqs = map[int64]int64{}
	w.kept = map[int64]int64{}
	return w, nil
}

// Commit makes the writes visible.
func (w *Writer) Commit() error {
	if w.unmapped {
		if _, err := w.tx.Exec(fmt.Sprintf("PRAGMA main.mmap_size = %d", mmapSize)); err != nil {
			w.tx.Rollback()
			return classify(err)
		}
	}
	if err := w.tx.Commit(); err != nil {
		return classify(err)
	}
	w.s.commits.Add(1)
	return nil
}

// Rollback discards the writes; it is a no-op after Commit, and on a nil
// Writer (a Next that failed).
func (w *Writer) Rollback() error {
	if w == nil {
		return nil
	}
	return w.tx.Rollback()
}

// clearFile removes a file's entities and documents, and its references
// unless keepRefs (the caller replaces them with ReplaceRefs).
func (w *Writer) clearFile(ctx context.Context, fileID int64, keepRefs bool) error {
	// Full-text rows and references are found through the entities, so
	// they go first.
	for _, st := range []*sql.Stmt{w.delDocs, w.delWhole, w.delAside, w.delRefs, w.delEntities} {
		if st == w.delRefs && keepRefs {
			continue
		}
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
	if err := w.PutWhole(ctx, f.ID, &fd.Whole, f.Class.Aside()); err != nil {
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
	return w.putEntities(ctx, fileID, ents, docs, replace, false)
}

// ReplaceEntities is PutEntities for a stored file whose references the
// caller read (RefsTx) and will replace with ReplaceRefs: they stay.
func (w *Writer) ReplaceEntities(ctx context.Context, fileID int64, ents []Entity, docs []Doc) error {
	return w.putEntities(ctx, fileID, ents, docs, true, true)
}

func (w *Writer) putEntities(ctx context.Context, fileID int64, ents []Entity, docs []Doc, replace, keepRefs bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = quick(ctx)
	clear(w.kept)
	if replace {
		if err := w.readSeqs(ctx, fileID); err != nil {
			return err
		}
		if err := w.clearFile(ctx, fileID, keepRefs); err != nil {
			return err
		}
	}
	clear(w.seqs)
	for i := range ents {
		id := ents[i].ID
		if seq, ok := w.kept[id]; ok {
			w.seqs[id] = seq
			continue
		}
		w.seqs[id] = w.nextSeq
		w.nextSeq++
	}
	err := w.insEntity.insert(ctx, len(ents), func(i int, dst []any) []any {
		e := &ents[i]
		// qname is computed from qname_stored (schema version 9).
		qname := e.QName
		if qname == e.Name {
			qname = ""
		}
		return append(dst, w.seqs[e.ID], e.ID, fileID, storedParent(e, fileID), storedKind(e.Kind), e.Name, qname, e.StartLine, e.EndLine, storedSignature(e.Signature, e.Name), e.Doc)
	})
	if err != nil {
		return classify(fmt.Errorf("store entities: %w", err))
	}
	for i := range docs {
		if _, ok := w.seqs[docs[i].ID]; !ok {
			return fmt.Errorf("store entity text: document %d has no entity", docs[i].ID)
		}
	}
	err = w.insDoc.insert(ctx, len(docs), func(i int, dst []any) []any {
		d := &docs[i]
		return entityLayout.values(append(dst, w.seqs[d.ID]), d.Name, d.QName, d.Path, d.Signature, d.Doc, d.Body)
	})
	if err != nil {
		return classify(fmt.Errorf("store entity text: %w", err))
	}
	return nil
}

// readSeqs reads the seqs of a file's stored entities into w.kept: an
// entity written again keeps its seq, so that its references' rows, which
// ReplaceRefs keeps, stay its own.
func (w *Writer) readSeqs(ctx context.Context, fileID int64) error {
	rows, err := w.fileSeqs.QueryContext(ctx, fileID)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return classify(err)
		}
		w.kept[id] = seq
	}
	return classify(rows.Err())
}

// PutWhole writes a file's whole-file document (after PutEntities cleared
// the old one), into the source corpus or, when aside, the corpus of tests,
// docs and third-party code (see CorpusAside).
func (w *Writer) PutWhole(ctx context.Context, fileID int64, d *Doc, aside bool) error {
	if d.Body == "" && d.Path == "" {
		return nil
	}
	// The row goes in under the file entity's seq (written by PutEntities).
	ins := w.insWhole
	if aside {
		ins = w.insAside
	}
	if _, err := ins.ExecContext(quick(ctx), append(fileLayout.values(nil, d.Path, d.Body), fileID)...); err != nil {
		return classify(fmt.Errorf("store whole-file text: %w", err))
	}
	return nil
}

// kindCodes are the codes an entity's kind is stored as (schema version
// 13), as the generated column kind (migrations[12]) reads them back; a
// kind without one is stored as itself. TestStoredKindsAndParents holds
// the two equal. The column's list is fixed once created: a new kind
// needs no code.
var kindCodes = map[string]string{
	"file": "1", "module": "2", "class": "3", "struct": "4", "interface": "5", "enum": "6",
	"type": "7", "function": "8", "method": "9", "constant": "10", "variable": "11", "heading": "12",
}

// storedKind is kind as stored: its code, or itself.
func storedKind(kind string) string {
	if c, ok := kindCodes[kind]; ok {
		return c
	}
	return kind
}

// storedParent is an entity's parent as stored (schema version 13): NULL
// where the parent is the file, as for nearly every declaration of C or
// Go, or where the entity is the file; 0 where there is none.
func storedParent(e *Entity, fileID int64) any {
	switch {
	case e.ParentID == fileID || e.ParentID == 0 && e.ID == fileID:
		return nil
	case e.ParentID == 0:
		return int64(0)
	}
	return e.ParentID
}

// nameMark stands for an entity's name in its stored signature (schema
// version 13): nearly every signature spells its entity's name (98 % of a
// kernel's), and the column signature puts it back.
const nameMark = "\x01"

// storedSignature is sig as stored: each occurrence of name replaced by
// nameMark. A mark in the source text itself would read back as the name,
// so it is stored as U+FFFD.
func storedSignature(sig, name string) string {
	sig = strings.ReplaceAll(sig, nameMark, "\uFFFD")
	if name == "" {
		return sig
	}
	return strings.ReplaceAll(sig, name, nameMark)
}

// insertWhole writes a whole-file document to table (fts_files or
// fts_files_aside) under its file entity's seq.
func insertWhole(table string) string {
	cols := fileLayout.columns()
	return `INSERT INTO ` + table + `(rowid, ` + strings.Join(cols, ", ") + `) SELECT seq` +
		strings.Repeat(", ?", len(cols)) + ` FROM {entities} WHERE id = ?`
}

// UpsertFile writes a file's row.
func (w *Writer) UpsertFile(ctx context.Context, f *File) error {
	if _, err := w.insFile.ExecContext(quick(ctx), f.ID, f.Path, f.Lang, int64(f.Class), f.Size, f.MTime, f.Hash, f.Skip, f.Note, f.Pkg, f.IndexedAt); err != nil {
		return classify(fmt.Errorf("store file %s: %w", f.Path, err))
	}
	return nil
}

// EntityKey is what references elsewhere resolve by: an entity's name and
// its parent (whose name a method's definition carries).
type EntityKey struct {
	Name     string
	ParentID int64 // 0 when none
}

// EntityKeys returns the names and parents of a file's entities by id
// (before a replace, to know which references elsewhere need re-resolution).
func (w *Writer) EntityKeys(ctx context.Context, fileID int64) (map[int64]EntityKey, error) {
	return entityKeys(ctx, w.tx, w.t.sql(entityKeysSQL), fileID)
}

// EntityKeys is Writer.EntityKeys on the live tables, outside a write
// transaction: for a writer that holds the index lock and reads before it
// begins one.
func (s *Store) EntityKeys(ctx context.Context, fileID int64) (map[int64]EntityKey, error) {
	return entityKeys(ctx, s.db, liveTables.sql(entityKeysSQL), fileID)
}

const entityKeysSQL = `SELECT id, name, coalesce(parent_id, 0) FROM {entities} WHERE file_id = ? AND kind != 'file'`

func entityKeys(ctx context.Context, db querier, q string, fileID int64) (map[int64]EntityKey, error) {
	rows, err := db.QueryContext(ctx, q, fileID)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[int64]EntityKey{}
	for rows.Next() {
		var id int64
		var k EntityKey
		if err := rows.Scan(&id, &k.Name, &k.ParentID); err != nil {
			return nil, classify(err)
		}
		out[id] = k
	}
	return out, classify(rows.Err())
}

// PurgeOrphans removes rows left by an indexer that was killed between
// writing a file's entities and its file row.
func (w *Writer) PurgeOrphans(ctx context.Context) error {
	for _, q := range []string{
		`DELETE FROM {fts} WHERE rowid IN (SELECT seq FROM {entities} WHERE file_id NOT IN (SELECT id FROM {files}))`,
		`DELETE FROM {fts_files} WHERE rowid IN (SELECT seq FROM {entities} WHERE kind = 'file' AND file_id NOT IN (SELECT id FROM {files}))`,
		`DELETE FROM {refs} WHERE rowid >> ` + strconv.Itoa(refPlaceBits) + ` NOT IN (SELECT seq FROM {entities} WHERE file_id IN (SELECT id FROM {files}))`,
		`DELETE FROM {entities} WHERE file_id NOT IN (SELECT id FROM {files})`,
		`DELETE FROM {fts_files_aside} WHERE rowid IN (SELECT seq FROM {entities} WHERE kind = 'file' AND file_id NOT IN (SELECT id FROM {files}))`,
	} {
		if _, err := w.tx.ExecContext(ctx, w.t.sql(q)); err != nil {
			return classify(fmt.Errorf("purge orphans: %w", err))
		}
	}
	return nil
}

// PutRefs inserts the references of entities that have none stored, in
// order: each source's first MaxRefsPerEntity.
func (w *Writer) PutRefs(ctx context.Context, refs []Ref) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.putRefs(quick(ctx), refs, map[int64]refPlace{})
}

// refPlace is where a source entity's next reference row goes: the
// entity's seq and the reference's place among the entity's.
type refPlace struct {
	seq   int64
	place int
}

// putRefs inserts refs, each in its source's next place (next, updated),
// or from the first place for a source not in next. References past a
// source's last place are not stored.
func (w *Writer) putRefs(ctx context.Context, refs []Ref, next map[int64]refPlace) error {
	// The rows stored: their numbers, and their places in refs (not a
	// copy of the references: a kernel's largest files have tens of
	// thousands, and a copy raised the cold run's peak memory).
	rowIDs := make([]int64, 0, len(refs))
	rows := make([]int32, 0, len(refs))
	for i := range refs {
		src := refs[i].SrcID
		p, ok := next[src]
		if !ok {
			p.seq, ok = w.seqs[src] // the file just written
		}
		if !ok {
			if err := w.entitySeq.QueryRowContext(ctx, src).Scan(&p.seq); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("store reference %s: source entity %d is not stored", refs[i].Name, src)
				}
				return classify(err)
			}
		}
		if p.place >= MaxRefsPerEntity {
			continue
		}
		rowIDs = append(rowIDs, refRowID(p.seq, p.place))
		rows = append(rows, int32(i))
		p.place++
		next[src] = p
	}
	return classify(w.insRef.insert(ctx, len(rows), func(i int, dst []any) []any {
		r := &refs[rows[i]]
		var dst0 any
		if r.DstID != 0 {
			dst0 = r.DstID
		}
		return append(dst, rowIDs[i], r.SrcID, int(r.Kind), r.Name, r.Qualifier, r.Line, dst0)
	}))
}

// DeleteFile removes a file and everything extracted from it.
func (w *Writer) DeleteFile(ctx context.Context, fileID int64) error {
	if err := w.clearFile(ctx, fileID, false); err != nil {
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
	_, err := w.setDst.ExecContext(quick(ctx), dst, rowID)
	return classify(err)
}

// SetMeta stores a meta value inside the transaction.
func (w *Writer) SetMeta(ctx context.Context, key, value string) error {
	_, err := w.tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return classify(err)
}

// ImportsToCheck returns, inside the writer's transaction, the import
// references that a run adding or removing files may resolve differently:
// those that found no file of the workspace, and those whose target is one
// of targets (file ids: removed files, files beside added ones).
func (w *Writer) ImportsToCheck(ctx context.Context, targets []int64) ([]Ref, error) {
	return importsToCheck(ctx, w.tx, targets)
}

// ImportsOfNames returns, inside the writer's transaction, the imports
// that bring one of names into scope (qualifier "local=name"). A reference
// through an alias ("import { toSSG as baseToSSG }") carries the local
// name, so the run that changes the definitions of a name finds such
// references through their file's import.
func (w *Writer) ImportsOfNames(ctx context.Context, names []string) ([]Ref, error) {
	return w.namedImportsBy(ctx, importedName("r."), names)
}

// ImportsAs returns, inside the writer's transaction, the imports of a
// name whose local name is one of locals: where a module gets a name it
// re-exports ("export { jsxDEV as jsx } from …" for jsx).
func (w *Writer) ImportsAs(ctx context.Context, locals []string) ([]Ref, error) {
	return w.namedImportsBy(ctx, importLocal("r."), locals)
}

// namedImportsBy returns the named imports whose side (importedName or
// importLocal) is one of names.
func (w *Writer) namedImportsBy(ctx context.Context, side string, names []string) ([]Ref, error) {
	var out []Ref
	err := inChunks(names, func(chunk []string) error {
		return appendRefs(&out)(w.tx.QueryContext(ctx, namedImportsSQL(side, len(chunk)), stringArgs(chunk)...))
	})
	return out, err
}

// namedImportsSQL is the statement of namedImportsBy for n names: its terms
// are refs_imported_names' or refs_import_locals' own, so the index serves
// it.
func namedImportsSQL(side string, n int) string {
	return refsQuery + namedImports("r.") + ` AND ` + side + ` IN (` + placeholders(n) + `)`
}

// Refs is Store.Refs inside the writer's transaction: it sees what the
// writer wrote and has not committed.
func (w *Writer) Refs(ctx context.Context, fileIDs []int64, names []string) ([]Ref, error) {
	return refs(ctx, w.tx, fileIDs, names)
}

// Recount records, inside the writer's transaction, the counts that
// ranking reads on every query and that a full count would cost it each
// time: the entities (MetaDocuments, the full-text index's document
// count) and the parsed files (MetaParsedFiles; a scan of the file table
// cost a kernel-size query 4 ms).
func (w *Writer) Recount(ctx context.Context) error {
	var docs, parsed int
	if err := w.tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM files WHERE skip = '')`).Scan(&docs, &parsed); err != nil {
		return classify(fmt.Errorf("recount: %w", err))
	}
	if err := w.SetMeta(ctx, MetaDocuments, strconv.Itoa(docs)); err != nil {
		return err
	}
	return w.SetMeta(ctx, MetaParsedFiles, strconv.Itoa(parsed))
}

// Counted reports whether the index holds the counts Recount records (an
// index written before MetaParsedFiles existed does not).
func (w *Writer) Counted(ctx context.Context) (bool, error) {
	var n int
	err := w.tx.QueryRowContext(ctx, `SELECT count(*) FROM meta WHERE key = ?`, MetaParsedFiles).Scan(&n)
	return n > 0, classify(err)
}

// The meta keys of the counts Recount records.
const (
	MetaDocuments   = "documents"
	MetaParsedFiles = "parsed_files"
)

// MetaComplete is the meta key a whole-tree index run sets in its last
// transaction (index.CheckHealth). An index without it was never filled by
// one: a new file, the empty one Open starts after moving a damaged index
// aside, or one whose migration forgot its analysis. Readers see such an
// index incomplete and have it rebuilt in the background.
const MetaComplete = "complete_at"

// maxInArgs bounds the values bound in one `IN (...)` list, well under
// SQLite's limit on a statement's variables.
const maxInArgs = 500

// inChunks calls fn with successive parts of xs of at most maxInArgs
// values, for lookups that bind each value in an `IN (...)` list.
func inChunks[T any](xs []T, fn func(chunk []T) error) error {
	for start := 0; start < len(xs); start += maxInArgs {
		if err := fn(xs[start:min(start+maxInArgs, len(xs))]); err != nil {
			return err
		}
	}
	return nil
}

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
