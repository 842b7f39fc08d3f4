package sources

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/sources/discover"
)

// Discovery suggests the agents, commands, skills and output styles that
// fit a prompt, or the memory think suggestions for a memory think prompt.
// Its LRU cache of parsed items is made on first use, sized by
// sources.discovery.cacheSize, kept for the life of the source and saved in
// .ctxls/discovery-cache.json, so that the next hook process parses only
// files that changed.
type Discovery struct {
	once sync.Once
	d    *discover.Discoverer
}

// Name implements Source.
func (*Discovery) Name() string { return "dynamic-discovery" }

// Discover runs discovery for the event's workspace and home, or reports it
// disabled.
func (s *Discovery) Discover(ctx context.Context, ev *Event) discover.Result {
	cfg := ev.Config.Sources.Discovery
	if !cfg.Enabled {
		return discover.Result{SkipReason: discover.Disabled}
	}
	cacheFile := filepath.Join(ev.Root, workspace.DirName, "discovery-cache.json")
	s.once.Do(func() {
		s.d = discover.New(cfg.CacheSize)
		if err := s.d.Cache().Load(cacheFile); err != nil {
			ev.logger().Info("discovery cache not loaded; rebuilding it", zap.Error(err))
		}
	})
	res := s.d.Discover(ctx, discover.Dirs(ev.Root, ev.Home), cfg.ScanTimeout())
	// Only a workspace ctxls already uses gets the file.
	if _, err := os.Stat(filepath.Dir(cacheFile)); err == nil {
		if err := s.d.Cache().Save(cacheFile); err != nil {
			ev.logger().Warn("discovery cache not saved", zap.Error(err))
		}
	}
	return res
}

// Collect implements Source.
func (s *Discovery) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	if ev.Name != hookevent.UserPromptSubmit || ev.Prompt == "" {
		return nil, nil
	}
	res := s.Discover(ctx, ev)
	log := ev.logger()
	if res.TimedOut {
		log.Warn("discovery timed out; using the directories scanned", zap.Int("items", len(res.Items)))
	}
	for _, d := range res.Dirs {
		if d.Error != "" {
			log.Warn("discovery could not scan a directory", zap.String("dir", d.Path), zap.String("error", d.Error))
		}
	}
	if res.SkipReason != "" {
		log.Debug("discovery skipped", zap.String("reason", string(res.SkipReason)))
		return nil, nil
	}
	cfg := ev.Config.Sources.Discovery
	m := discover.MatchPrompt(res.Items, ev.Prompt, cfg.MinScore, cfg.MaxPerType)
	text := discover.Format(m)
	if text == "" {
		return nil, nil
	}
	id := "suggestions"
	if m.MemoryThink != "" {
		id = "memory-think"
	}
	return []collect.Entry{{Source: "dynamic-discovery", ID: id, Content: text, Priority: collect.Low}}, nil
}
