package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// codeTables are the tables derived from the workspace's code: what a
// rebuild replaces. Everything else in the file is kept as it is: meta
// (apart from the keys the indexer owns), memories and fts_memories, the
// git history (commits, commit_files, fts_commits: package history keeps
// it), and the fts5vocab tables, which read whichever table has the name
// they were declared over. Sessions and activity are in the state database.
var codeTables = []string{"files", "entities", "refs", "fts", "fts_files", "fts_files_aside"}

// rebuildPrefix names a rebuild's copy of a code table. FTS5 names its own
// shadow tables after the table (rebuild_fts_data, ...), which no live
// table's name starts with.
const rebuildPrefix = "rebuild_"

// tableNames maps the {table} marks in the writer's SQL to the tables a
// Writer writes: the live ones or a rebuild's.
type tableNames struct {
	r       *strings.Replacer
	rebuild bool
}

func newTableNames(prefix string) *tableNames {
	var pairs []string
	for _, t := range codeTables {
		pairs = append(pairs, "{"+t+"}", prefix+t)
	}
	return &tableNames{r: strings.NewReplacer(pairs...), rebuild: prefix != ""}
}

var (
	liveTables    = newTableNames("")
	rebuildTables = newTableNames(rebuildPrefix)
)

// sql returns q with its {table} marks replaced by table names.
func (t *tableNames) sql(q string) string { return t.r.Replace(q) }

// StartRebuild prepares a rebuild of the code tables beside the live ones
// (docs/decisions/0057): it drops what an interrupted rebuild left and
// creates empty tables defined as the live ones are (their definitions are
// read from the schema, so every migration carries over), without their
// secondary indexes, which SwapRebuild builds once at the end. Readers and
// writers of the live tables are not affected: BeginRebuildWrite writes the
// new tables, and SwapRebuild replaces the live ones in one transaction.
func (s *Store) StartRebuild(ctx context.Context) error {
	tx, err := s.beginIndexWrite(ctx)
	if err != nil {
		return fmt.Errorf("start rebuild: %w", err)
	}
	defer tx.Rollback()
	if err := dropRebuild(ctx, tx); err != nil {
		return err
	}
	for _, t := range codeTables {
		var ddl string
		if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&ddl); err != nil {
			return classify(fmt.Errorf("start rebuild: definition of %s: %w", t, err))
		}
		renamed, err := renameCreate(ddl, t, rebuildPrefix+t)
		if err != nil {
			return fmt.Errorf("start rebuild: %w", err)
		}
		if _, err := tx.ExecContext(ctx, renamed); err != nil {
			return classify(fmt.Errorf("start rebuild: create %s: %w", rebuildPrefix+t, err))
		}
	}
	return classify(tx.Commit())
}

// BeginRebuildWrite starts a write transaction on the tables StartRebuild
// created. Its commits are invisible to readers of the live tables.
func (s *Store) BeginRebuildWrite(ctx context.Context) (*Writer, error) {
	return s.beginWrite(ctx, rebuildTables, 0)
}

func dropRebuild(ctx context.Context, tx *sql.Tx) error {
	for _, t := range codeTables {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+rebuildPrefix+t); err != nil {
			return classify(fmt.Errorf("drop %s: %w", rebuildPrefix+t, err))
		}
	}
	return nil
}

// SwapRebuild replaces the live code tables with the rebuild's, inside the
// writer's transaction (a writer from BeginRebuildWrite): the live tables
// are dropped, the new ones take their names, and the live tables' indexes
// are built on them. Readers see the old tables until Commit and the new
// ones after it. The writer must not write rows after this, only commit.
func (w *Writer) SwapRebuild(ctx context.Context) error {
	if !w.t.rebuild {
		return fmt.Errorf("swap rebuild: the writer writes the live tables")
	}
	// The live tables' index definitions, to build on the new tables.
	args := make([]any, len(codeTables))
	for i, t := range codeTables {
		args[i] = t
	}
	rows, err := w.tx.QueryContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN (`+placeholders(len(codeTables))+`) ORDER BY name`, args...)
	if err != nil {
		return classify(fmt.Errorf("swap rebuild: %w", err))
	}
	var indexes []string
	for rows.Next() {
		var ddl string
		if err := rows.Scan(&ddl); err != nil {
			rows.Close()
			return classify(err)
		}
		indexes = append(indexes, ddl)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	for _, t := range codeTables {
		if _, err := w.tx.ExecContext(ctx, `DROP TABLE `+t); err != nil {
			return classify(fmt.Errorf("swap rebuild: drop %s: %w", t, err))
		}
	}
	for _, t := range codeTables {
		if _, err := w.tx.ExecContext(ctx, `ALTER TABLE `+rebuildPrefix+t+` RENAME TO `+t); err != nil {
			return classify(fmt.Errorf("swap rebuild: rename %s: %w", rebuildPrefix+t, err))
		}
	}
	// The secondary indexes too, in case a killed bulk load left the live
	// tables without them.
	for _, q := range append(indexes, secondaryIndexes...) {
		if !strings.Contains(q, "IF NOT EXISTS") {
			q = strings.Replace(q, "INDEX ", "INDEX IF NOT EXISTS ", 1)
		}
		if _, err := w.tx.ExecContext(ctx, q); err != nil {
			return classify(fmt.Errorf("swap rebuild: %s: %w", q, err))
		}
	}
	w.t = liveTables
	return nil
}

// renameCreate returns a CREATE TABLE or CREATE VIRTUAL TABLE statement as
// sqlite_master holds it (keywords normalised, the name bare or quoted, as
// ALTER TABLE ... RENAME leaves it) with the table's name replaced.
func renameCreate(ddl, name, to string) (string, error) {
	var head string
	for _, h := range []string{"CREATE TABLE ", "CREATE VIRTUAL TABLE "} {
		if strings.HasPrefix(ddl, h) {
			head = h
		}
	}
	if head == "" {
		return "", fmt.Errorf("definition of %s is not a CREATE TABLE statement: %.60q", name, ddl)
	}
	rest := ddl[len(head):]
	var got string
	switch q := rest[0]; q {
	case '"', '`', '[':
		end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[q]
		i := strings.IndexByte(rest[1:], end)
		if i < 0 {
			return "", fmt.Errorf("definition of %s: unterminated name", name)
		}
		got, rest = rest[1:1+i], rest[2+i:]
	default:
		i := strings.IndexAny(rest, " \t\n(")
		if i < 0 {
			return "", fmt.Errorf("definition of %s: no column list", name)
		}
		got, rest = rest[:i], rest[i:]
	}
	if !strings.EqualFold(got, name) {
		return "", fmt.Errorf("definition of %s names %q", name, got)
	}
	return head + to + rest, nil
}
