package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/pgtest"
	"github.com/ctxls/ctxls/memory/team"
)

var pg pgtest.Package

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// The memory tools reach an enterprise scope kept in PostgreSQL: writes
// and links go to the database, searches read the refreshed local cache.
func TestMemoryToolsOnTheEnterpriseDatabase(t *testing.T) {
	srv := pg.Need(t)
	root := testWorkspace(t, fixture)
	os.MkdirAll(filepath.Join(root, ".ctxls"), 0o755)
	cfg := "memory:\n  enterprise:\n    backend: postgres\n    schema: mcp_team\n"
	if err := os.WriteFile(filepath.Join(root, ".ctxls", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTXLS_ENTERPRISE_DSN", srv.DSN)
	c := connect(t, Options{Root: root, Home: t.TempDir()})
	var a, b MemoryRef
	for _, w := range []struct {
		args map[string]any
		out  *MemoryRef
	}{
		{map[string]any{"type": "gotcha", "title": "Team rule: rotate the signing keys", "content": "Keys rotate every 90 days.", "tags": []string{"security"}, "scope": "enterprise"}, &a},
		{map[string]any{"type": "decision", "title": "Signing keys live in the vault", "content": "Never in the repository.", "tags": []string{"security"}, "scope": "enterprise"}, &b},
	} {
		if text, isErr := call(t, c, "memory_write", w.args, w.out); isErr || w.out.Scope != "enterprise" {
			t.Fatalf("memory_write: %v %+v %s", isErr, w.out, text)
		}
	}
	if text, isErr := call(t, c, "memory_link", map[string]any{"from": a.Slug, "to": b.Slug, "label": "builds-on", "scope": "enterprise"}, nil); isErr {
		t.Fatalf("memory_link: %s", text)
	}
	ts, err := team.Open(context.Background(), team.Options{DSN: srv.DSN, Schema: "mcp_team"})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	g, err := ts.Graph(context.Background())
	if err != nil || !g.Has(b.Slug, a.Slug, "foundation-for") {
		t.Fatalf("database graph = %v, %v", g, err)
	}
	var sr MemorySearchOutput
	text, isErr := call(t, c, "memory_search", map[string]any{"text": "rotate signing keys", "scopes": []string{"enterprise"}}, &sr)
	if isErr || len(sr.Memories) == 0 || sr.Memories[0].Slug != a.Slug || sr.Memories[0].Excerpt == "" {
		t.Fatalf("memory_search of the enterprise scope: %v %+v %s", isErr, sr, text)
	}
}
