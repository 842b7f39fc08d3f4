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
	if !req.Focus {
		req.EntitiesOnly = true
	}
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

// ForPrompt is the request for a person's message to an assistant: the
// prompt gate (decision 0091), its relevance threshold, and twice
// maxSections candidates for Assemble to choose from. The prompt hook,
// `ctxls context` and the MCP context_query tool all start from it, so that
// the same text gets the same context on every surface.
func ForPrompt(text string, maxSections int) Request {
	return Request{Text: text, Limit: 2 * max(maxSections, 5), MinRelevance: PromptMinRelevance, Gate: GatePrompt, Focus: true}
}

// ForLookup is the request for a lookup an assistant asks for on purpose
// (the MCP context_query tool): shaped as ForPrompt's, but a few keywords
// are a fair question, so only the relevance gate of decision 0003 applies,
// at threshold minRelevance (retrieval.minRelevance).
func ForLookup(text string, maxSections int, minRelevance float64) Request {
	return Request{Text: text, Limit: 2 * max(maxSections, 5), MinRelevance: minRelevance, Focus: true}
}
