package main

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/memory/team"
	"github.com/ctxls/ctxls/memory/teamcache"
)

// Backoff between attempts to listen for enterprise memory changes.
const (
	teamRetryMin = time.Second
	teamRetryMax = time.Minute
)

// watchTeam keeps the workspace's local cache of an enterprise scope in
// PostgreSQL fresh while the daemon runs, without polling: once its LISTEN
// is in place it refreshes the cache, then again after each change
// notification (changes arriving during a refresh make one more). When the
// database is unreachable it records that in the cache, so the hooks mark
// what they inject stale, and tries again with backoff. The DSN is never
// logged.
func watchTeam(ctx context.Context, root string, log *zap.Logger) {
	cfg, err := config.Load(root)
	if err != nil || !cfg.Memory.Enterprise.Postgres() {
		return
	}
	e := cfg.Memory.Enterprise
	dir := config.EnterpriseCacheDir(root)
	kick := make(chan struct{}, 1)
	signal := func() {
		select {
		case kick <- struct{}{}:
		default: // a refresh is already due
		}
	}
	go func() {
		var ts *team.Store
		var err error
		defer func() {
			if ts != nil {
				ts.Close()
			}
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			}
			if ts == nil {
				if ts, err = team.Open(ctx, team.Options{DSN: e.ResolvedDSN(), Schema: e.SchemaName(), Project: e.Project, MaxConns: 1}); err != nil {
					ts = nil
					log.Warn("enterprise memory: open", zap.Error(err))
					teamcache.MarkFailed(ctx, dir, err, time.Now())
					continue
				}
			}
			start := time.Now()
			st, err := ts.RefreshCache(ctx, dir)
			if err != nil {
				log.Warn("enterprise memory: refresh the local cache", zap.Error(err))
				continue
			}
			log.Info("enterprise memory: local cache refreshed", zap.Int("memories", st.Memories), zap.Duration("took", time.Since(start)))
		}
	}()
	wait := teamRetryMin
	for ctx.Err() == nil {
		started := time.Now()
		err := team.Listen(ctx, e.ResolvedDSN(), e.Project, signal, func(team.Change) { signal() })
		if ctx.Err() != nil {
			return
		}
		log.Warn("enterprise memory: listening for changes", zap.Error(err), zap.Duration("retry in", wait))
		teamcache.MarkFailed(ctx, dir, err, time.Now())
		if time.Since(started) > teamRetryMax {
			wait = teamRetryMin // it had been working: start over
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, teamRetryMax)
	}
}
