package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name, yaml string
		wantErr    string
		check      func(Config) bool
	}{
		{"missing file", "", "", func(c Config) bool { return c.Retrieval.MaxTokens == 4000 && c.Index.MaxFileSize == 1<<20 }},
		{"overrides", "retrieval:\n  maxTokens: 1000\n  minRelevance: 0.3\nindex:\n  exclude: ['*.pb.go']\n", "",
			func(c Config) bool {
				return c.Retrieval.MaxTokens == 1000 && c.Retrieval.MinRelevance == 0.3 && c.Retrieval.MaxSections == 10 && c.Index.Exclude[0] == "*.pb.go"
			}},
		{"empty file", "\n", "", func(c Config) bool { return c.Retrieval.MaxSections == 10 }},
		{"unknown key", "retrieval:\n  maxTokenz: 5\n", "maxTokenz", nil},
		{"bad type", "retrieval:\n  maxTokens: lots\n", "parse config", nil},
		{"out of range", "retrieval:\n  minRelevance: 2\n", "minRelevance", nil},
		{"not yaml", "{{{", "parse config", nil},
		{"hooks", "hooks:\n  budget: 4000\n  deadline: 500ms\n", "", func(c Config) bool { return c.Hooks.Budget == 4000 && c.HookDeadline().Milliseconds() == 500 }},
		{"hook budget over the cap", "hooks:\n  budget: 20000\n", "hooks.budget", nil},
		{"bad deadline", "hooks:\n  deadline: soon\n", "hooks.deadline", nil},
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
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), File(root)) {
					t.Fatalf("err = %v, want one naming %q and the file", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("Load = %+v, %v", c, err)
			}
		})
	}
}
