package team

import (
	"context"
	"time"

	"github.com/ctxls/ctxls/config"
)

// ConnectTimeout bounds how long a command or tool call waits to reach
// the database before it reports the outage.
const ConnectTimeout = 10 * time.Second

// ForWorkspace opens the enterprise database a workspace's
// .ctxls/config.yaml names; ok is false when its enterprise scope is not
// on PostgreSQL. An unreachable database is recorded in the workspace's
// local cache, whose readers then mark it stale.
func ForWorkspace(ctx context.Context, root string) (s *Store, ok bool, err error) {
	cfg, err := config.Load(root)
	if err != nil || !cfg.Memory.Enterprise.Postgres() {
		return nil, false, err
	}
	e := cfg.Memory.Enterprise
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	s, err = Open(cctx, Options{DSN: e.ResolvedDSN(), Schema: e.SchemaName(), Project: e.Project})
	if err != nil {
		return nil, true, err
	}
	return s, true, nil
}
