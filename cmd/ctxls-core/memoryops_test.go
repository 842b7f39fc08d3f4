package main

import (
	"strings"
	"testing"
)

func TestMemoryOpsCLI(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := memctl(t, root, home, "", args...)
		if code != 0 {
			t.Fatalf("memory %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run("write", "--type", "learning", "--title", "Pool size", "--tags", "db", "--content", "x", "--slug", "learning-pool")
	run("write", "--type", "gotcha", "--title", "Pool \"leak\"", "--tags", "db", "--content", "x", "--slug", "gotcha-leak")
	run("write", "--type", "decision", "--title", "Use pgx", "--tags", "db", "--content", "x", "--slug", "decision-pgx")
	run("link", "decision-pgx", "learning-pool", "--label", "builds-on")
	run("link", "gotcha-leak", "learning-pool")
	if out := run("promote", "learning-pool", "decision"); !strings.Contains(out, "learning → decision") {
		t.Errorf("promote: %s", out)
	}
	if out := run("edges", "learning-pool"); !strings.Contains(out, "-[foundation-for]-> decision-pgx  Use pgx") {
		t.Errorf("edges after promote: %s", out)
	}
	run("rename", "learning-pool", "decision-pool")
	if out := run("graph", "--mermaid"); !strings.Contains(out, "decision-pgx -->|builds-on| decision-pool") ||
		!strings.Contains(out, `gotcha-leak["Pool #quot;leak#quot;"]`) || strings.Count(out, "-->") != 2 {
		t.Errorf("mermaid:\n%s", out)
	}
	if out := run("impact", "decision-pgx"); !strings.Contains(out, "1  decision-pool") || !strings.Contains(out, "2  gotcha-leak") {
		t.Errorf("impact: %s", out)
	}
	run("tag", "decision-pool", "perf,postgres")
	if out := run("untag", "decision-pool", "db"); !strings.Contains(out, "tags perf, postgres") {
		t.Errorf("untag: %s", out)
	}
	if _, _, code := memctl(t, root, home, "", "untag", "decision-pool", "perf", "postgres"); code == 0 {
		t.Error("removing every tag accepted")
	}
	out := run("move", "gotcha-leak", "local")
	if !strings.Contains(out, "project → local") || !strings.Contains(out, "dropped: decision-pool") {
		t.Errorf("move: %s", out)
	}
	if out := run("show", "gotcha-leak", "--scope", "local"); !strings.Contains(out, "Pool") {
		t.Errorf("moved memory: %s", out)
	}
	if _, _, code := memctl(t, root, home, "", "show", "gotcha-leak", "--scope", "project"); code == 0 {
		t.Error("still in the project scope")
	}
	if out := run("edges", "decision-pool"); strings.Contains(out, "gotcha-leak") {
		t.Errorf("edge to the moved memory kept: %s", out)
	}
}
