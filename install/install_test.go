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
	if string(data) != "node_modules\n"+gitignoreMarker+"\n.ctxls/\n" {
		t.Fatalf(".gitignore = %q", data)
	}
	if removed, err := RemoveGitignore(dir); !removed || err != nil {
		t.Fatalf("RemoveGitignore = %v %v", removed, err)
	}
	if data, _ = os.ReadFile(filepath.Join(dir, ".gitignore")); string(data) != "node_modules\n" {
		t.Fatalf(".gitignore after RemoveGitignore = %q", data)
	}
}

// Uninstall leaves the files as init found them: a line of the project's
// own stays, and what init created goes.
func TestUninstallLeavesFilesAsFound(t *testing.T) {
	root := t.TempDir()
	// A .ctxls/ line the project wrote is not init's to remove.
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".ctxls/\n"), 0o644)
	if removed, err := RemoveGitignore(root); removed || err != nil {
		t.Errorf("RemoveGitignore of the project's own line = %v %v", removed, err)
	}
	os.Remove(filepath.Join(root, ".gitignore"))
	if _, err := EnsureGitignore(root); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveGitignore(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf(".gitignore init created is still there: %v", err)
	}

	p := filepath.Join(root, ".claude", "settings.json")
	// Uninstall where nothing was installed creates nothing.
	if _, err := Settings(p, Options{Uninstall: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("uninstall created %s: %v", p, err)
	}
	if _, err := Settings(p, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep, err := Settings(p, Options{Uninstall: true}); err != nil || rep.Removed != len(Hooks) || rep.Backup != "" {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Dir(p)); !os.IsNotExist(err) {
		t.Errorf("%s init created is still there: %v", filepath.Dir(p), err)
	}

	// A file without ctxls's hooks is not rewritten, not even reformatted.
	own := `{"model":"opus"}`
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(own), 0o644)
	if rep, err := Settings(p, Options{Uninstall: true}); err != nil || rep.Removed != 0 || rep.Backup != "" {
		t.Fatalf("uninstall of a file without ctxls: %+v %v", rep, err)
	}
	if data, _ := os.ReadFile(p); string(data) != own {
		t.Errorf("file without ctxls rewritten: %s", data)
	}
}

func TestSharedCommand(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin", "ctxls")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(root, "notes.txt"), nil, 0o644)
	t.Setenv("PATH", filepath.Join(root, "bin"))
	for _, c := range []struct {
		command  string
		shared   bool   // CheckShared accepts it
		resolves string // Resolve's answer, "" for an error
	}{
		{"ctxls", true, bin},
		{"no-such-ctxls", true, ""},
		{"bin/ctxls", true, bin},
		{"./bin/ctxls", true, bin},
		{"notes.txt", true, ""},   // a name, not on PATH
		{"./notes.txt", true, ""}, // not executable
		{"./bin", true, ""},       // a directory
		{bin, false, bin},
		{"~/bin/ctxls", false, ""},
	} {
		if err := CheckShared(c.command); (err == nil) != c.shared {
			t.Errorf("CheckShared(%q) = %v", c.command, err)
		}
		got, err := Resolve(root, c.command)
		if got != c.resolves || (err == nil) != (c.resolves != "") {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.command, got, err, c.resolves)
		}
	}
}
