package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestThinkCLI(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := memctl(t, root, home, "", args...)
		if code != 0 {
			t.Fatalf("memory %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("write", "--type", "gotcha", "--title", "Cache stampede", "--tags", "cache", "--content", "Lock on miss.")
	var d struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(run("think", "create", "How should we cache sessions?", "--json")), &d); err != nil {
		t.Fatal(err)
	}
	run("think", "add", "Redis is fast.")
	run("think", "counter", "Watch gotcha-cache-stampede.")
	run("think", "branch", "Keep it in PostgreSQL.")
	show := run("think", "show")
	for _, want := range []string{"# How should we cache sessions?", "## 2. Counter", "Keep it in PostgreSQL."} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if list := run("think", "list"); !strings.Contains(list, "* "+d.ID) || !strings.Contains(list, "3 thoughts") {
		t.Errorf("list: %s", list)
	}
	var c struct {
		Memory struct {
			Slug string `json:"slug"`
			Type string `json:"type"`
		} `json:"memory"`
	}
	if err := json.Unmarshal([]byte(run("think", "conclude", "Redis with a lock on miss.", "--promote", "decision", "--json")), &c); err != nil {
		t.Fatal(err)
	}
	if c.Memory.Type != "decision" {
		t.Fatalf("conclude: %+v", c)
	}
	if out := run("graph", c.Memory.Slug); !strings.Contains(out, "gotcha-cache-stampede") {
		t.Errorf("promoted memory not linked to the referenced gotcha: %s", out)
	}
	// Errors: exit 1 with a message, nothing written.
	for _, args := range [][]string{
		{"think", "add", "no current document"},
		{"think", "use", "../../x"},
		{"think", "delete", "think-missing"},
		{"think", "conclude", "x", "--promote", "opinion"},
	} {
		_, errOut, code := memctl(t, root, home, "", args...)
		if code == 0 || !strings.Contains(errOut, "ctxls:") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	run("think", "delete", d.ID)
	if list := run("think", "list"); !strings.Contains(list, "no thinking documents") {
		t.Errorf("list after delete: %s", list)
	}
}
