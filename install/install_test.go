package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSettingsMergeIdempotentUninstall(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	original := `{
  "model": "opus",
  "hooks": {
    "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool"}]}]
  }
}
`
	os.WriteFile(p, []byte(original), 0o644)

	rep, err := Settings(p, Options{Command: "/usr/local/bin/ctxls"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != len(Hooks) || rep.Backup == "" {
		t.Fatalf("report %+v", rep)
	}
	if b, _ := os.ReadFile(rep.Backup); string(b) != original {
		t.Fatalf("backup differs from the original")
	}
	var doc map[string]any
	data, _ := os.ReadFile(p)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["model"] != "opus" {
		t.Fatalf("other keys disturbed: %v", doc)
	}
	post := doc["hooks"].(map[string]any)["PostToolUse"].([]any)
	if len(post) != 2 || !strings.Contains(string(data), "other-tool") {
		t.Fatalf("PostToolUse = %v", post)
	}
	for _, h := range Hooks {
		if !strings.Contains(string(data), `"`+h.Arg+`"`) {
			t.Errorf("hook %s not installed", h.Arg)
		}
	}
	if !strings.Contains(string(data), `"timeout": 5`) {
		t.Errorf("no explicit timeout in %s", data)
	}

	// Idempotent: a second install changes nothing.
	rep, err = Settings(p, Options{Command: "/usr/local/bin/ctxls"})
	if err != nil || rep.Added != 0 || rep.Backup != "" {
		t.Fatalf("second install %+v %v", rep, err)
	}
	data2, _ := os.ReadFile(p)
	if string(data2) != string(data) {
		t.Fatal("second install changed the file")
	}

	// Uninstall removes exactly what was added.
	if _, err := Settings(p, Options{Uninstall: true}); err != nil {
		t.Fatal(err)
	}
	var after, before map[string]any
	data3, _ := os.ReadFile(p)
	json.Unmarshal(data3, &after)
	json.Unmarshal([]byte(original), &before)
	a, _ := json.Marshal(after)
	b, _ := json.Marshal(before)
	if string(a) != string(b) {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", a, b)
	}
}

func TestSettingsRefusesInvalidJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(p, []byte("{not json"), 0o644)
	if _, err := Settings(p, Options{}); err == nil {
		t.Fatal("invalid settings accepted")
	}
	if data, _ := os.ReadFile(p); string(data) != "{not json" {
		t.Fatal("invalid settings file was modified")
	}
}

func TestPluginAndGitignore(t *testing.T) {
	dir := t.TempDir()
	files, err := Plugin(dir, "ctxls", "v1.2.3")
	if err != nil || len(files) != 3 {
		t.Fatalf("Plugin = %v, %v", files, err)
	}
	var m map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
	if json.Unmarshal(data, &m); m["name"] != "ctxls" || m["version"] != "1.2.3" {
		t.Fatalf("manifest %s", data)
	}
	var h map[string]any
	data, _ = os.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	if err := json.Unmarshal(data, &h); err != nil || h["hooks"] == nil {
		t.Fatalf("hooks.json %s", data)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules"), 0o644)
	if added, err := EnsureGitignore(dir); !added || err != nil {
		t.Fatalf("EnsureGitignore = %v %v", added, err)
	}
	if added, _ := EnsureGitignore(dir); added {
		t.Fatal("added twice")
	}
	data, _ = os.ReadFile(filepath.Join(dir, ".gitignore"))
	if string(data) != "node_modules\n.ctxls/\n" {
		t.Fatalf(".gitignore = %q", data)
	}
}
