package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migration is one step of the schema; steps are applied in order and
// never edited once released (add a new one instead).
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is the schema's history. Every table carries the project key,
// so that one database serves many projects without their rows meeting.
var migrations = []migration{
	{1, "memories, edges and terms", `
CREATE TABLE memories (
	project  text        NOT NULL,
	slug     text        NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 200),
	type     text        NOT NULL,
	title    text        NOT NULL,
	tags     text[]      NOT NULL,
	severity text        NOT NULL DEFAULT '',
	files    text[]      NOT NULL DEFAULT '{}',
	created  timestamptz NOT NULL,
	updated  timestamptz NOT NULL,
	-- doc is the memory file as the file scopes write it (frontmatter and
	-- content), so that keys ctxls does not know survive an export.
	doc      text        NOT NULL,
	-- version counts the memory's writes: an update names the version it
	-- read (optimistic concurrency).
	version  bigint      NOT NULL DEFAULT 1,
	-- doclen is the memory's number of terms, BM25's document length.
	doclen   integer     NOT NULL,
	-- links mirror the graph's edges (and keep frontmatter links to
	-- memories that do not exist), as a file's frontmatter does.
	links    text[]      NOT NULL DEFAULT '{}',
	PRIMARY KEY (project, slug)
);
CREATE TABLE edges (
	project text        NOT NULL,
	source  text        NOT NULL,
	target  text        NOT NULL,
	label   text        NOT NULL CHECK (label ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(label) <= 50),
	created timestamptz NOT NULL,
	PRIMARY KEY (project, source, target, label),
	CHECK (source <> target),
	FOREIGN KEY (project, source) REFERENCES memories ON DELETE CASCADE ON UPDATE CASCADE,
	FOREIGN KEY (project, target) REFERENCES memories ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX edges_target ON edges (project, target);
-- terms is the full-text index: one row per memory and analyzer term, with
-- the term's BM25F-weighted frequency (decision 0097).
CREATE TABLE terms (
	project text   NOT NULL,
	term    text   NOT NULL,
	slug    text   NOT NULL,
	wtf     real   NOT NULL,
	-- doclen repeats the memory's so that scoring reads this table only.
	doclen  integer NOT NULL,
	PRIMARY KEY (project, term, slug),
	FOREIGN KEY (project, slug) REFERENCES memories ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX terms_slug ON terms (project, slug);
-- BM25's collection statistics come from this index, not the wide rows.
CREATE INDEX memories_doclen ON memories (project) INCLUDE (doclen);
`},
	{2, "the analyzer of each project's terms", `
-- analyzers records the analyzer version each project's terms were
-- written with, so that a build with another analysis writes them again
-- (Store.reanalyze).
CREATE TABLE analyzers (
	project text PRIMARY KEY,
	version text NOT NULL
);
`},
}

// SchemaVersion is the schema version this build writes and reads.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// ErrNewerSchema means the database was migrated by a newer ctxls.
var ErrNewerSchema = errors.New("the database schema is newer than this ctxls")

// advisoryKey is the pg_advisory_xact_lock key of migrations ("ctxlsmig").
const advisoryKey int64 = 0x6374786c736d6967

// migrate brings the schema to SchemaVersion, once, under a transaction
// advisory lock: concurrent first starts on many machines wait for one
// another and then find the work done.
func migrate(ctx context.Context, conn *pgx.Conn, schema string) (int, error) {
	// A schema already current is read without the lock or any DDL, so
	// that a reader role (hooks) that may not create schemas opens it.
	have, err := currentVersion(ctx, conn, schema)
	if err != nil {
		return 0, err
	}
	if have > SchemaVersion() {
		return have, fmt.Errorf("schema %s is at version %d, this ctxls knows %d: %w (upgrade ctxls)", schema, have, SchemaVersion(), ErrNewerSchema)
	}
	if have == SchemaVersion() {
		return have, nil
	}
	v, err := upgrade(ctx, conn, schema)
	if err != nil && have > 0 && insufficientPrivilege(err) {
		// A role that may only read (hooks) opens a schema that no
		// writer has upgraded yet at its version: each step adds what
		// the reads of the versions before it do not need.
		return have, nil
	}
	return v, err
}

// upgrade applies the migrations the schema lacks, under the advisory lock.
func upgrade(ctx context.Context, conn *pgx.Conn, schema string) (int, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, advisoryKey); err != nil {
		return 0, fmt.Errorf("migrate: lock: %w", err)
	}
	ident := pgx.Identifier{schema}.Sanitize()
	// CREATE SCHEMA IF NOT EXISTS checks the right to create schemas
	// before it looks: a role granted only the schema (docs/TEAM-MEMORY.md)
	// must not run it.
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+ident); err != nil {
			return 0, fmt.Errorf("migrate: create schema %s: %w", schema, explain(err))
		}
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+ident+`.schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("migrate: %w", explain(err))
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+ident+`.schema_migrations`).Scan(&have); err != nil {
		return 0, fmt.Errorf("migrate: read version: %w", err)
	}
	if have > SchemaVersion() {
		return have, fmt.Errorf("schema %s is at version %d, this ctxls knows %d: %w (upgrade ctxls)", schema, have, SchemaVersion(), ErrNewerSchema)
	}
	if have == SchemaVersion() {
		return have, nil // nothing to write: commit nothing
	}
	if _, err := tx.Exec(ctx, `SET LOCAL search_path TO `+ident); err != nil {
		return 0, err
	}
	for _, m := range migrations {
		if m.version <= have {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return have, fmt.Errorf("migrate to version %d (%s): %w", m.version, m.name, explain(err))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return have, fmt.Errorf("migrate to version %d: %w", m.version, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return have, fmt.Errorf("migrate: commit: %w", err)
	}
	return SchemaVersion(), nil
}

// explain adds a hint to the errors a misconfigured role or database
// gives, which would otherwise read as internal failures.
func explain(err error) error {
	if insufficientPrivilege(err) {
		return fmt.Errorf("%w (the role lacks the right: see docs/TEAM-MEMORY.md, roles)", err)
	}
	return err
}

// insufficientPrivilege reports whether the server refused err's statement
// for the role's rights.
func insufficientPrivilege(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}

// currentVersion is the schema's version, 0 when it has no migrations table.
func currentVersion(ctx context.Context, conn *pgx.Conn, schema string) (int, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", explain(err))
	}
	return v, nil
}
