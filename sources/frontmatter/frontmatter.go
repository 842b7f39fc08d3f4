// Package frontmatter splits the YAML header off the Markdown files that
// assistants read (rules, agents, commands, skills, output styles) and
// decodes the fields ctxls understands.
//
// Cursor writes unquoted globs such as `globs: **/*.go`, which is not valid
// YAML (`*` starts an alias). A header that fails YAML but is a flat list of
// `key: value` lines is therefore read leniently, values as plain strings;
// anything else that fails YAML is malformed.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Meta holds the header fields of every format ctxls reads.
type Meta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Keywords are explicit matching keywords (discovery).
	Keywords List `yaml:"keywords"`
	// Globs (Cursor), ApplyTo (Copilot) and Paths (Claude Code) scope a rule
	// to files.
	Globs   List `yaml:"globs"`
	ApplyTo List `yaml:"applyTo"`
	Paths   List `yaml:"paths"`
	// AlwaysApply is Cursor's always-on flag.
	AlwaysApply bool `yaml:"alwaysApply"`
	// WhenToUse is a skill's extra matching text.
	WhenToUse string `yaml:"when_to_use"`
}

// List is a list of strings written either as a YAML sequence or as one
// comma-separated string.
type List []string

// UnmarshalYAML accepts a scalar (split at commas) or a sequence of scalars.
func (l *List) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*l = nil
			return nil
		}
		*l = SplitList(n.Value)
		return nil
	case yaml.SequenceNode:
		var out List
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: list items must be strings", c.Line)
			}
			if v := strings.TrimSpace(c.Value); v != "" {
				out = append(out, v)
			}
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: expected a string or a list of strings", n.Line)
}

// SplitList splits a comma-separated value, dropping empty parts and the
// quotes and brackets of a hand-written list.
func SplitList(s string) List {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out List
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), `"'`))
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ErrUnclosed means the header's opening `---` has no closing line.
var ErrUnclosed = errors.New("frontmatter opened with --- is never closed")

// Split separates data into its header (without the --- lines) and body.
// has is false when data has no header; err is ErrUnclosed for an open one.
func Split(data []byte) (header, body []byte, has bool, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !isFence(first, "---") {
		return nil, data, false, nil
	}
	if !ok {
		return nil, nil, true, ErrUnclosed
	}
	for off := 0; off < len(rest); {
		line, _, more := bytes.Cut(rest[off:], []byte("\n"))
		if isFence(line, "---") || isFence(line, "...") {
			end := off + len(line)
			if more {
				end++
			}
			return rest[:off], rest[end:], true, nil
		}
		off += len(line) + 1
	}
	return nil, nil, true, ErrUnclosed
}

func isFence(line []byte, fence string) bool {
	return string(bytes.TrimRight(line, " \t\r")) == fence
}

// Parse splits data and decodes its header. A file without a header has a
// zero Meta and its whole text as body.
func Parse(data []byte) (Meta, string, error) {
	var m Meta
	header, body, has, err := Split(data)
	if err != nil {
		return m, "", err
	}
	if !has || len(bytes.TrimSpace(header)) == 0 {
		return m, string(body), nil
	}
	if yerr := yaml.Unmarshal(header, &m); yerr != nil {
		lm, ok := lenient(header)
		if !ok {
			return Meta{}, "", fmt.Errorf("frontmatter: %w", yerr)
		}
		m = lm
	}
	return m, string(body), nil
}

var flatLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s?(.*)$`) })

// lenient reads a header of flat `key: value` lines, values verbatim; ok is
// false when a line has another shape.
func lenient(header []byte) (Meta, bool) {
	var m Meta
	for _, raw := range strings.Split(string(header), "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		g := flatLine().FindStringSubmatch(line)
		if g == nil {
			return Meta{}, false
		}
		v := strings.TrimSpace(g[2])
		if strings.HasPrefix(v, "{") || strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
			return Meta{}, false // structured YAML that failed to parse
		}
		unq := strings.Trim(v, `"'`)
		switch g[1] {
		case "name":
			m.Name = unq
		case "description":
			m.Description = unq
		case "keywords":
			m.Keywords = SplitList(v)
		case "globs":
			m.Globs = SplitList(v)
		case "applyTo":
			m.ApplyTo = SplitList(v)
		case "paths":
			m.Paths = SplitList(v)
		case "alwaysApply":
			m.AlwaysApply = strings.EqualFold(unq, "true")
		case "when_to_use":
			m.WhenToUse = unq
		}
	}
	return m, true
}
