package hooks

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/sources"
)

// contextSources adapts the providers of package sources (rules, AGENTS.md,
// README, keyword modes, discovery) to Source. They share one request per
// event, so the working set is read once.
func contextSources() []Source {
	shared := &sharedRequest{}
	var out []Source
	for _, p := range sources.All() {
		out = append(out, providerSource{p: p, req: shared})
	}
	return out
}

type providerSource struct {
	p   sources.Provider
	req *sharedRequest
}

func (s providerSource) Name() string { return s.p.Name() }

func (s providerSource) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	return s.p.Collect(ctx, s.req.get(ctx, ev))
}

// sharedRequest builds the sources.Request of an event once.
type sharedRequest struct {
	once sync.Once
	req  *sources.Request
}

func (r *sharedRequest) get(ctx context.Context, ev *Event) *sources.Request {
	r.once.Do(func() { r.req = newRequest(ctx, ev) })
	return r.req
}

func newRequest(ctx context.Context, ev *Event) *sources.Request {
	in := ev.Input
	req := &sources.Request{
		Event: ev.Name, Start: in.Source, Tool: in.ToolName, Prompt: truncate(in.Prompt, 32<<10),
		Root: ev.Root, Files: ev.Files, Config: ev.Config, Log: ev.Log,
	}
	// $HOME locates ~/.claude; tests point it at a temporary directory.
	if home, err := os.UserHomeDir(); err == nil {
		req.Home = home
	}
	if ev.Name == "PostToolBatch" && req.Tool == "" && len(in.ToolCalls) > 0 {
		req.Tool = in.ToolCalls[0].ToolName
	}
	window := sources.ActiveWindow
	switch ev.Name {
	case "SessionStart", "PreCompact":
		window = 24 * time.Hour
		fallthrough
	case "UserPromptSubmit":
		if ws, err := ev.Store.WorkingSet(ctx, time.Now().Add(-window), sources.ActiveLimit); err == nil {
			req.Active = ws
		}
	}
	return req
}
