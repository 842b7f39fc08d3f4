package memory

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/memory/embed"
)

func TestRerankWithEmbeddings(t *testing.T) {
	// An Ollama-compatible endpoint whose vectors say whether a text is
	// about databases (first axis) or about networks (second).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var out [][]float32
		for _, in := range req.Input {
			in = strings.ToLower(in)
			out = append(out, []float32{float32(strings.Count(in, "sqlite") + strings.Count(in, "database")), float32(strings.Count(in, "socket"))})
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
	}))
	defer srv.Close()
	root := t.TempDir()
	s := openStore(t, root)
	ctx := context.Background()
	s.Write(ctx, &Memory{Slug: "learning-timeouts-socket", Type: Learning, Title: "Timeouts", Tags: []string{"x"}, Content: "Socket timeouts need retries."})
	s.Write(ctx, &Memory{Slug: "learning-timeouts-sqlite", Type: Learning, Title: "Timeouts", Tags: []string{"x"}, Content: "SQLite busy timeouts: database locked."})
	hits, err := s.Search(ctx, Query{Text: "timeouts in the database"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("%v %v", hits, err)
	}
	p := embed.NewOllama(srv.URL, "embeddinggemma")
	out, err := s.Rerank(ctx, p, "timeouts in the database", hits)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Slug != "learning-timeouts-sqlite" || out[0].Relevance <= out[1].Relevance {
		t.Errorf("reranked %v", out)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "memory", ".embedding-cache", "learning-timeouts-sqlite.json")); err != nil {
		t.Errorf("vector not cached: %v", err)
	}
	// Hits with no file (the enterprise scope on PostgreSQL, whose Path
	// is a locator) are re-ranked on the body the caller gives.
	located := []Hit{hits[0], hits[1]}
	for i := range located {
		located[i].Path = "postgres:ctxls/" + located[i].Slug
		located[i].Scope = Enterprise
	}
	bodies := map[string]string{"learning-timeouts-socket": "Socket timeouts need retries.", "learning-timeouts-sqlite": "SQLite busy timeouts: database locked."}
	out, err = s.RerankBodies(ctx, p, "timeouts in the database", located, func(h Hit) (string, bool) { b, ok := bodies[h.Slug]; return b, ok })
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Slug != "learning-timeouts-sqlite" || out[0].Relevance <= out[1].Relevance {
		t.Errorf("reranked on given bodies %v", out)
	}
	titlesOnly, err := s.RerankBodies(ctx, p, "timeouts in the database", located, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without them only the titles, alike here, are compared: the body
	// is what lifted the SQLite memory.
	relOf := func(hs []Hit, slug string) float64 {
		for _, h := range hs {
			if h.Slug == slug {
				return h.Relevance
			}
		}
		return -1
	}
	if relOf(out, "learning-timeouts-sqlite") <= relOf(titlesOnly, "learning-timeouts-sqlite") {
		t.Errorf("the given body did not raise the SQLite memory: %v against %v", out, titlesOnly)
	}
	// Unreachable: the lexical ranking comes back with the error.
	down, err := s.Rerank(ctx, embed.NewOllama("http://127.0.0.1:1", "embeddinggemma"), "socket", hits)
	if err == nil || len(down) != 2 || down[0].Slug != hits[0].Slug {
		t.Errorf("unreachable endpoint: %v %v", down, err)
	}
}
