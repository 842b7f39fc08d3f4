// Package inject chooses the memories to put in front of the assistant after
// (and, for edits, before) a tool call, as the memory plugin v1.1.0 does:
// per-type switches, thresholds and limits from .claude/memory.local.md over
// the seed's defaults, thresholds scaled by the tool's multiplier, relevance
// in [0,1] against the file, the tool's input and the memories' attached
// paths, gotchas first, at most ten.
package inject

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/memory"
)

// TypeConfig is one memory type's injection settings.
type TypeConfig struct {
	Enabled   bool
	Threshold float64 // minimum relevance, 0-1
	Limit     int     // most memories of this type, ≥ 1
}

// Config is the InjectionConfig of the seed.
type Config struct {
	Enabled bool
	Types   map[memory.Type]TypeConfig
	// HookMultipliers scale thresholds by tool (Read, Edit, Write, Bash).
	HookMultipliers map[string]float64
}

// Injectable are the types the seed injects, in priority order.
var Injectable = []memory.Type{memory.Gotcha, memory.Decision, memory.Learning}

// MaxTotal is the seed's hard limit on memories per injection.
const MaxTotal = 10

// Defaults returns the seed's defaults: gotchas on (0.2, 5), decisions off
// (0.35, 3), learnings off (0.4, 2); multipliers Read 1.0, Edit 0.8,
// Write 0.8, Bash 1.2.
func Defaults() Config {
	return Config{
		Enabled: true,
		Types: map[memory.Type]TypeConfig{
			memory.Gotcha:   {Enabled: true, Threshold: 0.2, Limit: 5},
			memory.Decision: {Enabled: false, Threshold: 0.35, Limit: 3},
			memory.Learning: {Enabled: false, Threshold: 0.4, Limit: 2},
		},
		HookMultipliers: map[string]float64{"Read": 1.0, "Edit": 0.8, "Write": 0.8, "Bash": 1.2},
	}
}

// ConfigFile is where the settings live, relative to the workspace root.
const ConfigFile = ".claude/memory.local.md"

// LoadConfig reads the injection: key of .claude/memory.local.md's
// frontmatter and merges it over the defaults: each key given replaces the
// default, the rest stay. A missing file (or no injection: key) gives the
// defaults; an invalid one gives the defaults and an error saying why.
func LoadConfig(root string) (Config, error) {
	c := Defaults()
	path := filepath.Join(root, filepath.FromSlash(ConfigFile))
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	front, _, err := memory.Frontmatter(data)
	if errors.Is(err, memory.ErrNoFrontmatter) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	var file struct {
		Injection *struct {
			Enabled *bool `yaml:"enabled"`
			Types   map[string]struct {
				Enabled   *bool    `yaml:"enabled"`
				Threshold *float64 `yaml:"threshold"`
				Limit     *int     `yaml:"limit"`
			} `yaml:"types"`
			HookMultipliers map[string]float64 `yaml:"hook_multipliers"`
		} `yaml:"injection"`
	}
	if err := yaml.Unmarshal(front, &file); err != nil {
		return Defaults(), fmt.Errorf("%s: invalid YAML: %w", path, err)
	}
	in := file.Injection
	if in == nil {
		return c, nil
	}
	if in.Enabled != nil {
		c.Enabled = *in.Enabled
	}
	var errs []error
	for name, tc := range in.Types {
		t := memory.Type(name)
		base, ok := c.Types[t]
		if !ok {
			errs = append(errs, fmt.Errorf("injection.types.%s: only gotcha, decision and learning are injected", name))
			continue
		}
		if tc.Enabled != nil {
			base.Enabled = *tc.Enabled
		}
		if tc.Threshold != nil {
			if *tc.Threshold < 0 || *tc.Threshold > 1 {
				errs = append(errs, fmt.Errorf("injection.types.%s.threshold %g must be 0-1", name, *tc.Threshold))
			} else {
				base.Threshold = *tc.Threshold
			}
		}
		if tc.Limit != nil {
			if *tc.Limit < 1 {
				errs = append(errs, fmt.Errorf("injection.types.%s.limit %d must be at least 1", name, *tc.Limit))
			} else {
				base.Limit = *tc.Limit
			}
		}
		c.Types[t] = base
	}
	for tool, m := range in.HookMultipliers {
		if m < 0.5 || m > 2 {
			errs = append(errs, fmt.Errorf("injection.hook_multipliers.%s %g must be 0.5-2.0", tool, m))
			continue
		}
		c.HookMultipliers[tool] = m
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Multiplier returns the threshold multiplier of a tool: MultiEdit and
// NotebookEdit count as Edit; tools without one get 1.
func (c Config) Multiplier(tool string) float64 {
	switch tool {
	case "MultiEdit", "NotebookEdit":
		tool = "Edit"
	}
	if m, ok := c.HookMultipliers[tool]; ok {
		return m
	}
	return 1
}

// EffectiveThreshold is a type's threshold scaled by the tool's multiplier.
func (c Config) EffectiveThreshold(t memory.Type, tool string) float64 {
	return c.Types[t].Threshold * c.Multiplier(tool)
}

// TypeEnabled reports whether a type is injected at all.
func (c Config) TypeEnabled(t memory.Type) bool { return c.Enabled && c.Types[t].Enabled }
