package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestMCPConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), MCPFile)

	// Uninstall from nothing creates nothing.
	if rep, err := MCPConfig(p, Options{Uninstall: true}); err != nil || rep.Removed != 0 {
		t.Fatalf("uninstall from a missing file: %+v %v", rep, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("uninstall created %s", p)
	}

	original := `{
  "mcpServers": {
    "other": {"command": "other-server", "args": ["--stdio"]}
  },
  "note": "kept"
}
`
	os.WriteFile(p, []byte(original), 0o644)
	rep, err := MCPConfig(p, Options{Command: "/opt/bin/ctxls"})
	if err != nil || rep.Added != 1 || rep.Backup == "" {
		t.Fatalf("install: %+v %v", rep, err)
	}
	var doc struct {
		Servers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
		Note string `json:"note"`
	}
	data, _ := os.ReadFile(p)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Servers[MCPServerName]
	if got.Type != "stdio" || got.Command != "/opt/bin/ctxls" || len(got.Args) != 1 || got.Args[0] != "mcp" {
		t.Errorf("entry %+v", got)
	}
	if doc.Servers["other"].Command != "other-server" || doc.Note != "kept" {
		t.Errorf("other keys disturbed: %s", data)
	}

	// Idempotent; a new command replaces the entry instead of adding one.
	if rep, err := MCPConfig(p, Options{Command: "/opt/bin/ctxls"}); err != nil || rep.Added != 0 || rep.Backup != "" {
		t.Fatalf("second install: %+v %v", rep, err)
	}
	if rep, err := MCPConfig(p, Options{Command: "/usr/bin/ctxls"}); err != nil || rep.Added != 1 || rep.Removed != 1 {
		t.Fatalf("reinstall with another command: %+v %v", rep, err)
	}

	// Exact uninstall.
	if rep, err := MCPConfig(p, Options{Uninstall: true}); err != nil || rep.Removed != 1 {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
	var after, before any
	data, _ = os.ReadFile(p)
	json.Unmarshal(data, &after)
	json.Unmarshal([]byte(original), &before)
	a, _ := json.Marshal(after)
	b, _ := json.Marshal(before)
	if string(a) != string(b) {
		t.Errorf("after uninstall:\n%s\nwant\n%s", a, b)
	}

	// A file that held only ctxls goes away on uninstall.
	q := filepath.Join(t.TempDir(), MCPFile)
	if _, err := MCPConfig(q, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep, err := MCPConfig(q, Options{Uninstall: true}); err != nil || rep.Removed != 1 {
		t.Fatalf("uninstall: %+v %v", rep, err)
	}
	if _, err := os.Stat(q); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", q, err)
	}
}

func TestMCPConfigRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"invalid":      "{not json",
		"not-object":   `{"mcpServers": []}`,
		"someone-else": `{"mcpServers": {"ctxls": {"command": "npx", "args": ["ctxls-impostor"]}}}`,
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := MCPConfig(p, Options{Command: "ctxls"}); err == nil {
			t.Errorf("%s: install accepted", name)
		}
		if data, _ := os.ReadFile(p); string(data) != content {
			t.Errorf("%s: file modified to %s", name, data)
		}
	}
	// Uninstall leaves a server it did not write alone.
	p := filepath.Join(dir, "someone-else.json")
	if rep, err := MCPConfig(p, Options{Uninstall: true}); err != nil || rep.Removed != 0 {
		t.Errorf("uninstall of a foreign entry: %+v %v", rep, err)
	}
}
