package team

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/config"
)

// Probe is what a connectivity check found.
type Probe struct {
	// Server is the server's version string.
	Server string
	// Schema is the schema's migration version (0: not created yet).
	Schema int
	// RoundTrip is the median of a few round trips (SELECT 1).
	RoundTrip time.Duration
	// CanWrite says the role may insert into the memories table.
	CanWrite bool
}

// probeTrips is how many round trips Probe times.
const probeTrips = 5

// ProbeDB connects without migrating and reports the server, the schema
// version and the round-trip time: what `ctxls doctor` checks.
func ProbeDB(ctx context.Context, dsn, schema string) (Probe, error) {
	var p Probe
	if !config.ValidSchemaName(schema) {
		return p, fmt.Errorf("schema %q must be a lowercase identifier", schema)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return p, fmt.Errorf("the DSN is not a valid PostgreSQL connection string: %s", dsnReason(err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return p, classify(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	trips := make([]time.Duration, 0, probeTrips)
	for range probeTrips {
		start := time.Now()
		if _, err := conn.Exec(ctx, `SELECT 1`); err != nil {
			return p, classify(err)
		}
		trips = append(trips, time.Since(start))
	}
	slices.Sort(trips)
	p.RoundTrip = trips[len(trips)/2]
	if err := conn.QueryRow(ctx, `SHOW server_version`).Scan(&p.Server); err != nil {
		return p, classify(err)
	}
	if p.Schema, err = currentVersion(ctx, conn, schema); err != nil {
		return p, err
	}
	if p.Schema > 0 {
		err := conn.QueryRow(ctx, `SELECT has_table_privilege($1, 'INSERT')`, pgx.Identifier{schema, "memories"}.Sanitize()).Scan(&p.CanWrite)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return p, classify(err)
		}
	}
	return p, nil
}
