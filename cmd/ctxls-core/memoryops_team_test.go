package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The plugin's daily commands beyond write, show and link (promote,
// demote, tag, untag, edges, impact, graph --mermaid, move) reach the
// enterprise scope on PostgreSQL as they reach a file scope, with the
// database configured only in the user's own config file: nothing of the
// team's database is in the workspace.
func TestMemoryOpsOnTheEnterpriseDatabase(t *testing.T) {
	srv := pg.Need(t)
	root, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "ctxls"), 0o755)
	cfg := "memory:\n  enterprise:\n    backend: postgres\n    schema: cli_ops\n    project: acme\n"
	if err := os.WriteFile(filepath.Join(xdg, "ctxls", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + xdg, "CTXLS_ENTERPRISE_DSN=" + srv.DSN + "&password=" + secretPassword}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		out, errOut, code := memctlEnv(t, root, home, env, "", args...)
		if strings.Contains(out+errOut, secretPassword) {
			t.Fatalf("memory %v printed the DSN's password", args)
		}
		if code != wantCode {
			t.Fatalf("memory %v: exit %d, want %d: %s%s", args, code, wantCode, out, errOut)
		}
		return out + errOut
	}
	ent := []string{"--scope", "enterprise"}
	run(0, append(ent, "write", "--type", "learning", "--title", "Pool size", "--tags", "db", "--content", "x", "--slug", "learning-pool")...)
	run(0, append(ent, "write", "--type", "gotcha", "--title", "Pool leak", "--tags", "db", "--content", "x", "--slug", "gotcha-leak")...)
	run(0, append(ent, "write", "--type", "decision", "--title", "Use pgx", "--tags", "db", "--content", "x", "--slug", "decision-pgx")...)
	run(0, append(ent, "link", "decision-pgx", "learning-pool", "--label", "builds-on")...)
	run(0, append(ent, "link", "gotcha-leak", "learning-pool")...)

	// Without --scope the memory is found in the database.
	if out := run(0, "promote", "learning-pool", "decision"); !strings.Contains(out, "learning → decision (enterprise scope)") {
		t.Errorf("promote: %s", out)
	}
	if out := run(0, "show", "--scope", "enterprise", "learning-pool"); !strings.Contains(out, "type: decision") {
		t.Errorf("promote did not reach the database: %s", out)
	}
	if out := run(0, "demote", "learning-pool", "learning"); !strings.Contains(out, "decision → learning") {
		t.Errorf("demote: %s", out)
	}
	if out := run(0, "edges", "learning-pool"); !strings.Contains(out, "-[foundation-for]-> decision-pgx  Use pgx") {
		t.Errorf("edges: %s", out)
	}
	if out := run(0, "impact", "decision-pgx"); !strings.Contains(out, "1  learning-pool  Pool size") || !strings.Contains(out, "2  gotcha-leak") {
		t.Errorf("impact: %s", out)
	}
	if out := run(0, append(ent, "graph", "--mermaid")...); !strings.Contains(out, `decision-pgx["Use pgx"]`) {
		t.Errorf("mermaid titles: %s", out)
	}
	run(0, "tag", "learning-pool", "perf,postgres")
	if out := run(0, "untag", "learning-pool", "db"); !strings.Contains(out, "tags perf, postgres") {
		t.Errorf("untag: %s", out)
	}
	run(1, "untag", "learning-pool", "perf", "postgres") // a memory keeps a tag
	// Out of the database into the project's files, and back in.
	if out := run(0, "move", "gotcha-leak", "project"); !strings.Contains(out, "enterprise → project") || !strings.Contains(out, "dropped: learning-pool") {
		t.Errorf("move out: %s", out)
	}
	run(1, "show", "--scope", "enterprise", "gotcha-leak")
	if _, err := os.Stat(filepath.Join(root, ".claude", "memory", "gotchas", "gotcha-leak.md")); err != nil {
		if out := run(0, "show", "--scope", "project", "gotcha-leak"); !strings.Contains(out, "Pool leak") {
			t.Errorf("moved memory not in the project scope: %s", out)
		}
	}
	if out := run(0, "move", "gotcha-leak", "enterprise"); !strings.Contains(out, "project → enterprise") {
		t.Errorf("move in: %s", out)
	}
	if out := run(0, "show", "--scope", "enterprise", "gotcha-leak"); !strings.Contains(out, "Pool leak") {
		t.Errorf("moved back: %s", out)
	}
	// A deliberation of the enterprise scope concludes into the database.
	run(0, "think", "create", "--scope", "enterprise", "Should the pool grow?")
	run(0, "think", "add", "--scope", "enterprise", "--non-interactive", "learning-pool says ten connections run out")
	out := run(0, "think", "conclude", "--scope", "enterprise", "--promote", "decision", "Grow the pool to twenty")
	slug := ""
	if _, rest, ok := strings.Cut(out, "promoted to decision "); ok {
		slug, _, _ = strings.Cut(rest, " ")
	}
	if slug == "" || !strings.Contains(out, "(enterprise scope), linked to: learning-pool") {
		t.Fatalf("think conclude --promote: %s", out)
	}
	if out := run(0, "show", "--scope", "enterprise", slug); !strings.Contains(out, "Grow the pool to twenty") {
		t.Errorf("the promoted conclusion is not in the database: %s", out)
	}
	if out := run(0, "rebuild", "--scope", "enterprise"); !strings.Contains(out, "enterprise: 4 memories") {
		t.Errorf("rebuild: %s", out)
	}
	if out := run(0, "health", "--scope", "enterprise"); !strings.Contains(out, "enterprise scope: 4 memories") {
		t.Errorf("health: %s", out)
	}
}
