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
	// Unreachable: the lexical ranking comes back with the error.
	down, err := s.Rerank(ctx, embed.NewOllama("http://127.0.0.1:1", "embeddinggemma"), "socket", hits)
	if err == nil || len(down) != 2 || down[0].Slug != hits[0].Slug {
		t.Errorf("unreachable endpoint: %v %v", down, err)
	}
}
