package rules

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"
)

// Cache keeps parsed rule files between the loads of a long-lived process
// (the hook daemon loads the rules on every prompt and tool call): a file
// opened with the size and modification time it was parsed at is not read
// or parsed again. Every load still lists the locations and opens each file
// within its boundary, so a file added, removed or linked elsewhere is seen
// as on a load without a cache. It is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]cached
}

type cacheKey struct{ real, format string }

type cached struct {
	size  int64
	mtime time.Time
	rule  Rule
	err   error
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[cacheKey]cached{}} }

// Load is Load through the cache.
func (c *Cache) Load(ctx context.Context, root, home string) Set { return load(ctx, root, home, c) }

// get returns what the file at key parsed to when info matches what it was
// parsed at; a nil cache holds nothing.
func (c *Cache) get(key cacheKey, info os.FileInfo) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.size != info.Size() || !e.mtime.Equal(info.ModTime()) {
		return cached{}, false
	}
	e.rule.Globs = slices.Clone(e.rule.Globs)
	return e, true
}

// put records what the file at key, opened with info, parsed to.
func (c *Cache) put(key cacheKey, info os.FileInfo, r Rule, err error) {
	if c == nil {
		return
	}
	r.Globs = slices.Clone(r.Globs)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = cached{size: info.Size(), mtime: info.ModTime(), rule: r, err: err}
}
