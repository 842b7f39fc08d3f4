package memory

import (
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 1, 20, 12, 0, 0, 0, time.UTC)

func validMemory() *Memory {
	return &Memory{Slug: "decision-oauth2", Type: Decision, Title: "OAuth2 with PKCE", Tags: []string{"auth", "oauth2"},
		Created: testNow.Add(-time.Hour), Updated: testNow.Add(-time.Minute), Content: "We use PKCE.", Scope: Project}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Memory)
		want   string // substring of the error; "" means valid
	}{
		{"valid", func(*Memory) {}, ""},
		{"slug with uppercase", func(m *Memory) { m.Slug = "Decision-x" }, "slug"},
		{"slug with ../", func(m *Memory) { m.Slug = "../etc/passwd" }, "slug"},
		{"slug with slash", func(m *Memory) { m.Slug = "a/b" }, "slug"},
		{"slug with double hyphen", func(m *Memory) { m.Slug = "a--b" }, "slug"},
		{"slug with trailing hyphen", func(m *Memory) { m.Slug = "a-" }, "slug"},
		{"slug with dot", func(m *Memory) { m.Slug = "v1.1" }, "slug"},
		{"empty slug", func(m *Memory) { m.Slug = "" }, "slug"},
		{"unknown type", func(m *Memory) { m.Type = "permanent" }, "type"},
		{"empty title", func(m *Memory) { m.Title = "  " }, "title is required"},
		{"title of 200", func(m *Memory) { m.Title = strings.Repeat("é", 200) }, ""},
		{"title of 201", func(m *Memory) { m.Title = strings.Repeat("a", 201) }, "title has 201"},
		{"no tags", func(m *Memory) { m.Tags = nil }, "tags must not be empty"},
		{"uppercase tag", func(m *Memory) { m.Tags = []string{"Auth"} }, "tag \"Auth\""},
		{"tag with dot", func(m *Memory) { m.Tags = []string{"v1.1.0"} }, "tag"},
		{"tag of 51", func(m *Memory) { m.Tags = []string{strings.Repeat("a", 51)} }, "tag"},
		{"tag of 50", func(m *Memory) { m.Tags = []string{strings.Repeat("a", 50)} }, ""},
		{"no created", func(m *Memory) { m.Created = time.Time{} }, "created timestamp is required"},
		{"no updated", func(m *Memory) { m.Updated = time.Time{} }, "updated timestamp is required"},
		{"created in the future", func(m *Memory) { m.Created = testNow.Add(time.Hour); m.Updated = m.Created }, "created"},
		{"updated in the future", func(m *Memory) { m.Updated = testNow.Add(time.Second) }, "in the future"},
		{"updated before created", func(m *Memory) { m.Updated = m.Created.Add(-time.Second) }, "before created"},
		{"updated equal created", func(m *Memory) { m.Updated = m.Created }, ""},
		{"content of 50000", func(m *Memory) { m.Content = strings.Repeat("x", MaxContent) }, ""},
		{"content of 50001", func(m *Memory) { m.Content = strings.Repeat("x", MaxContent+1) }, "content has 50001"},
		{"empty content", func(m *Memory) { m.Content = "" }, ""},
		{"invalid link", func(m *Memory) { m.Links = []string{"Not A Slug"} }, "link"},
		{"link to itself", func(m *Memory) { m.Links = []string{m.Slug} }, "link to itself"},
		{"gotcha severity", func(m *Memory) { m.Type = Gotcha; m.Severity = "high" }, ""},
		{"unknown severity", func(m *Memory) { m.Severity = "urgent" }, "severity"},
		{"attached glob", func(m *Memory) { m.Files = []string{"src/**/*.go"} }, ""},
		{"attached path escaping", func(m *Memory) { m.Files = []string{"../secrets"} }, `without ".." parts`},
		{"attached absolute path", func(m *Memory) { m.Files = []string{"/etc/passwd"} }, "relative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := validMemory()
			c.change(m)
			err := Validate(m, testNow)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("no error, want one about %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	m := &Memory{Slug: "Bad Slug", Type: "x"}
	err := Validate(m, testNow)
	ve, ok := err.(ValidationError)
	if !ok || len(ve) < 5 {
		t.Fatalf("want every broken rule listed, got %v", err)
	}
}

func TestSlugFor(t *testing.T) {
	for in, want := range map[string]string{
		"Flock needs a lock file":   "gotcha-flock-needs-a-lock-file",
		"  Spaces & Symbols!! v1.2": "gotcha-spaces-symbols-v1-2",
		strings.Repeat("word ", 40): "gotcha-" + strings.TrimSuffix(strings.Repeat("word-", 14), "-"),
	} {
		got := SlugFor(Gotcha, in)
		if got != want || !ValidSlug(got) || len(got) > 80 {
			t.Errorf("SlugFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBM25WeightsParse(t *testing.T) {
	w := BM25Weights()
	for i, v := range w {
		if v <= 0 {
			t.Fatalf("weight %d of %q is %v", i, bm25Weights, v)
		}
	}
	if w[FieldTitle] <= w[FieldBody] {
		t.Fatalf("title weight %v should exceed body weight %v", w[FieldTitle], w[FieldBody])
	}
}
