package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Sources configures the context sources beyond code (package sources).
type Sources struct {
	// Rules is the rules injector (Cursor, Copilot, Claude Code, kord).
	Rules Toggle `yaml:"rules"`
	// AgentsMD injects the nearest AGENTS.md of the file in play.
	AgentsMD Budgeted `yaml:"agentsMd"`
	// Readme injects the README.md of the file's directory.
	Readme Budgeted `yaml:"readme"`
	// Modes are keyword-triggered instruction modes.
	Modes []Mode `yaml:"modes"`
	// Discovery suggests agents, commands, skills and output styles.
	Discovery Discovery `yaml:"discovery"`
}

// Toggle turns a source on or off.
type Toggle struct {
	Enabled bool `yaml:"enabled"`
}

// Budgeted is a source whose content is trimmed to MaxChars characters.
type Budgeted struct {
	Enabled  bool `yaml:"enabled"`
	MaxChars int  `yaml:"maxChars"`
}

// Mode is an instruction injected, once per prompt, when the prompt
// contains one of Keywords (whole words, any case) or matches Pattern (a Go
// regular expression).
type Mode struct {
	Name        string   `yaml:"name"`
	Keywords    []string `yaml:"keywords"`
	Pattern     string   `yaml:"pattern"`
	Instruction string   `yaml:"instruction"`
}

// Discovery configures dynamic discovery (seed v1.3.0).
type Discovery struct {
	Enabled bool `yaml:"enabled"`
	// CacheSize bounds the parsed-item LRU cache.
	CacheSize int `yaml:"cacheSize"`
	// Timeout bounds the parallel directory scan (a Go duration).
	Timeout string `yaml:"timeout"`
	// MinScore is the relevance floor: how many distinct prompt terms an
	// item must match (naming the item counts one more).
	MinScore int `yaml:"minScore"`
	// MaxPerType is how many items of each type are suggested.
	MaxPerType int `yaml:"maxPerType"`
}

// DefaultSources returns the sources' built-in configuration.
func DefaultSources() Sources {
	return Sources{
		Rules:     Toggle{Enabled: true},
		AgentsMD:  Budgeted{Enabled: true, MaxChars: 4000},
		Readme:    Budgeted{Enabled: true, MaxChars: 1500},
		Discovery: Discovery{Enabled: true, CacheSize: 50, Timeout: "2s", MinScore: 2, MaxPerType: 5},
	}
}

// ScanTimeout returns sources.discovery.timeout as a duration.
func (d Discovery) ScanTimeout() time.Duration {
	t, err := time.ParseDuration(d.Timeout)
	if err != nil || t <= 0 {
		return 2 * time.Second
	}
	return t
}

func (s *Sources) validate() error {
	switch {
	case s.AgentsMD.MaxChars <= 0:
		return fmt.Errorf("sources.agentsMd.maxChars must be positive, got %d", s.AgentsMD.MaxChars)
	case s.Readme.MaxChars <= 0:
		return fmt.Errorf("sources.readme.maxChars must be positive, got %d", s.Readme.MaxChars)
	case s.Discovery.CacheSize <= 0:
		return fmt.Errorf("sources.discovery.cacheSize must be positive, got %d", s.Discovery.CacheSize)
	case s.Discovery.MinScore <= 0:
		return fmt.Errorf("sources.discovery.minScore must be positive, got %d", s.Discovery.MinScore)
	case s.Discovery.MaxPerType <= 0:
		return fmt.Errorf("sources.discovery.maxPerType must be positive, got %d", s.Discovery.MaxPerType)
	}
	if d, err := time.ParseDuration(s.Discovery.Timeout); err != nil || d <= 0 {
		return fmt.Errorf("sources.discovery.timeout must be a positive duration such as 2s, got %q", s.Discovery.Timeout)
	}
	seen := map[string]bool{}
	for i, m := range s.Modes {
		name := strings.TrimSpace(m.Name)
		switch {
		case name == "":
			return fmt.Errorf("sources.modes[%d]: name is required", i)
		case seen[name]:
			return fmt.Errorf("sources.modes[%d]: mode %q is defined twice", i, name)
		case strings.TrimSpace(m.Instruction) == "":
			return fmt.Errorf("sources.modes[%d] (%s): instruction is required", i, name)
		case len(m.Keywords) == 0 && m.Pattern == "":
			return fmt.Errorf("sources.modes[%d] (%s): give keywords or a pattern", i, name)
		}
		seen[name] = true
		if m.Pattern != "" {
			if _, err := regexp.Compile(m.Pattern); err != nil {
				return fmt.Errorf("sources.modes[%d] (%s): pattern: %w", i, name, err)
			}
		}
	}
	return nil
}
