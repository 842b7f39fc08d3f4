package store

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/ctxls/ctxls/internal/workspace"
)

// applicationID marks a SQLite file as a ctxls index ("ctx1"), so that a
// foreign database at the same path is recognised and never written into.
const applicationID = 0x63747831

// SchemaVersion is the version of the schema this build writes. An index
// with another version is migrated when a migration exists, else rebuilt
// (the index is a cache of the workspace, so rebuilding loses nothing).
const SchemaVersion = 14

// migrations[v] upgrades a database from version v to v+1. migrations[0]
// creates the schema.
var migrations = []string{
	0: `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per tracked file. id is the file entity's id.
CREATE TABLE files (
	id         INTEGER PRIMARY KEY,
	path       TEXT NOT NULL UNIQUE,
	lang       TEXT NOT NULL,
	size       INTEGER NOT NULL,
	mtime      INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	skip       TEXT NOT NULL DEFAULT '',  -- why the file was not parsed; '' when it was
	note       TEXT NOT NULL DEFAULT '',  -- e.g. syntax errors, repaired encoding
	pkg        TEXT NOT NULL DEFAULT '',
	indexed_at INTEGER NOT NULL
);

-- Entities, including one "file" entity per parsed file. ids are stable
-- hashes of (path, kind, qualified name, ordinal) so that edges from other
-- files survive a re-index of the target's file.
CREATE TABLE entities (
	id         INTEGER PRIMARY KEY,
	file_id    INTEGER NOT NULL,
	parent_id  INTEGER,
	kind       TEXT NOT NULL,
	name       TEXT NOT NULL,
	qname      TEXT NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	signature  TEXT NOT NULL DEFAULT '',
	doc        TEXT NOT NULL DEFAULT ''
);
-- (secondary indexes: see secondaryIndexes)

-- References from an entity to a name: calls, references, extends,
-- implements, imports. dst_id is the resolved target entity, NULL when the
-- name did not resolve (the name is kept: retrieval matches on it).
CREATE TABLE refs (
	src_id    INTEGER NOT NULL,
	file_id   INTEGER NOT NULL,
	kind      INTEGER NOT NULL,
	name      TEXT NOT NULL,
	qualifier TEXT NOT NULL DEFAULT '',
	line      INTEGER NOT NULL,
	dst_id    INTEGER
);
-- (secondary indexes: see secondaryIndexes)

-- Full-text index over analyzed terms (analysis happens in Go, see package
-- analyzer); contentless, one row per entity with rowid = entities.id.
CREATE VIRTUAL TABLE fts USING fts5(
	name, qname, path, signature, doc, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
-- Whole-file documents: the terms of each parsed file with their frequency
-- (capped; see index.maxWholeTF), rowid = files.id. Since version 3 only
-- source files; tests, docs and third-party code are in fts_files_aside. File ranking uses them like whole-file BM25 retrieval does.
CREATE VIRTUAL TABLE fts_files USING fts5(
	path, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);

-- Document frequencies of terms, for query-side IDF and the relevance gate.
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row);

-- Session state shared by short-lived hook processes (package collect).
CREATE TABLE session_pending (
	session  TEXT NOT NULL,
	key      TEXT NOT NULL,           -- source:id
	source   TEXT NOT NULL,
	id       TEXT NOT NULL,
	content  TEXT NOT NULL,
	priority INTEGER NOT NULL,        -- 0 critical .. 3 low
	metadata TEXT NOT NULL DEFAULT '{}',
	created  INTEGER NOT NULL,
	PRIMARY KEY (session, key)
) WITHOUT ROWID;
CREATE TABLE session_injected (
	session TEXT NOT NULL,
	key     TEXT NOT NULL,
	hash    TEXT NOT NULL,
	at      INTEGER NOT NULL,
	PRIMARY KEY (session, key)
) WITHOUT ROWID;
CREATE TABLE session_stats (
	session    TEXT PRIMARY KEY,
	injections INTEGER NOT NULL DEFAULT 0,
	dedup_hits INTEGER NOT NULL DEFAULT 0,
	updated    INTEGER NOT NULL
) WITHOUT ROWID;

-- Editor and assistant activity (server, hooks): the working set.
CREATE TABLE activity (
	id      INTEGER PRIMARY KEY,
	at      INTEGER NOT NULL,         -- UnixMilli
	session TEXT NOT NULL DEFAULT '',
	origin  TEXT NOT NULL,            -- editor | assistant
	type    TEXT NOT NULL,            -- file_open | file_edit | file_close | symbol_hover | selection | prompt | tool
	path    TEXT NOT NULL DEFAULT '',
	symbols TEXT NOT NULL DEFAULT '', -- space-separated
	line    INTEGER NOT NULL DEFAULT 0,
	text    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX activity_at ON activity(at);
`,
	// Version 2: memories of the memory plugin's markdown store (package
	// memory), indexed with the analyzer used for code. Derived from the
	// memory files, like everything else in the index.
	1: `
CREATE TABLE memories (
	id      INTEGER PRIMARY KEY,           -- hash of the file's path
	path    TEXT NOT NULL UNIQUE,          -- absolute path of the memory file
	size    INTEGER NOT NULL,
	mtime   INTEGER NOT NULL,              -- UnixNano
	skip    TEXT NOT NULL DEFAULT '',      -- why the file is not a loadable memory
	scope   TEXT NOT NULL,
	slug    TEXT NOT NULL,
	type    TEXT NOT NULL,
	title   TEXT NOT NULL,
	tags    TEXT NOT NULL DEFAULT '',      -- space-separated
	severity TEXT NOT NULL DEFAULT '',
	files   TEXT NOT NULL DEFAULT '',      -- newline-separated paths or globs the memory is attached to
	created INTEGER NOT NULL DEFAULT 0,    -- UnixMilli
	updated INTEGER NOT NULL DEFAULT 0,
	terms   TEXT NOT NULL DEFAULT ''       -- distinct analyzed terms, for relevance in [0,1]
);
CREATE INDEX memories_slug ON memories(slug);
CREATE VIRTUAL TABLE fts_memories USING fts5(
	title, tags, files, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE fts_memories_vocab USING fts5vocab(fts_memories, row);
`,
	// Version 3 makes the index smaller (docs/decisions/0050): full-text rows
	// are numbered by a small sequential entities.seq instead of the 63-bit
	// entity id (FTS5 stores each posting's rowid as a delta from the
	// previous one, and random ids made every delta 7-9 bytes), and refs
	// no longer repeat the file id its source entity already has. The
	// index tables are derived data, so they are rebuilt rather than
	// converted; session and activity tables are kept.
	2: `
DROP TABLE fts_vocab;
DROP TABLE fts;
DROP TABLE fts_files;
DROP TABLE refs;
DROP TABLE entities;
DELETE FROM files;
DELETE FROM meta WHERE key IN ('analyzer', 'dirty', 'documents', 'indexed_at');

-- seq numbers the entity's rows in fts (and, for a file entity, in
-- fts_files): assigned in increasing order as entities are written, so that
-- one file's entities have neighbouring numbers.
CREATE TABLE entities (
	id         INTEGER PRIMARY KEY,
	file_id    INTEGER NOT NULL,
	parent_id  INTEGER,
	kind       TEXT NOT NULL,
	name       TEXT NOT NULL,
	qname      TEXT NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	signature  TEXT NOT NULL DEFAULT '',
	doc        TEXT NOT NULL DEFAULT '',
	seq        INTEGER NOT NULL
);
CREATE UNIQUE INDEX entities_seq ON entities(seq);

-- A reference's file is its source entity's file_id.
CREATE TABLE refs (
	src_id    INTEGER NOT NULL,
	kind      INTEGER NOT NULL,
	name      TEXT NOT NULL,
	qualifier TEXT NOT NULL DEFAULT '',
	line      INTEGER NOT NULL,
	dst_id    INTEGER
);

-- rowid = entities.seq.
CREATE VIRTUAL TABLE fts USING fts5(
	name, qname, path, signature, doc, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
-- rowid = entities.seq of the file entity.
CREATE VIRTUAL TABLE fts_files USING fts5(
	path, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row);
`,
	// Version 4: whole-file documents of tests, docs and third-party code
	// get a table of their own, so that fts_files' BM25 statistics (IDF,
	// average length) describe the code a question is usually about
	// (decision 0073). Indexes re-analyze when this arrives (analyzer 5).
	3: `
-- rowid = entities.seq of the file entity, as in fts_files.
CREATE VIRTUAL TABLE fts_files_aside USING fts5(
	path, body,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
`,
	// Version 5: the session and activity tables move to the state
	// database (state.go, docs/decisions/0084), so that recording a hook
	// call no longer empties every other connection's cache of the index.
	// Their rows move with them.
	4: `
INSERT OR IGNORE INTO state.session_pending SELECT * FROM main.session_pending;
INSERT OR IGNORE INTO state.session_injected SELECT * FROM main.session_injected;
INSERT OR IGNORE INTO state.session_stats SELECT * FROM main.session_stats;
INSERT OR IGNORE INTO state.activity SELECT * FROM main.activity;
DROP TABLE main.session_pending;
DROP TABLE main.session_injected;
DROP TABLE main.session_stats;
DROP TABLE main.activity;
`,
	// Version 6: the git history of the workspace (package history,
	// docs/decisions/0094): each commit reachable from HEAD with its
	// analysed message and the files it touched, for the history signals
	// of file ranking. Derived from the repository like everything else.
	5: `
-- One row per commit reachable from HEAD (the newest history.MaxCommits).
-- skip says why its files were not recorded ('mass': too many to tell
-- anything); nfiles counts the files it touched either way.
CREATE TABLE commits (
	id     INTEGER PRIMARY KEY,
	hash   TEXT NOT NULL UNIQUE,
	at     INTEGER NOT NULL,           -- committer time, Unix seconds
	nfiles INTEGER NOT NULL,
	skip   TEXT NOT NULL DEFAULT ''
);
CREATE TABLE commit_files (
	commit_id INTEGER NOT NULL,
	path      TEXT NOT NULL,
	PRIMARY KEY (commit_id, path)
) WITHOUT ROWID;
CREATE INDEX commit_files_path ON commit_files(path);
-- Analysed commit messages, rowid = commits.id.
CREATE VIRTUAL TABLE fts_commits USING fts5(
	msg,
	content='', contentless_delete=1, detail=full,
	tokenize='unicode61 remove_diacritics 0'
);
`,
	// Version 7: each file's class (workspace.Class: test, doc,
	// third-party, generated, as bits; 0 for source), decided by the
	// indexer and read by ranking, which no longer works it out from the
	// path at query time (decision 0102). Existing rows are classified by
	// backfills[6], so that an index upgrades without a re-index.
	6: `
ALTER TABLE files ADD COLUMN class INTEGER NOT NULL DEFAULT 0;
`,
	// Version 8: commits by time, for the newest commits that ranking's
	// recency reads on every query (decision 0114) without a scan of the
	// whole history.
	7: `
CREATE INDEX IF NOT EXISTS commits_at ON commits(at);
`,
	// Version 9: an entity's qualified name is stored only where it is not
	// its name (decision 0115): most of a C tree's entities are top-level
	// declarations whose qualified name is their name. qname is computed
	// from qname_stored, so every reader sees the qualified name as before
	// and the rows of an older index read the same without a re-index.
	8: `
ALTER TABLE entities RENAME COLUMN qname TO qname_stored;
ALTER TABLE entities ADD COLUMN qname TEXT GENERATED ALWAYS AS (iif(qname_stored = '', name, qname_stored)) VIRTUAL;
`,
	// Version 10: the index of resolved references by target also orders
	// them by source (decision 0118), so that a capped list of an entity's
	// users is the same list however the index was built: by rowid, it
	// followed the order in which the callers' files were last indexed.
	9: `
DROP INDEX IF EXISTS refs_dst;
` + refsDstIndex + `;
`,
	// Version 11: the same index also holds each reference's kind
	// (decision 0123), so that reading an entity's users (the graph
	// spread of every query reads up to 4,000) needs no row of the table.
	10: `
DROP INDEX IF EXISTS refs_dst;
` + refsDstIndex + `;
`,
	// Version 12: the entity documents' postings record in which columns a
	// document holds a term, not where (detail=column, decision 0130):
	// ranking never read the positions, which were more than a third of
	// the postings. ftsrank.Name ranks them as bm25() did, a term's
	// frequency in a signature or doc told by its frequency columns
	// (entityColumns). A contentless table cannot be converted, so it
	// starts empty and the indexer analyses every file again (the
	// analyzer's version is forgotten), rebuilding the code tables beside
	// the live ones.
	11: `
DROP TABLE fts_vocab;
DROP TABLE fts;
-- A signature's and a doc's terms by the bits of their frequency: the
-- terms of odd frequency in signature and doc, of frequency with bit 2 set
-- in signature_2 and doc_2, and so on; pad makes up the length
-- (frequencyColumns).
CREATE VIRTUAL TABLE fts USING fts5(
	name, qname, path, signature, doc, body,
	signature_2, signature_4, signature_8, signature_16, doc_2, doc_4, doc_8, doc_16, pad,
	content='', contentless_delete=1, detail=column,
	tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row);
DELETE FROM meta WHERE key = 'analyzer';
`,
	// Version 13: the whole-file postings lose their positions too, a
	// path's and a file's terms written by frequency as a signature's are
	// (textLayout), and no table has a pad column: ctxrank counts a
	// document's length from its columns' sizes and multiplicities
	// (decision 0131). An entity's signature is stored without its name,
	// which nearly every signature spells (a one-byte mark stands for
	// it), its kind as a code, its parent only where it is not the file;
	// references and entities are found by name through a hash of it
	// (decision 0132).
	// Rows of version 12 read as before through the generated columns.
	// The full-text tables start empty and the indexer analyses every
	// file again.
	12: `
DROP TABLE fts_vocab;
DROP TABLE fts;
DROP TABLE fts_files;
DROP TABLE fts_files_aside;
` + fullTextTables + `
-- The analysis forgotten, the index is not complete until a run has
-- analysed every file again: readers have it rebuilt in the background.
DELETE FROM meta WHERE key IN ('analyzer', '` + MetaComplete + `');
ALTER TABLE entities RENAME COLUMN signature TO signature_stored;
ALTER TABLE entities ADD COLUMN signature TEXT GENERATED ALWAYS AS (replace(signature_stored, char(1), name)) VIRTUAL;
-- kind_stored holds a kind's code (kindCodes: 1 file, 2 module, …), or
-- the kind itself where it has none; parent_stored is NULL where the
-- parent is the file (or the entity is the file), 0 where there is none.
ALTER TABLE entities RENAME COLUMN kind TO kind_stored;
ALTER TABLE entities ADD COLUMN kind TEXT GENERATED ALWAYS AS (iif(kind_stored GLOB '[1-9]*', rtrim(substr(
	'file     module   class    struct   interfaceenum     type     function method   constant variable heading  ',
	kind_stored * 9 - 8, 9)), kind_stored)) VIRTUAL;
ALTER TABLE entities RENAME COLUMN parent_id TO parent_stored;
ALTER TABLE entities ADD COLUMN parent_id INTEGER GENERATED ALWAYS AS (
	iif(parent_stored IS NULL, iif(id = file_id, NULL, file_id), nullif(parent_stored, 0))) VIRTUAL;
DROP INDEX IF EXISTS refs_name;
` + refsNameIndex + `;
DROP INDEX IF EXISTS entities_name;
` + entitiesNameIndex + `;
`,
	// Version 14: an entity's row is numbered by its seq and found by its
	// stable id through a unique index, and a reference's row by its
	// source's seq and its place among the source's references
	// (refRowID), so that the references of an entity or a file are a
	// range of rows and need no index by source (decision 0133). Rows
	// cannot be renumbered in place: the code tables start empty and the
	// next run indexes every file again.
	13: `
DROP TABLE fts_vocab;
DROP TABLE fts;
DROP TABLE fts_files;
DROP TABLE fts_files_aside;
DROP TABLE refs;
DROP TABLE entities;
DELETE FROM files;
DELETE FROM meta WHERE key IN ('analyzer', 'dirty', 'documents', 'indexed_at', '` + MetaComplete + `');
` + codeTablesV14,
}

// codeTablesV14 creates the entity, reference and full-text tables of
// schema version 14 (migrations[13]).
const codeTablesV14 = `
-- seq numbers the entity's rows in fts (and, for a file entity, in
-- fts_files or fts_files_aside); an entity keeps its seq when its file is
-- indexed again. id is the stable hash of (path, kind, qualified name,
-- ordinal) that references and readers know the entity by. Stored columns
-- as in version 13: qname_stored is '' where the qualified name is the
-- name, signature_stored spells the name as char(1), kind_stored is a
-- kind's code (kindCodes) or the kind, parent_stored is NULL where the
-- parent is the file (or the entity is the file), 0 where there is none.
CREATE TABLE entities (
	seq              INTEGER PRIMARY KEY,
	id               INTEGER NOT NULL UNIQUE,
	file_id          INTEGER NOT NULL,
	parent_stored    INTEGER,
	kind_stored      TEXT NOT NULL,
	name             TEXT NOT NULL,
	qname_stored     TEXT NOT NULL,
	start_line       INTEGER NOT NULL,
	end_line         INTEGER NOT NULL,
	signature_stored TEXT NOT NULL DEFAULT '',
	doc              TEXT NOT NULL DEFAULT '',
	qname     TEXT GENERATED ALWAYS AS (iif(qname_stored = '', name, qname_stored)) VIRTUAL,
	signature TEXT GENERATED ALWAYS AS (replace(signature_stored, char(1), name)) VIRTUAL,
	kind      TEXT GENERATED ALWAYS AS (iif(kind_stored GLOB '[1-9]*', rtrim(substr(
		'file     module   class    struct   interfaceenum     type     function method   constant variable heading  ',
		kind_stored * 9 - 8, 9)), kind_stored)) VIRTUAL,
	parent_id INTEGER GENERATED ALWAYS AS (
		iif(parent_stored IS NULL, iif(id = file_id, NULL, file_id), nullif(parent_stored, 0))) VIRTUAL
);

-- rowid = refRowID(seq of the source entity, the reference's place among
-- the source's references). src_id and dst_id are entity ids.
CREATE TABLE refs (
	src_id    INTEGER NOT NULL,
	kind      INTEGER NOT NULL,
	name      TEXT NOT NULL,
	qualifier TEXT NOT NULL DEFAULT '',
	line      INTEGER NOT NULL,
	dst_id    INTEGER
);

` + fullTextTables

// fullTextTables creates the full-text tables of schema versions 13 and 14
// (textLayout describes their columns).
const fullTextTables = `CREATE VIRTUAL TABLE fts USING fts5(
	name, qname, path, signature, doc, body,
	signature_2, signature_4, signature_8, signature_16, doc_2, doc_4, doc_8, doc_16,
	content='', contentless_delete=1, detail=column,
	tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row);
CREATE VIRTUAL TABLE fts_files USING fts5(
	path, body, path_2, path_4, path_8, path_16, body_2, body_4, body_8, body_16,
	content='', contentless_delete=1, detail=column,
	tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE fts_files_aside USING fts5(
	path, body, path_2, path_4, path_8, path_16, body_2, body_4, body_8, body_16,
	content='', contentless_delete=1, detail=column,
	tokenize='unicode61 remove_diacritics 0'
);
`

// refsDstIndex orders an entity's resolved users by their stable id, and
// covers what EdgesTo reads.
const refsDstIndex = `CREATE INDEX IF NOT EXISTS refs_dst ON refs(dst_id, src_id, kind) WHERE dst_id IS NOT NULL`

// refsNameIndex finds references by name through a hash of the name
// (ftsrank.HashName, decision 0132): three bytes a row where the name
// took thirteen on average. A lookup names the hash and the name.
const refsNameIndex = `CREATE INDEX IF NOT EXISTS refs_name ON refs(ctxhash(name))`

// entitiesNameIndex finds entities by a key of their name
// (ftsrank.NameKey, decision 0132): a name compared without case, or a
// file by its stem. Three bytes a row where the name took 23 on average.
const entitiesNameIndex = `CREATE INDEX IF NOT EXISTS entities_name ON entities(ctxnamekey(name))`

// backfills[v] runs after migrations[v], in the same transaction, for what
// SQL alone cannot compute.
var backfills = map[int]func(context.Context, *sql.Tx) error{
	6: classifyFiles,
}

// classifyFiles sets the class of every file row as the indexer would have.
func classifyFiles(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, path, skip FROM files`)
	if err != nil {
		return err
	}
	type row struct {
		id    int64
		class workspace.Class
	}
	var classed []row
	for rows.Next() {
		var id int64
		var p, skip string
		if err := rows.Scan(&id, &p, &skip); err != nil {
			rows.Close()
			return err
		}
		c := workspace.ClassOf(p)
		if skip == SkipGenerated {
			c |= workspace.Generated
		}
		if c != workspace.Source {
			classed = append(classed, row{id, c})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE files SET class = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	for _, r := range classed {
		if _, err := upd.ExecContext(ctx, int64(r.class), r.id); err != nil {
			return err
		}
	}
	return nil
}

// SkipGenerated is the skip reason of a generated file (index.SkipGenerated),
// which the version 7 backfill reads from the rows.
const SkipGenerated = "generated"

// secondaryIndexes are created after the tables. A cold index run drops them
// and builds them once at the end, which is several times faster than
// maintaining them row by row; Open recreates any that a killed run left
// missing.
var secondaryIndexes = []string{
	`CREATE INDEX IF NOT EXISTS entities_file ON entities(file_id)`,
	entitiesNameIndex,
	refsNameIndex,
	refsDstIndex,
	`CREATE INDEX IF NOT EXISTS refs_unresolved_imports ON refs(src_id) WHERE ` + unresolvedImports(""),
	`CREATE INDEX IF NOT EXISTS refs_imported_names ON refs(` + importedName("") + `) WHERE ` + namedImports(""),
	`CREATE INDEX IF NOT EXISTS refs_import_locals ON refs(` + importLocal("") + `) WHERE ` + namedImports(""),
}

var secondaryIndexNames = []string{"entities_file", "entities_name", "refs_name", "refs_dst", "refs_unresolved_imports", "refs_imported_names", "refs_import_locals"}

// namedImports selects the import references (of the refs table named by
// alias) that bring a name into scope, whose qualifier is "local=name"
// (symbols.Import.ImportQualifier): JS/TS, Python, Rust and Java imports of
// a name. importedName is the name such an import brings in. A reference
// through an alias ("import { toSSG as baseToSSG }") is stored under the
// local name, so a run that changes the definitions of a name finds the
// aliases of it through these (Writer.ImportsOfNames).
func namedImports(alias string) string {
	return alias + `kind = ` + strconv.Itoa(int(RefImports)) + ` AND instr(` + alias + `qualifier, '=') > 0`
}

func importedName(alias string) string {
	return `substr(` + alias + `qualifier, instr(` + alias + `qualifier, '=') + 1)`
}

// importLocal is the local name of a named import: the name its file's
// references use, and under which a module re-exports it.
func importLocal(alias string) string {
	return `substr(` + alias + `qualifier, 1, instr(` + alias + `qualifier, '=') - 1)`
}

// unresolvedImports selects the import references (of the refs table
// named by alias) that found no file of the workspace: a run that adds or
// removes files resolves them again (Writer.ImportsToCheck). They are few
// (a kernel's 6 k of 354 k includes), so their partial index costs little.
// The kind is written out: a partial index serves only the queries whose
// terms are its own.
func unresolvedImports(alias string) string {
	return alias + `kind = ` + strconv.Itoa(int(RefImports)) + ` AND ` + alias + `dst_id IS NULL`
}
