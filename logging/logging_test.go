package logging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "ctxls.log")
	log, err := File(p, "info")
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	log.Info("hook answered")
	log.Sync()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var rec map[string]any
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec["msg"] != "hook answered" {
		t.Fatalf("log file: %q", data)
	}
	if _, err := File(p, "loud"); err == nil {
		t.Fatal("bad level accepted")
	}
}
