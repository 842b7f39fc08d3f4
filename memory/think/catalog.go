package think

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/sources/discover"
)

// Catalog is what dynamic discovery found that --agent, --style and
// --auto may name: the whitelist of agents and output styles.
type Catalog struct {
	Agents []discover.Item
	Styles []discover.Item
}

// discoverTimeout bounds the scan (the seed's SCAN_TIMEOUT_MS).
const discoverTimeout = 2 * time.Second

// Discover scans the workspace's and the user's .claude directories and
// the installed plugins for agents and output styles.
func Discover(ctx context.Context, root, home string) Catalog {
	res := discover.New(64).Discover(ctx, discover.Dirs(root, home), discoverTimeout)
	var c Catalog
	for _, it := range res.Items {
		switch it.Type {
		case discover.Agent:
			c.Agents = append(c.Agents, it)
		case discover.OutputStyle:
			c.Styles = append(c.Styles, it)
		}
	}
	return c
}

func find(items []discover.Item, name string) (discover.Item, bool) {
	for _, it := range items {
		if strings.EqualFold(it.Name, name) {
			return it, true
		}
	}
	return discover.Item{}, false
}

// Agent returns the discovered agent of that name (case-insensitive).
func (c Catalog) Agent(name string) (discover.Item, bool) { return find(c.Agents, name) }

// Style returns the discovered output style of that name.
func (c Catalog) Style(name string) (discover.Item, bool) { return find(c.Styles, name) }

// Names lists the names of items, sorted.
func Names(items []discover.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name
	}
	sort.Strings(out)
	return out
}

// StyleText reads an output style's instructions: its file without the
// frontmatter, at most maxStyle bytes.
func StyleText(it discover.Item) (string, error) {
	f, err := os.Open(it.Path)
	if err != nil {
		return "", fmt.Errorf("output style %s: %w", it.Name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStyle+1))
	if err != nil {
		return "", fmt.Errorf("output style %s: %w", it.Name, err)
	}
	if len(data) > maxStyle {
		return "", fmt.Errorf("output style %s is larger than %d bytes", it.Name, maxStyle)
	}
	body := string(data)
	if _, b, err := memory.Frontmatter(data); err == nil {
		body = b
	}
	if strings.TrimSpace(body) == "" {
		return "", fmt.Errorf("output style %s (%s) is empty", it.Name, it.Path)
	}
	return strings.TrimSpace(body), nil
}
