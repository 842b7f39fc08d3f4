package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/memory/team"
	"github.com/ctxls/ctxls/memory/teamcache"
)

// slowRoundTrip is the round trip above which doctor warns: each memory
// command makes a few, and the hooks do not wait on it (they read the
// local cache).
const slowRoundTrip = 100 * time.Millisecond

// enterprise checks the enterprise memory scope on PostgreSQL, when the
// workspace uses one: connectivity, schema version, latency, the role's
// rights and the local cache. The DSN is never printed.
func (d *doctor) enterprise(ctx context.Context) {
	cfg, err := config.Load(d.root)
	if err != nil || !cfg.Memory.Enterprise.Postgres() {
		return
	}
	e := cfg.Memory.Enterprise
	cctx, cancel := context.WithTimeout(ctx, teamConnectTimeout)
	defer cancel()
	p, err := team.ProbeDB(cctx, e.ResolvedDSN(), e.SchemaName())
	if err != nil {
		d.verdict(false, "enterprise memory database", err.Error())
	} else {
		d.verdict(true, "enterprise memory database", fmt.Sprintf("PostgreSQL %s, round trip %.1f ms", p.Server, float64(p.RoundTrip.Microseconds())/1000))
		if p.RoundTrip > slowRoundTrip {
			d.info("enterprise memory latency", fmt.Sprintf("%.0f ms per round trip: memory commands will be slow (hooks read the local cache)", float64(p.RoundTrip.Microseconds())/1000))
		}
		switch want := team.SchemaVersion(); {
		case p.Schema == 0:
			d.info("enterprise memory schema", fmt.Sprintf("schema %s not created yet: the first memory command by a role that may create it does", e.SchemaName()))
		case p.Schema > want:
			d.verdict(false, "enterprise memory schema", fmt.Sprintf("version %d is newer than this ctxls (%d): upgrade ctxls", p.Schema, want))
		case p.Schema < want:
			d.info("enterprise memory schema", fmt.Sprintf("version %d, this ctxls migrates it to %d on its next write", p.Schema, want))
		default:
			rights := "read-only role"
			if p.CanWrite {
				rights = "role may write"
			}
			d.verdict(true, "enterprise memory schema", fmt.Sprintf("version %d, %s", p.Schema, rights))
		}
	}
	st, err := teamcache.ReadState(config.EnterpriseCacheDir(d.root))
	switch {
	case err != nil:
		d.verdict(false, "enterprise memory cache", err.Error())
	case st.Synced.IsZero():
		d.info("enterprise memory cache", "never synced: run any 'ctxls memory ... --scope enterprise' command")
	default:
		detail := fmt.Sprintf("%d memories, synced %s ago", st.Memories, time.Since(st.Synced).Round(time.Second))
		if st.Stale(time.Now()) {
			detail += " (stale"
			if st.Error != "" {
				detail += ": " + st.Error
			}
			detail += ")"
		}
		d.info("enterprise memory cache", detail)
	}
}
