package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
)

// Config is config.json: the embedding provider, scope preferences and
// quality thresholds. The project's file is merged over the global one,
// which is merged over the defaults.
type Config struct {
	Embedding EmbeddingConfig `json:"embedding"`
	Scopes    ScopeConfig     `json:"scopes"`
	Quality   QualityConfig   `json:"quality"`
}

// EmbeddingConfig configures the optional embeddings provider.
type EmbeddingConfig struct {
	Provider       string   `json:"provider"` // ollama, openai or disabled
	Endpoint       string   `json:"endpoint"`
	Model          string   `json:"model"`
	FallbackModels []string `json:"fallbackModels"`
	CacheDirectory string   `json:"cacheDirectory"`
}

// ScopeConfig configures scopes.
type ScopeConfig struct {
	Default    string `json:"default"` // auto, global, project, local
	Enterprise struct {
		Enabled bool `json:"enabled"`
		// Path is the enterprise scope's directory (absolute).
		Path string `json:"path,omitempty"`
	} `json:"enterprise"`
}

// QualityConfig configures health checks.
type QualityConfig struct {
	OrphanThreshold int `json:"orphanThreshold"` // days
	MinQualityScore int `json:"minQualityScore"` // 0-100
}

// DefaultConfig returns the seed's defaults. The provider is "ollama" as in
// the seed, but embeddings are only used when a caller asks for them: the
// default search path is lexical.
func DefaultConfig() Config {
	var c Config
	c.Embedding = EmbeddingConfig{Provider: "ollama", Endpoint: "http://localhost:11434", Model: "embeddinggemma",
		FallbackModels: []string{"nomic-embed-text", "all-minilm"}, CacheDirectory: ".embedding-cache"}
	c.Scopes.Default = "auto"
	c.Quality = QualityConfig{OrphanThreshold: 30, MinQualityScore: 50}
	return c
}

// LoadConfig merges globalDir/config.json and then projectDir/config.json
// over the defaults; missing files are skipped, malformed ones are errors.
func LoadConfig(globalDir, projectDir string) (Config, error) {
	c := DefaultConfig()
	for _, dir := range []string{globalDir, projectDir} {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, "config.json")
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return c, fmt.Errorf("read %s: %w", path, err)
		}
		// Decoding into the merged value overrides exactly the keys the
		// file sets, at any depth.
		if err := json.Unmarshal(data, &c); err != nil {
			return c, fmt.Errorf("%s: %w", path, err)
		}
		if err := c.Validate(); err != nil {
			return c, fmt.Errorf("%s: %w", path, err)
		}
	}
	return c, nil
}

// Validate checks the seed's configuration rules.
func (c Config) Validate() error {
	var errs []error
	if !slices.Contains([]string{"ollama", "openai", "disabled"}, c.Embedding.Provider) {
		errs = append(errs, fmt.Errorf("embedding.provider %q must be ollama, openai or disabled", c.Embedding.Provider))
	}
	if u, err := url.Parse(c.Embedding.Endpoint); err != nil || u.Scheme == "" || u.Host == "" {
		errs = append(errs, fmt.Errorf("embedding.endpoint %q is not a URL", c.Embedding.Endpoint))
	}
	if c.Embedding.Model == "" || slices.Contains(c.Embedding.FallbackModels, "") {
		errs = append(errs, errors.New("embedding.model and fallbackModels must be non-empty"))
	}
	if !slices.Contains([]string{"auto", "global", "project", "local"}, c.Scopes.Default) {
		errs = append(errs, fmt.Errorf("scopes.default %q must be auto, global, project or local", c.Scopes.Default))
	}
	if c.Quality.OrphanThreshold <= 0 {
		errs = append(errs, errors.New("quality.orphanThreshold must be a positive number of days"))
	}
	if c.Quality.MinQualityScore < 0 || c.Quality.MinQualityScore > 100 {
		errs = append(errs, errors.New("quality.minQualityScore must be 0-100"))
	}
	if p := c.Scopes.Enterprise.Path; p != "" && (!filepath.IsAbs(p) || filepath.Clean(p) != p) {
		errs = append(errs, fmt.Errorf("scopes.enterprise.path %q must be an absolute, clean path (no ..)", p))
	}
	return errors.Join(errs...)
}
