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
		// sources (package sources)
		{"sources defaults", "", "", func(c Config) bool {
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
		// memory.enterprise (package memory/team)
		{"enterprise on postgres", "memory:\n  enterprise:\n    backend: postgres\n    dsn: postgres://h/db\n", "", func(c Config) bool {
			e := c.Memory.Enterprise
			return e.Postgres() && e.SchemaName() == "ctxls" && e.DSN == "postgres://h/db"
		}},
		{"enterprise off by default", "", "", func(c Config) bool { return !c.Memory.Enterprise.Postgres() }},
		{"enterprise unknown backend", "memory:\n  enterprise:\n    backend: mysql\n", "memory.enterprise.backend", nil},
		{"enterprise schema injection", "memory:\n  enterprise:\n    backend: postgres\n    schema: 'x; drop table y'\n", "memory.enterprise.schema", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user file
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

// The user's file is read first and the workspace's over it, key by key;
// an error names the file it is in.
func TestUserFileUnderTheWorkspace(t *testing.T) {
	tests := []struct {
		name, user, workspace string
		wantErr               string // a file name ("user" or "workspace") and a fragment
		check                 func(Config) bool
	}{
		{"user file alone", "memory:\n  enterprise:\n    backend: postgres\n    dsn: postgres://team/db\nhooks:\n  budget: 5000\n", "", "",
			func(c Config) bool {
				return c.Memory.Enterprise.Postgres() && c.Memory.Enterprise.DSN == "postgres://team/db" && c.Hooks.Budget == 5000 && c.Retrieval.MaxTokens == 4000
			}},
		{"workspace key wins, others kept", "hooks:\n  budget: 5000\n  deadline: 2s\nindex:\n  exclude: ['*.gen.go']\n",
			"hooks:\n  budget: 6000\nindex:\n  exclude: ['*.pb.go']\n", "",
			func(c Config) bool {
				return c.Hooks.Budget == 6000 && c.HookDeadline().Seconds() == 2 && len(c.Index.Exclude) == 1 && c.Index.Exclude[0] == "*.pb.go"
			}},
		{"workspace project under the user's database", "memory:\n  enterprise:\n    backend: postgres\n    dsn: postgres://team/db\n",
			"memory:\n  enterprise:\n    project: acme/app\n", "",
			func(c Config) bool {
				e := c.Memory.Enterprise
				return e.Postgres() && e.DSN == "postgres://team/db" && e.Project == "acme/app"
			}},
		{"malformed user file", "hooks: [", "", "user parse config", nil},
		{"unknown key in the user file", "hookz: {}\n", "", "user hookz", nil},
		{"invalid value in the workspace file", "hooks:\n  budget: 5000\n", "hooks:\n  budget: 0\n", "workspace hooks.budget", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			files := map[string]string{"user": filepath.Join(xdg, "ctxls", "config.yaml")}
			if UserFile() != files["user"] {
				t.Fatalf("UserFile() = %q, want %q", UserFile(), files["user"])
			}
			root := t.TempDir()
			files["workspace"] = File(root)
			for which, text := range map[string]string{"user": tt.user, "workspace": tt.workspace} {
				if text == "" {
					continue
				}
				os.MkdirAll(filepath.Dir(files[which]), 0o755)
				if err := os.WriteFile(files[which], []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(root)
			if tt.wantErr != "" {
				which, fragment, _ := strings.Cut(tt.wantErr, " ")
				if err == nil || !strings.Contains(err.Error(), fragment) || !strings.Contains(err.Error(), files[which]) {
					t.Fatalf("err = %v, want one naming %q and %s", err, fragment, files[which])
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("Load = %+v, %v", c, err)
			}
		})
	}
}

func TestEnterpriseDSNFromEnvironment(t *testing.T) {
	e := Enterprise{Backend: "postgres", DSN: "postgres://file/db"}
	t.Setenv(EnterpriseDSNEnv, "")
	if got := e.ResolvedDSN(); got != "postgres://file/db" {
		t.Fatalf("ResolvedDSN = %q without the variable", got)
	}
	t.Setenv(EnterpriseDSNEnv, "postgres://env/db")
	if got := e.ResolvedDSN(); got != "postgres://env/db" {
		t.Fatalf("ResolvedDSN = %q, want the variable's", got)
	}
}
