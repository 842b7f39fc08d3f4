package mcpserver

import (
	"context"
	"fmt"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/memory/team"
)

// onTeam runs fn on the enterprise database when scope is the enterprise
// scope and the workspace keeps it in PostgreSQL (the memory store reads
// that scope from a local cache and refuses to write it), then refreshes
// the cache so that searches see the change; handled is false otherwise.
func (s *Server) onTeam(ctx context.Context, scope memory.Scope, fn func(*team.Store) error) (handled bool, err error) {
	if scope != memory.Enterprise {
		return false, nil
	}
	ts, ok, err := team.ForWorkspace(ctx, s.opts.Root)
	if !ok {
		return false, err
	}
	if err != nil {
		return true, fmt.Errorf("%w (nothing was written)", err)
	}
	defer ts.Close()
	if err := fn(ts); err != nil {
		return true, err
	}
	// A failed refresh is recorded in the cache and marks it stale.
	ts.RefreshCache(ctx, config.EnterpriseCacheDir(s.opts.Root))
	return true, nil
}

// writeMemory is ms.Write, or a write to the enterprise database.
func (s *Server) writeMemory(ctx context.Context, ms *memory.Store, m *memory.Memory) error {
	if handled, err := s.onTeam(ctx, m.Scope, func(ts *team.Store) error { _, err := ts.Write(ctx, m); return err }); handled {
		return err
	}
	return ms.Write(ctx, m)
}

// linkMemory is ms.Link, or a link in the enterprise database.
func (s *Server) linkMemory(ctx context.Context, ms *memory.Store, scope memory.Scope, from, to, label string) error {
	if handled, err := s.onTeam(ctx, scope, func(ts *team.Store) error { return ts.Link(ctx, from, to, label) }); handled {
		return err
	}
	return ms.Link(ctx, scope, from, to, label)
}
