package memory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestInverseLabels(t *testing.T) {
	for label, inv := range map[string]string{
		"implements": "implemented-by", "implemented-by": "implements",
		"part-of": "contains", "contains": "part-of",
		"builds-on": "foundation-for", "foundation-for": "builds-on",
		"relates-to": "relates-to", "similar-to": "similar-to",
		"made-up": "made-up",
	} {
		if got := Inverse(label); got != inv {
			t.Errorf("Inverse(%s) = %s, want %s", label, got, inv)
		}
	}
}

func TestGraphLink(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to string
		label    string
		err      error  // wanted error (errors.Is), nil for success
		errText  string // or a substring
		reverse  string // the reverse edge's label
	}{
		{"implements", "a", "b", "implements", nil, "", "implemented-by"},
		{"part-of", "a", "b", "part-of", nil, "", "contains"},
		{"builds-on", "a", "b", "builds-on", nil, "", "foundation-for"},
		{"relates-to is symmetric", "a", "b", "relates-to", nil, "", "relates-to"},
		{"similar-to is symmetric", "a", "b", "similar-to", nil, "", "similar-to"},
		{"default label", "a", "b", "", nil, "", "relates-to"},
		{"self edge", "a", "a", "relates-to", ErrSelfLink, "", ""},
		{"invalid label", "a", "b", "Relates To", nil, "invalid label", ""},
		{"label of 51", "a", "b", strings.Repeat("x", 51), nil, "invalid label", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := NewGraph()
			err := g.Link(c.from, c.to, c.label, testNow)
			switch {
			case c.err != nil || c.errText != "":
				if err == nil || c.err != nil && !errors.Is(err, c.err) || c.errText != "" && !strings.Contains(err.Error(), c.errText) {
					t.Fatalf("error %v, want %v %q", err, c.err, c.errText)
				}
				if len(g.Adj) != 0 {
					t.Errorf("failed link changed the graph: %v", g.Adj)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			label := c.label
			if label == "" {
				label = DefaultLabel
			}
			if !g.Has(c.from, c.to, label) || !g.Has(c.to, c.from, c.reverse) {
				t.Errorf("edges %v", g.Adj)
			}
			if issues := g.Check(nil); len(issues) != 0 {
				t.Errorf("invariants broken: %v", issues)
			}
			// The same link again, from either side, is a duplicate.
			if err := g.Link(c.from, c.to, label, testNow); !errors.Is(err, ErrDuplicateLink) {
				t.Errorf("duplicate link: %v", err)
			}
			if err := g.Link(c.to, c.from, c.reverse, testNow); !errors.Is(err, ErrDuplicateLink) {
				t.Errorf("duplicate reverse link: %v", err)
			}
		})
	}
}

func TestGraphUnlinkAndRemove(t *testing.T) {
	g := NewGraph()
	g.Link("a", "b", "implements", testNow)
	g.Link("a", "c", "part-of", testNow)
	g.Link("b", "c", "relates-to", testNow)
	if err := g.Unlink("b", "a", ""); err != nil {
		t.Fatal(err)
	}
	if g.Has("a", "b", "implements") || g.Has("b", "a", "implemented-by") {
		t.Errorf("unlink left an edge: %v", g.Adj)
	}
	if err := g.Unlink("a", "b", ""); !errors.Is(err, ErrNoLink) {
		t.Errorf("unlink of nothing: %v", err)
	}
	touched := g.Remove("c")
	if strings.Join(touched, ",") != "a,b" {
		t.Errorf("remove touched %v", touched)
	}
	if len(g.Adj) != 0 {
		t.Errorf("cascade left edges: %v", g.Adj)
	}
}

func TestGraphCheck(t *testing.T) {
	exists := func(s string) bool { return s != "gone" }
	for _, c := range []struct {
		name string
		adj  map[string][]Edge
		want []string // kinds, in order
	}{
		{"consistent", map[string][]Edge{"a": {{Target: "b", Label: "implements"}}, "b": {{Target: "a", Label: "implemented-by"}}}, nil},
		{"one-sided", map[string][]Edge{"a": {{Target: "b", Label: "relates-to"}}}, []string{"one-sided"}},
		{"wrong inverse", map[string][]Edge{"a": {{Target: "b", Label: "implements"}}, "b": {{Target: "a", Label: "implements"}}}, []string{"wrong-inverse", "wrong-inverse"}},
		{"self edge", map[string][]Edge{"a": {{Target: "a", Label: "relates-to"}}}, []string{"self-edge"}},
		{"duplicate", map[string][]Edge{"a": {{Target: "b", Label: "relates-to"}, {Target: "b", Label: "relates-to"}}, "b": {{Target: "a", Label: "relates-to"}}}, []string{"duplicate"}},
		{"broken link", map[string][]Edge{"a": {{Target: "gone", Label: "relates-to"}}, "gone": {{Target: "a", Label: "relates-to"}}}, []string{"broken-link", "broken-link"}},
		{"invalid label", map[string][]Edge{"a": {{Target: "b", Label: "Bad Label"}}, "b": {{Target: "a", Label: "Bad Label"}}}, []string{"invalid-label", "invalid-label"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &Graph{Adj: c.adj}
			var got []string
			for _, i := range g.Check(exists) {
				got = append(got, i.Kind)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("issues %v, want %v", got, c.want)
			}
			g.Repair(exists)
			if issues := g.Check(exists); len(issues) != 0 {
				t.Errorf("after repair: %v", issues)
			}
		})
	}
}

func TestGraphFormats(t *testing.T) {
	plugin := `{"nodes":[{"id":"a","title":"A","type":"learning"},{"id":"b","title":"B","type":"gotcha"},{"id":"c","title":"C","type":"hub"}],
	"edges":[{"source":"a","target":"b","relation":"relates-to"},{"source":"b","target":"a","relation":"relates-to"},
	{"source":"a","target":"c","label":"part-of"},{"source":"b","target":"c"}]}`
	g, err := ParseGraph([]byte(plugin))
	if err != nil {
		t.Fatal(err)
	}
	if g.Format != FormatNodesEdges || g.Merged != 1 {
		t.Errorf("format %s merged %d", g.Format, g.Merged)
	}
	if !g.Has("c", "a", "contains") || !g.Has("c", "b", "relates-to") {
		t.Errorf("reverse edges missing: %v", g.Adj)
	}
	if issues := g.Check(nil); len(issues) != 0 {
		t.Errorf("issues %v", issues)
	}
	// Saved back in the plugin's format: one edge per link.
	out, err := g.Marshal([]Node{{ID: "a"}, {ID: "b"}, {ID: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Edges []map[string]string }
	json.Unmarshal(out, &back)
	if len(back.Edges) != 3 {
		t.Errorf("plugin edges written: %s", out)
	}
	again, err := ParseGraph(out)
	if err != nil || len(again.Check(nil)) != 0 || !again.Has("a", "c", "part-of") {
		t.Errorf("round trip: %v %v", err, again.Adj)
	}
	// The seed's format round-trips as it is.
	g.Format = FormatAdjacency
	out, _ = g.Marshal(nil)
	seed, err := ParseGraph(out)
	if err != nil || seed.Format != FormatAdjacency || len(seed.Adj) != 3 || len(seed.Check(nil)) != 0 {
		t.Errorf("seed round trip: %v %v", err, seed.Adj)
	}
	if _, err := ParseGraph([]byte("{not json")); err == nil {
		t.Error("malformed graph.json accepted")
	}
}
