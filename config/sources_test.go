package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSources(t *testing.T) {
	tests := []struct {
		name, yaml string
		wantErr    string
		check      func(Config) bool
	}{
		{"defaults", "", "", func(c Config) bool {
			s := c.Sources
			return s.Rules.Enabled && s.AgentsMD.Enabled && s.Readme.MaxChars == 1500 && s.Discovery.CacheSize == 50 &&
				s.Discovery.ScanTimeout().Seconds() == 2 && s.Discovery.MaxPerType == 5 && len(s.Modes) == 0
		}},
		{"partial override keeps other defaults", "sources:\n  readme:\n    maxChars: 800\n  discovery:\n    enabled: false\n", "", func(c Config) bool {
			s := c.Sources
			return s.Readme.Enabled && s.Readme.MaxChars == 800 && !s.Discovery.Enabled && s.Discovery.CacheSize == 50
		}},
		{"modes", "sources:\n  modes:\n    - name: ultrawork\n      keywords: [ultrawork, ulw]\n      instruction: Work until done.\n    - name: analyze\n      pattern: '(?i)\\banaly[sz]e\\b'\n      instruction: Analyse first.\n", "",
			func(c Config) bool { return len(c.Sources.Modes) == 2 && c.Sources.Modes[1].Pattern != "" }},
		{"mode without instruction", "sources:\n  modes:\n    - name: x\n      keywords: [x]\n", "instruction is required", nil},
		{"mode without trigger", "sources:\n  modes:\n    - name: x\n      instruction: y\n", "keywords or a pattern", nil},
		{"mode with a bad pattern", "sources:\n  modes:\n    - name: x\n      pattern: '(['\n      instruction: y\n", "pattern", nil},
		{"duplicate mode", "sources:\n  modes:\n    - {name: x, keywords: [a], instruction: y}\n    - {name: x, keywords: [b], instruction: z}\n", "defined twice", nil},
		{"bad timeout", "sources:\n  discovery:\n    timeout: never\n", "sources.discovery.timeout", nil},
		{"zero cache", "sources:\n  discovery:\n    cacheSize: 0\n", "cacheSize", nil},
		{"unknown source key", "sources:\n  rulez: {}\n", "rulez", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.yaml != "" {
				os.MkdirAll(filepath.Join(root, ".ctxls"), 0o755)
				os.WriteFile(File(root), []byte(tt.yaml), 0o644)
			}
			c, err := Load(root)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("Load = %+v, %v", c.Sources, err)
			}
		})
	}
}
