package retrieval

import (
	"context"

	"github.com/ctxls/ctxls/store"
)

// QueryContext ranks entities for req and assembles the best of them within
// opts' budget: the one retrieval call behind `ctxls context` and the MCP
// server's context_query, so that both give an assistant the same context.
// It ranks entities only (files are not ranked) and, unless req.Limit is set,
// twice as many candidates as opts.MaxSections, for Assemble to choose from.
func QueryContext(ctx context.Context, st *store.Store, req Request, opts ContextOptions) (*Context, *Response, error) {
	req.EntitiesOnly = true
	if req.Limit <= 0 {
		req.Limit = 2 * max(opts.MaxSections, 5)
	}
	resp, err := Query(ctx, st, req)
	if err != nil {
		return nil, nil, err
	}
	c, err := Assemble(ctx, st, req, resp, opts)
	if err != nil {
		return nil, nil, err
	}
	return c, resp, nil
}
