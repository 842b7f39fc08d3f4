// Package embed is the optional embeddings provider of the memory store: an
// Ollama-compatible /api/embed client with fallback models, a cache of
// vectors keyed by the SHA-256 of the embedded content, and a circuit
// breaker that stops calling an endpoint after consecutive failures.
//
// Embeddings only re-rank what lexical search found; when they are disabled
// or the endpoint is unreachable, search stays lexical.
package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
)

// Provider turns texts into vectors.
type Provider interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model that produced the vectors (the cache keeps
	// vectors of different models apart).
	Model() string
}

// ErrModelNotFound means the endpoint does not have the model.
var ErrModelNotFound = errors.New("embedding model not found")

// Ollama is a client of an Ollama-compatible /api/embed endpoint. It tries
// Models in order and keeps the first one the endpoint has.
type Ollama struct {
	Endpoint string // e.g. http://localhost:11434
	Models   []string
	Client   *http.Client

	mu    sync.Mutex
	model string // the model that answered
}

// NewOllama returns a client for endpoint trying model, then fallbacks.
func NewOllama(endpoint, model string, fallbacks ...string) *Ollama {
	return &Ollama{Endpoint: strings.TrimRight(endpoint, "/"), Models: append([]string{model}, fallbacks...),
		Client: &http.Client{Timeout: 15 * time.Second}}
}

// Model returns the model in use (the first one until one has answered).
func (o *Ollama) Model() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.model != "" {
		return o.model
	}
	if len(o.Models) > 0 {
		return o.Models[0]
	}
	return ""
}

// Embed calls /api/embed, falling back to the next model when the endpoint
// does not have one.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	o.mu.Lock()
	models := o.Models
	if o.model != "" {
		models = []string{o.model}
	}
	o.mu.Unlock()
	var errs []error
	for _, m := range models {
		vecs, err := o.call(ctx, m, texts)
		if err == nil {
			o.mu.Lock()
			o.model = m
			o.mu.Unlock()
			return vecs, nil
		}
		errs = append(errs, err)
		if !errors.Is(err, ErrModelNotFound) {
			break // the endpoint itself failed: another model will not help
		}
	}
	return nil, errors.Join(errs...)
}

func (o *Ollama) call(ctx context.Context, model string, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(map[string]any{"model": model, "input": texts})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint+"/api/embed", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embed with %s: %w", model, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("embed with %s: %w", model, err)
	}
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
		Error      string      `json:"error"`
	}
	jerr := json.Unmarshal(data, &out)
	if resp.StatusCode == http.StatusNotFound || strings.Contains(out.Error, "not found") {
		return nil, fmt.Errorf("%w: %s (%s)", ErrModelNotFound, model, strings.TrimSpace(out.Error))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embed with %s: HTTP %d: %s", model, resp.StatusCode, strings.TrimSpace(out.Error))
	}
	if jerr != nil {
		return nil, fmt.Errorf("embed with %s: %w", model, jerr)
	}
	if len(out.Embeddings) != len(texts) {
		return nil, fmt.Errorf("embed with %s: %d vectors for %d texts", model, len(out.Embeddings), len(texts))
	}
	return out.Embeddings, nil
}

// Breaker skips a provider after Threshold consecutive failures, for
// Cooldown; a success closes it again.
type Breaker struct {
	Provider  Provider
	Threshold int           // 0 means 3
	Cooldown  time.Duration // 0 means 5 minutes
	Now       func() time.Time

	mu       sync.Mutex
	failures int
	openedAt time.Time
}

// ErrOpen means the breaker is skipping the provider.
var ErrOpen = errors.New("embeddings skipped after repeated failures")

// Open reports whether calls are being skipped.
func (b *Breaker) Open() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open()
}

func (b *Breaker) open() bool {
	th := b.Threshold
	if th <= 0 {
		th = 3
	}
	cd := b.Cooldown
	if cd <= 0 {
		cd = 5 * time.Minute
	}
	if b.failures < th {
		return false
	}
	if b.now().Sub(b.openedAt) >= cd {
		// Half open: the next call is a trial.
		b.failures = th - 1
		return false
	}
	return true
}

func (b *Breaker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Model returns the provider's model.
func (b *Breaker) Model() string { return b.Provider.Model() }

// Embed calls the provider unless the breaker is open.
func (b *Breaker) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	b.mu.Lock()
	if b.open() {
		b.mu.Unlock()
		return nil, ErrOpen
	}
	b.mu.Unlock()
	vecs, err := b.Provider.Embed(ctx, texts)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.failures++
		b.openedAt = b.now()
		return nil, err
	}
	b.failures = 0
	return vecs, nil
}

// Cache keeps vectors on disk, one file per memory in Dir (the scope's
// .embedding-cache), valid while the model and the content's SHA-256 are
// the same.
type Cache struct {
	Dir string
}

// Entry is one cached vector (the seed's EmbeddingCacheEntry).
type Entry struct {
	Slug        string    `json:"slug"`
	Model       string    `json:"model"`
	Vector      []float32 `json:"vector"`
	ContentHash string    `json:"contentHash"`
	Timestamp   string    `json:"timestamp"`
}

// Hash is the hex SHA-256 of content.
func Hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// Get returns the cached vector of slug when it was computed by model from
// this content.
func (c Cache) Get(slug, model, content string) ([]float32, bool) {
	data, err := os.ReadFile(filepath.Join(c.Dir, slug+".json"))
	if err != nil {
		return nil, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.Model != model || e.ContentHash != Hash(content) || len(e.Vector) == 0 {
		return nil, false
	}
	return e.Vector, true
}

// Put stores a vector atomically.
func (c Cache) Put(slug, model, content string, vec []float32) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(Entry{Slug: slug, Model: model, Vector: vec, ContentHash: Hash(content), Timestamp: time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	return workspace.WriteFileAtomic(filepath.Join(c.Dir, slug+".json"), data, 0o644)
}

// Doc is a text to embed, with the slug it is cached under.
type Doc struct {
	Cache   Cache
	Slug    string
	Content string
}

// Vectors returns the vectors of docs, from the cache where valid and from
// p for the rest (in one call), caching what p computed.
func Vectors(ctx context.Context, p Provider, docs []Doc) ([][]float32, error) {
	out := make([][]float32, len(docs))
	var missing []int
	var texts []string
	model := p.Model()
	for i, d := range docs {
		if d.Cache.Dir != "" {
			if v, ok := d.Cache.Get(d.Slug, model, d.Content); ok {
				out[i] = v
				continue
			}
		}
		missing = append(missing, i)
		texts = append(texts, d.Content)
	}
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := p.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	model = p.Model() // a fallback may have answered
	for j, i := range missing {
		out[i] = vecs[j]
		if d := docs[i]; d.Cache.Dir != "" {
			d.Cache.Put(d.Slug, model, d.Content, vecs[j])
		}
	}
	return out, nil
}

// Cosine returns the cosine similarity of two vectors (0 when either is
// empty or their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
