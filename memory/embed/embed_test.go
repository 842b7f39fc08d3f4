package embed

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOllama speaks Ollama's /api/embed: it has only the models given, and
// embeds a text as a bag of hashed words (so similar texts are close).
func fakeOllama(t *testing.T, models ...string) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/api/embed" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		known := false
		for _, m := range models {
			known = known || m == req.Model
		}
		if !known {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": `model "` + req.Model + `" not found, try pulling it first`})
			return
		}
		var out [][]float32
		for _, text := range req.Input {
			v := make([]float32, 64)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(strings.Trim(word, ".,")))
				v[h.Sum32()%64]++
			}
			out = append(out, v)
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestOllamaFallbackModels(t *testing.T) {
	srv, _ := fakeOllama(t, "all-minilm")
	o := NewOllama(srv.URL, "embeddinggemma", "nomic-embed-text", "all-minilm")
	vecs, err := o.Embed(context.Background(), []string{"token refresh", "oauth2 pkce"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || len(vecs[0]) != 64 || o.Model() != "all-minilm" {
		t.Errorf("vectors %d, model %s", len(vecs), o.Model())
	}
	none := NewOllama(srv.URL, "embeddinggemma")
	if _, err := none.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("no model: %v", err)
	}
}

func TestCacheKeyedByContentHash(t *testing.T) {
	srv, calls := fakeOllama(t, "embeddinggemma")
	p := NewOllama(srv.URL, "embeddinggemma")
	c := Cache{Dir: t.TempDir()}
	docs := []Doc{{Cache: c, Slug: "a", Content: "lock the scope"}, {Cache: c, Slug: "b", Content: "graph edges"}}
	ctx := context.Background()
	first, err := Vectors(ctx, p, docs)
	if err != nil || calls.Load() != 1 {
		t.Fatalf("%v, %d calls", err, calls.Load())
	}
	again, err := Vectors(ctx, p, docs)
	if err != nil || calls.Load() != 1 || Cosine(first[0], again[0]) < 0.999 {
		t.Errorf("cached vectors not used: %d calls, %v", calls.Load(), err)
	}
	docs[1].Content = "graph edges changed"
	if _, err := Vectors(ctx, p, docs); err != nil || calls.Load() != 2 {
		t.Errorf("changed content not re-embedded: %d calls", calls.Load())
	}
	if _, ok := c.Get("b", "other-model", "graph edges changed"); ok {
		t.Error("a vector of another model was served")
	}
}

func TestBreaker(t *testing.T) {
	var calls atomic.Int64
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer down.Close()
	now := time.Unix(1000, 0)
	b := &Breaker{Provider: NewOllama(down.URL, "embeddinggemma", "nomic-embed-text"), Now: func() time.Time { return now }}
	ctx := context.Background()
	for i := range 3 {
		if _, err := b.Embed(ctx, []string{"x"}); err == nil || errors.Is(err, ErrOpen) {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if _, err := b.Embed(ctx, []string{"x"}); !errors.Is(err, ErrOpen) || calls.Load() != 3 {
		t.Errorf("after 3 failures: %v, %d calls", err, calls.Load())
	}
	now = now.Add(6 * time.Minute)
	if _, err := b.Embed(ctx, []string{"x"}); errors.Is(err, ErrOpen) || calls.Load() != 4 {
		t.Errorf("after the cooldown a trial call is made: %v, %d calls", err, calls.Load())
	}
	if !b.Open() {
		t.Error("failed trial did not reopen the breaker")
	}
	// A success closes it.
	up, _ := fakeOllama(t, "embeddinggemma")
	b2 := &Breaker{Provider: NewOllama(up.URL, "embeddinggemma"), Now: func() time.Time { return now }}
	b2.failures = 2
	if _, err := b2.Embed(ctx, []string{"x"}); err != nil || b2.failures != 0 {
		t.Errorf("success: %v, failures %d", err, b2.failures)
	}
	// Unreachable endpoint counts as a failure too.
	b3 := &Breaker{Provider: NewOllama("http://127.0.0.1:1", "embeddinggemma")}
	for range 3 {
		b3.Embed(ctx, []string{"x"})
	}
	if !b3.Open() {
		t.Error("unreachable endpoint did not open the breaker")
	}
}

func TestCosine(t *testing.T) {
	if c := Cosine([]float32{1, 0}, []float32{1, 0}); c != 1 {
		t.Errorf("same: %g", c)
	}
	if c := Cosine([]float32{1, 0}, []float32{0, 1}); c != 0 {
		t.Errorf("orthogonal: %g", c)
	}
	if c := Cosine([]float32{1}, []float32{1, 0}); c != 0 {
		t.Errorf("length mismatch: %g", c)
	}
}
