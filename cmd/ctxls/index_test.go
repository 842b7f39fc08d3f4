package main

import (
	"path/filepath"
	"testing"
)

func TestParseIndex(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		json bool
		ok   bool
	}{
		{[]string{"--root", dir}, false, true},
		{[]string{"--root=" + dir, "--json"}, true, true},
		{[]string{"--json=false", "--root", dir}, false, true},
		// ctxls-core's business: a walk asked for, help, mistakes.
		{[]string{"--root", dir, "--check"}, false, false},
		{[]string{"--root", dir, "--workers", "2"}, false, false},
		{[]string{"--root", dir, "--progress"}, false, false},
		{[]string{"--json=maybe", "--root", dir}, false, false},
		{[]string{"--root"}, false, false},
		{[]string{"-h"}, false, false},
		{[]string{"--root", dir, "extra"}, false, false},
		{[]string{"--root", filepath.Join(dir, "missing")}, false, false},
	} {
		req, ok := parseIndex(tc.args)
		if ok != tc.ok {
			t.Errorf("parseIndex(%q) ok = %v, want %v", tc.args, ok, tc.ok)
			continue
		}
		if ok && (req.Root != abs || req.Index == nil || req.Index.JSON != tc.json) {
			t.Errorf("parseIndex(%q) = root %q, index %+v; want root %q, json %v", tc.args, req.Root, req.Index, abs, tc.json)
		}
	}
}
