// Package config reads a workspace's ctxls configuration: the user's
// $XDG_CONFIG_HOME/ctxls/config.yaml (~/.config/ctxls/config.yaml), then
// <root>/.ctxls/config.yaml over it, key by key. Every key has a default,
// so missing files are a valid, default configuration; a malformed one is
// an error naming the file.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"gopkg.in/yaml.v3"
)

// Config is the whole configuration.
type Config struct {
	Index     Index     `yaml:"index"`
	Retrieval Retrieval `yaml:"retrieval"`
	Hooks     Hooks     `yaml:"hooks"`
	Sources   Sources   `yaml:"sources"`
	Serve     Serve     `yaml:"serve"`
	Memory    Memory    `yaml:"memory"`
}

// Serve configures the language server (ctxls serve).
type Serve struct {
	// Debounce is the quiet time after editor activity before the
	// auto-context is rewritten, as a Go duration ("150ms"; "0s" rewrites
	// after every activity).
	Debounce string `yaml:"debounce"`
}

// Hooks configures the Claude Code hooks.
type Hooks struct {
	// Budget is the additionalContext budget in characters (Claude Code
	// replaces anything over 10,000 with a preview).
	Budget int `yaml:"budget"`
	// Deadline is how long a hook may work before it answers with what is
	// ready, as a Go duration ("1s", "800ms").
	Deadline string `yaml:"deadline"`
	// Daemon, when false, makes every hook call answer in its own process
	// instead of through the workspace's hook daemon (default true).
	Daemon *bool `yaml:"daemon"`
}

// Index configures what is indexed.
type Index struct {
	// MaxFileSize is the largest file parsed, in bytes.
	MaxFileSize int64 `yaml:"maxFileSize"`
	// Exclude holds extra gitignore-style patterns to skip.
	Exclude []string `yaml:"exclude"`
	// IncludeVendor indexes vendor/, third_party/, _vendor/ and similar
	// directories of third-party code.
	IncludeVendor bool `yaml:"includeVendor"`
}

// Retrieval configures ranking and context assembly (the seed's keys).
type Retrieval struct {
	MaxTokens    int     `yaml:"maxTokens"`
	MaxSections  int     `yaml:"maxSections"`
	MinRelevance float64 `yaml:"minRelevance"`
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Index:     Index{MaxFileSize: 1 << 20},
		Retrieval: Retrieval{MaxTokens: 4000, MaxSections: 10, MinRelevance: 0.5},
		Hooks:     Hooks{Budget: 9500, Deadline: "1s"},
		Sources:   DefaultSources(),
		Serve:     Serve{Debounce: "150ms"},
	}
}

// File returns the configuration file of a workspace root.
func File(root string) string { return filepath.Join(workspace.Dir(root), "config.yaml") }

// UserFile returns the user's configuration file, read before every
// workspace's: $XDG_CONFIG_HOME/ctxls/config.yaml, else
// ~/.config/ctxls/config.yaml; "" when neither can be located. Settings
// that belong to a person rather than a project live there, such as the
// team's enterprise memory database (docs/TEAM-MEMORY.md).
func UserFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ctxls", "config.yaml")
}

// Load reads the configuration of the workspace at root: the defaults, the
// user's file (UserFile) over them, and the workspace's file (File) over
// that. A key the workspace's file sets replaces the user's value, a list
// included; keys it leaves out keep the user's.
func Load(root string) (Config, error) {
	cfg := Default()
	for _, path := range []string{UserFile(), File(root)} {
		if path == "" {
			continue
		}
		if err := decodeFile(path, &cfg); err != nil {
			return Default(), err
		}
	}
	return cfg, nil
}

// decodeFile decodes the YAML file at path over cfg and validates the
// result; a missing file changes nothing.
func decodeFile(path string, cfg *Config) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("parse config %s: %w", path, err)
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

func (c *Config) validate() error {
	switch {
	case c.Index.MaxFileSize <= 0:
		return fmt.Errorf("index.maxFileSize must be positive, got %d", c.Index.MaxFileSize)
	case c.Retrieval.MaxTokens <= 0:
		return fmt.Errorf("retrieval.maxTokens must be positive, got %d", c.Retrieval.MaxTokens)
	case c.Retrieval.MaxSections <= 0:
		return fmt.Errorf("retrieval.maxSections must be positive, got %d", c.Retrieval.MaxSections)
	case c.Retrieval.MinRelevance < 0 || c.Retrieval.MinRelevance > 1:
		return fmt.Errorf("retrieval.minRelevance must be within [0, 1], got %g", c.Retrieval.MinRelevance)
	case c.Hooks.Budget <= 0 || c.Hooks.Budget > 10000:
		return fmt.Errorf("hooks.budget must be within (0, 10000], got %d", c.Hooks.Budget)
	}
	if d, err := time.ParseDuration(c.Hooks.Deadline); err != nil || d <= 0 {
		return fmt.Errorf("hooks.deadline must be a positive duration such as 1s, got %q", c.Hooks.Deadline)
	}
	if d, err := time.ParseDuration(c.Serve.Debounce); err != nil || d < 0 {
		return fmt.Errorf("serve.debounce must be a duration such as 150ms, got %q", c.Serve.Debounce)
	}
	if err := c.Memory.Enterprise.validate(); err != nil {
		return err
	}
	return c.Sources.validate()
}

// ServeDebounce returns serve.debounce as a duration.
func (c Config) ServeDebounce() time.Duration {
	d, err := time.ParseDuration(c.Serve.Debounce)
	if err != nil || d < 0 {
		return 150 * time.Millisecond
	}
	return d
}

// HookDaemon says whether hook calls go through the workspace's daemon.
func (c Config) HookDaemon() bool { return c.Hooks.Daemon == nil || *c.Hooks.Daemon }

// HookDeadline returns hooks.deadline as a duration.
func (c Config) HookDeadline() time.Duration {
	d, err := time.ParseDuration(c.Hooks.Deadline)
	if err != nil || d <= 0 {
		return time.Second
	}
	return d
}
