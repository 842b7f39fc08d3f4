package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A ctxls-core built without the sqlite_fts5 tag (a plain go build or go
// install) refuses to run with one sentence that says how to build it,
// rather than failing later with SQLite's "no such module: fts5".
func TestBuildWithoutFTS5Refuses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctxls-core without FTS5 (a minute of cgo on a cold cache)")
	}
	bin := filepath.Join(t.TempDir(), "ctxls-core")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build without tags: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"index"}, {"--version"}, {"query", "x"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if cmd.ProcessState.ExitCode() != exitError || stderr.String() != noFTS5+"\n" {
			t.Errorf("%v without FTS5: %v, stderr %q", args, err, stderr.String())
		}
	}
}
