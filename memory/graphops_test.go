package memory

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
)

func TestRename(t *testing.T) {
	ctx := context.Background()
	s, err := Open(Options{Root: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"decision-a", "gotcha-b", "learning-c"} {
		if err := s.Write(ctx, &Memory{Slug: slug, Type: Type(slug[:len(slug)-2]), Title: slug, Tags: []string{"x"}, Scope: Project}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Link(ctx, Project, "decision-a", "gotcha-b", "implements"); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, Project, "learning-c", "decision-a", ""); err != nil {
		t.Fatal(err)
	}
	old, _ := s.Get(ctx, Project, "decision-a")
	if err := s.Rename(ctx, Project, "decision-a", "decision-z"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("old file kept")
	}
	m, err := s.Get(ctx, Project, "decision-z")
	if err != nil || !slices.Equal(m.Links, []string{"gotcha-b", "learning-c"}) {
		t.Fatalf("renamed memory %+v %v", m, err)
	}
	g, _ := s.Graph(Project)
	if !g.Has("decision-z", "gotcha-b", "implements") || !g.Has("gotcha-b", "decision-z", "implemented-by") ||
		!g.Has("learning-c", "decision-z", "relates-to") || len(g.Adj["decision-a"]) != 0 {
		t.Errorf("graph after rename: %+v", g.Adj)
	}
	for _, other := range []string{"gotcha-b", "learning-c"} {
		o, _ := s.Get(ctx, Project, other)
		if !slices.Equal(o.Links, []string{"decision-z"}) {
			t.Errorf("%s links %v", other, o.Links)
		}
	}
	if issues := g.Check(func(sl string) bool { _, err := s.Get(ctx, Project, sl); return err == nil }); len(issues) != 0 {
		t.Errorf("graph issues: %v", issues)
	}
	for _, c := range [][2]string{{"decision-z", "gotcha-b"}, {"decision-z", "../x"}, {"nope", "decision-y"}} {
		if err := s.Rename(ctx, Project, c[0], c[1]); err == nil {
			t.Errorf("rename %v accepted", c)
		}
	}
	if r := g.Impact("learning-c", 0); len(r) != 2 || r[0].Slug != "decision-z" || r[1].Depth != 2 || r[1].Via != "decision-z" {
		t.Errorf("impact %+v", r)
	}
	if r := g.Impact("learning-c", 1); len(r) != 1 {
		t.Errorf("impact depth 1 %+v", r)
	}
	links := g.Links()
	if len(links) != 2 || links[0] != (GraphLink{From: "decision-z", To: "gotcha-b", Label: "implements"}) {
		t.Errorf("links %+v", links)
	}
}
