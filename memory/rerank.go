package memory

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/ctxls/ctxls/memory/embed"
)

// Embedder returns the configured embeddings provider behind a circuit
// breaker, or nil when embeddings are disabled or the provider is not one
// ctxls speaks (only Ollama-compatible endpoints).
func (s *Store) Embedder() embed.Provider {
	e := s.cfg.Embedding
	if e.Provider != "ollama" {
		return nil
	}
	return &embed.Breaker{Provider: embed.NewOllama(e.Endpoint, e.Model, e.FallbackModels...)}
}

// Rerank blends semantic similarity into lexical hits: each hit's
// relevance becomes the mean of its lexical relevance and the cosine
// similarity of its embedding to the query's, and hits are re-sorted by
// it. A hit's text is its title and its file's body. Vectors are cached
// per scope in the configured cache directory. On any provider error the
// hits are returned unchanged with the error, so callers keep the lexical
// ranking.
func (s *Store) Rerank(ctx context.Context, p embed.Provider, query string, hits []Hit) ([]Hit, error) {
	return s.RerankBodies(ctx, p, query, hits, nil)
}

// RerankBodies is Rerank for hits some of which have no file: body, when
// it knows a hit's body (a memory of the enterprise scope on PostgreSQL,
// whose Path is a locator), gives it, and that hit's vector is not cached
// on disk (the scope's directory is then the local read cache, which its
// refresh rewrites).
func (s *Store) RerankBodies(ctx context.Context, p embed.Provider, query string, hits []Hit, body func(Hit) (string, bool)) ([]Hit, error) {
	if p == nil || len(hits) == 0 {
		return hits, nil
	}
	docs := []embed.Doc{{Content: query}}
	for _, h := range hits {
		text := h.Title
		if b, ok := bodyOf(h, body); ok {
			docs = append(docs, embed.Doc{Slug: h.Slug, Content: text + "\n" + b})
			continue
		}
		if data, err := os.ReadFile(h.Path); err == nil {
			if _, body, err := split(data); err == nil {
				text += "\n" + body
			}
		}
		dir, err := s.Dir(h.Scope)
		var c embed.Cache
		if err == nil {
			c = embed.Cache{Dir: filepath.Join(dir, s.cfg.Embedding.CacheDirectory)}
		}
		docs = append(docs, embed.Doc{Cache: c, Slug: h.Slug, Content: text})
	}
	vecs, err := embed.Vectors(ctx, p, docs)
	if err != nil {
		return hits, err
	}
	out := make([]Hit, len(hits))
	copy(out, hits)
	for i := range out {
		cos := max(0, embed.Cosine(vecs[0], vecs[i+1]))
		out[i].Relevance = (out[i].Relevance + cos) / 2
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Relevance > out[b].Relevance })
	return out, nil
}

// bodyOf asks body, if any, for a hit's body.
func bodyOf(h Hit, body func(Hit) (string, bool)) (string, bool) {
	if body == nil {
		return "", false
	}
	return body(h)
}
