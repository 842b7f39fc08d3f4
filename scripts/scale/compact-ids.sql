-- What the code tables of an index would take with compact entity ids
-- (issue 25; docs/PERFORMANCE.md, stop 40): every entity numbered by its
-- seq instead of its 64-bit hash, in the rows, in the references and in
-- every index, and no entities_seq. The full-text tables are left out: they
-- are numbered by seq already. The name indexes stand in a three-byte
-- integer expression for ctxhash/ctxnamekey, which the sqlite3 shell lacks.
-- Run from an index's .ctxls directory, into a scratch file:
--     cd ROOT/.ctxls && sqlite3 /var/tmp/compact.db < …/scripts/scale/compact-ids.sql
PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-400000;
ATTACH 'file:index.db?mode=ro' AS k;
CREATE TEMP TABLE m AS SELECT id AS h, seq AS c FROM k.entities;
CREATE UNIQUE INDEX temp.m_h ON m(h);
CREATE TABLE entities (
	id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, parent_stored INTEGER, kind_stored TEXT NOT NULL, name TEXT NOT NULL,
	qname_stored TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature_stored TEXT NOT NULL DEFAULT '',
	doc TEXT NOT NULL DEFAULT '');
INSERT INTO entities SELECT e.seq, (SELECT c FROM m WHERE h = e.file_id), (SELECT c FROM m WHERE h = e.parent_stored) , e.kind_stored, e.name, e.qname_stored, e.start_line, e.end_line, e.signature_stored, e.doc FROM k.entities e ORDER BY e.seq;
CREATE TABLE refs (src_id INTEGER NOT NULL, kind INTEGER NOT NULL, name TEXT NOT NULL, qualifier TEXT NOT NULL DEFAULT '', line INTEGER NOT NULL, dst_id INTEGER);
INSERT INTO refs SELECT (SELECT c FROM m WHERE h = r.src_id), r.kind, r.name, r.qualifier, r.line, (SELECT c FROM m WHERE h = r.dst_id) FROM k.refs r ORDER BY r.rowid;
CREATE INDEX entities_file ON entities(file_id);
CREATE INDEX entities_name ON entities((unicode(name) * 30000 + length(name) * 100 + unicode(substr(name, -1))));
CREATE INDEX refs_name ON refs((unicode(name) * 30000 + length(name) * 100 + unicode(substr(name, -1))));
CREATE INDEX refs_src ON refs(src_id);
CREATE INDEX refs_dst ON refs(dst_id, src_id, kind) WHERE dst_id IS NOT NULL;
SELECT name, round(sum(pgsize)/1e6,1) FROM dbstat GROUP BY name ORDER BY 2 DESC;
