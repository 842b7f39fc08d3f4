package memory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const pluginFile = `---
id: gotcha-scope-resolver-params
title: getScopePath() Requires (scope, cwd, globalPath)
type: gotcha
scope: project
project: claude-memory-plugin
created: "2026-01-12T15:47:00Z"
updated: "2026-01-16T23:10:44.544Z"
tags:
  - gotcha
  - cli
severity: medium
---

# Gotcha: getScopePath() Signature

Body text.
`

func TestParsePluginFile(t *testing.T) {
	m, err := Parse([]byte(pluginFile), "/x/permanent/gotcha-scope-resolver-params.md", Project, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if m.Slug != "gotcha-scope-resolver-params" || m.Type != Gotcha || m.Severity != "medium" || len(m.Tags) != 2 {
		t.Errorf("parsed %+v", m)
	}
	if !m.Updated.Equal(time.Date(2026, 1, 16, 23, 10, 44, 544e6, time.UTC)) {
		t.Errorf("updated = %v", m.Updated)
	}
	if len(m.Problems) != 0 {
		t.Errorf("problems: %v", m.Problems)
	}
	if !strings.HasPrefix(m.Content, "\n# Gotcha") {
		t.Errorf("content %q", m.Content)
	}
}

func TestMarshalKeepsUnknownKeysAndSpelling(t *testing.T) {
	m, err := Parse([]byte(pluginFile), "/x/gotcha-scope-resolver-params.md", Project, testNow)
	if err != nil {
		t.Fatal(err)
	}
	// Unchanged: byte for byte.
	out, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != pluginFile {
		t.Errorf("round trip changed the file:\n%s", out)
	}
	m.Tags = append(m.Tags, "scope")
	m.Updated = testNow
	out, _ = Marshal(m)
	s := string(out)
	for _, want := range []string{"project: claude-memory-plugin", `created: "2026-01-12T15:47:00Z"`, `updated: "2026-01-20T12:00:00.000Z"`, "  - scope\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, s)
		}
	}
	again, err := Parse(out, "/x/gotcha-scope-resolver-params.md", Project, testNow)
	if err != nil || len(again.Tags) != 3 || !again.Updated.Equal(testNow) {
		t.Errorf("re-parse: %+v %v", again, err)
	}
}

func TestParseErrors(t *testing.T) {
	for name, c := range map[string]struct {
		in   string
		want string
	}{
		"no frontmatter": {"# Title\n", "no YAML frontmatter"},
		"not closed":     {"---\ntype: gotcha\n", "not closed"},
		"invalid YAML":   {"---\ntype: [gotcha\n---\n", "invalid YAML"},
		"not a mapping":  {"---\n- a\n- b\n---\n", "not a YAML mapping"},
	} {
		_, err := Parse([]byte(c.in), "/x/a.md", Project, testNow)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
		if name == "no frontmatter" && !errors.Is(err, ErrNoFrontmatter) {
			t.Errorf("no frontmatter: not ErrNoFrontmatter")
		}
	}
}

func TestParseRecordsProblemsInsteadOfFailing(t *testing.T) {
	in := "---\ntype: permanent\ntitle: T\ntags: [v1.1.0]\nupdated: \"2030-01-01T00:00:00Z\"\n---\nbody\n"
	m, err := Parse([]byte(in), "/x/gotcha-x.md", Project, testNow)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(m.Problems, "\n")
	for _, want := range []string{"type \"permanent\"", "tag \"v1.1.0\"", "created timestamp is required", "in the future"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q: %v", want, m.Problems)
		}
	}
	if m.Slug != "gotcha-x" || m.Title != "T" {
		t.Errorf("slug %q title %q", m.Slug, m.Title)
	}
}
