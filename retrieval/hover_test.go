package retrieval

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// A hover and a context item are one rendering of an entity: the same
// fenced block in the same language, the same neighbourhood.
func TestHover(t *testing.T) {
	ws := map[string]string{
		"ui/panel.tsx": "export function Panel(): string { return label(); }\nexport function label(): string { return \"x\"; }\n",
	}
	for p, c := range files {
		ws[p] = c
	}
	_, st := wstest.Indexed(t, ws)
	ctx := context.Background()
	target := func(t *testing.T, path, qname string) *HoverTarget {
		t.Helper()
		ents, err := st.EntitiesInFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.QName == qname {
				return &HoverTarget{Path: e.Path, Kind: e.Kind, Name: e.Name, QName: e.QName, Line: e.StartLine, Signature: e.Signature, Doc: e.Doc, Stored: &e}
			}
		}
		t.Fatalf("%s not in %s", qname, path)
		return nil
	}
	tests := []struct {
		name, path, qname string
		attached          []memory.Hit
		want, notWant     []string
	}{
		{
			name: "go method", path: "auth/service.go", qname: "auth.AuthService.Login",
			want: []string{"```go\nfunc (a *AuthService) Login(", "Login verifies a password", "*method* `auth.AuthService.Login` — defined in `auth/service.go:",
				"**Related:** in struct `auth.AuthService`; uses ", "`auth.issueToken` (auth/service.go:"},
			notWant: []string{"**Memories**"},
		},
		{
			name: "used by", path: "auth/service.go", qname: "auth.issueToken",
			want: []string{"**Used by** (1): `auth.AuthService.Login` (auth/service.go:"},
		},
		{
			// .tsx is fenced as the context fences it ("typescript"), not
			// by the grammar's name ("tsx").
			name: "tsx fenced as the context fences it", path: "ui/panel.tsx", qname: "Panel",
			want: []string{"```typescript\n"},
		},
		{
			name: "memories, gotcha first", path: "auth/store.go", qname: "auth.UserStore.Check",
			attached: []memory.Hit{
				{Summary: memory.Summary{Slug: "why", Type: memory.Decision, Title: "Why hashes"}, Relevance: 1},
				{Summary: memory.Summary{Slug: "careful", Type: memory.Gotcha, Severity: "high", Title: "Compare in constant time"}, Relevance: 0.5},
			},
			want: []string{"**Memories** (2):\n- ⚠ gotcha (high): Compare in constant time `careful`\n- decision: Why hashes `why`"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := target(t, tt.path, tt.qname)
			got := Hover(ctx, st, tg, tt.attached)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("hover lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("hover has %q:\n%s", w, got)
				}
			}
			// The context renders the same entity's code in the same
			// fenced language.
			it := Item{Path: tg.Path, Kind: tg.Kind, QName: tg.QName, Line: tg.Line, Excerpt: tg.Signature}
			if lang := fenceLang(tg.Path); !strings.Contains(RenderItem(&it), "```"+lang+"\n") || (tg.Signature != "" && !strings.Contains(got, "```"+lang+"\n")) {
				t.Errorf("hover and context fence %s differently:\n%s\n%s", tg.Path, got, RenderItem(&it))
			}
		})
	}
}

// The neighbourhood listing names each entity once, however many
// references reach it, and counts what it leaves out.
func TestNeighbours(t *testing.T) {
	_, st := wstest.Indexed(t, map[string]string{"p/p.go": "package p\n\nfunc A() { C() }\n\nfunc B() { C() }\n\nfunc C() {}\n"})
	ctx := context.Background()
	id := func(name string) int64 {
		ents, err := st.EntitiesByName(ctx, name, 5)
		if err != nil || len(ents) != 1 {
			t.Fatalf("%s: %v %v", name, ents, err)
		}
		return ents[0].ID
	}
	a, b, c := id("A"), id("B"), id("C")
	// A reaches C twice (a call and a reference), B once.
	edges := []store.Edge{{Src: a, Dst: c, Kind: store.RefCalls}, {Src: a, Dst: c, Kind: store.RefReferences}, {Src: b, Dst: c, Kind: store.RefCalls}}
	for _, tt := range []struct {
		limit     int
		wantNames string
		wantTotal int
	}{
		{limit: 10, wantNames: "p.A p.B", wantTotal: 2},
		{limit: 1, wantNames: "p.A", wantTotal: 2},
	} {
		got, total, err := neighbours(ctx, st, edges, edgeSrc, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, e.QName)
		}
		if strings.Join(names, " ") != tt.wantNames || total != tt.wantTotal {
			t.Errorf("neighbours(limit %d) = %v of %d, want %s of %d", tt.limit, names, total, tt.wantNames, tt.wantTotal)
		}
	}
}
