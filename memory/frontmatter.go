package memory

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ErrNoFrontmatter means a markdown file has no YAML frontmatter: it is not
// a memory (graph.md, a README).
var ErrNoFrontmatter = errors.New("no YAML frontmatter")

// Parse reads a memory file's bytes. It fails only when the file is not a
// memory at all (no frontmatter, invalid YAML, frontmatter not a mapping);
// anything that breaks the seed's rules is recorded in Problems, so that
// stores written by older plugins load without loss.
func Parse(data []byte, path string, scope Scope, now time.Time) (*Memory, error) {
	fm, body, err := split(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return nil, fmt.Errorf("%s: invalid YAML frontmatter: %w", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: frontmatter is not a YAML mapping", path)
	}
	front := doc.Content[0]
	m := &Memory{Path: path, Scope: scope, Content: body, front: front}
	stem := strings.TrimSuffix(filepath.Base(path), ".md")
	var problems []string
	str := func(key string) string {
		if v := lookup(front, key); v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
		return ""
	}
	m.Slug = str("id")
	if m.Slug == "" {
		m.Slug = str("slug")
	}
	if m.Slug == "" {
		m.Slug = stem
	} else if m.Slug != stem {
		problems = append(problems, fmt.Sprintf("id %q differs from the file name %q", m.Slug, stem))
	}
	m.Type = Type(str("type"))
	m.Title = str("title")
	if m.Title == "" {
		m.Title = firstHeading(body)
	}
	m.Tags = list(lookup(front, "tags"))
	m.Links = list(lookup(front, "links"))
	m.Files = list(lookup(front, "files"))
	m.Severity = str("severity")
	if s := str("scope"); s != "" && Scope(s) != scope && scope != "" {
		// The plugin recorded a scope in the file; where the file lives
		// decides, and the difference is worth knowing.
		problems = append(problems, fmt.Sprintf("frontmatter scope %q but stored in the %s scope", s, scope))
	}
	for _, f := range []struct {
		key string
		dst *time.Time
	}{{"created", &m.Created}, {"updated", &m.Updated}} {
		raw := str(f.key)
		if raw == "" {
			continue
		}
		t, err := ParseTime(raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f.key, err))
			continue
		}
		*f.dst = t
	}
	if err := Validate(m, now); err != nil {
		var ve ValidationError
		if errors.As(err, &ve) {
			problems = append(problems, ve...)
		}
	}
	m.Problems = problems
	return m, nil
}

// split separates the frontmatter from the body.
func split(data []byte) (front []byte, body string, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, "", ErrNoFrontmatter
	}
	rest := data[4:]
	var end int
	switch {
	case bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")):
		end = 0
	default:
		i := bytes.Index(rest, []byte("\n---\n"))
		if i < 0 {
			if bytes.HasSuffix(rest, []byte("\n---")) {
				return rest[:len(rest)-4], "", nil
			}
			return nil, "", errors.New("frontmatter is not closed by a --- line")
		}
		end = i + 1
	}
	front = rest[:end]
	b := rest[end:]
	b = bytes.TrimPrefix(b, []byte("---"))
	b = bytes.TrimPrefix(b, []byte("\n"))
	return front, string(b), nil
}

// lookup returns the value node of key in a mapping, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// list reads a sequence of scalars; a single scalar counts as a
// comma-separated list.
func list(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.Value != "" {
				out = append(out, c.Value)
			}
		}
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func firstHeading(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// timeLayouts are the ISO 8601 forms accepted in frontmatter.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"}

// ParseTime parses an ISO 8601 timestamp; one without a zone is UTC.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
}

// FormatTime formats a timestamp the way the plugin writes them.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// Marshal renders a memory file: frontmatter, then the content. Keys ctxls
// does not know keep their place and values; timestamps that did not change
// keep their original spelling.
func Marshal(m *Memory) ([]byte, error) {
	front := m.front
	if front == nil {
		front = &yaml.Node{Kind: yaml.MappingNode}
	} else {
		front = clone(front)
	}
	idKey := "id"
	if lookup(front, "id") == nil && lookup(front, "slug") != nil {
		idKey = "slug"
	}
	setScalar(front, idKey, m.Slug, false)
	setScalar(front, "title", m.Title, false)
	setScalar(front, "type", string(m.Type), false)
	if lookup(front, "scope") != nil {
		setScalar(front, "scope", string(m.Scope), false)
	}
	setTime(front, "created", m.Created)
	setTime(front, "updated", m.Updated)
	setList(front, "tags", m.Tags, true)
	if m.Severity != "" || lookup(front, "severity") != nil {
		setScalar(front, "severity", m.Severity, true)
	}
	setList(front, "links", m.Links, false)
	setList(front, "files", m.Files, false)

	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(front); err != nil {
		return nil, fmt.Errorf("encode frontmatter of %s: %w", m.Slug, err)
	}
	enc.Close()
	b.WriteString("---\n")
	b.WriteString(m.Content)
	if m.Content != "" && !strings.HasSuffix(m.Content, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k)
	}
	return &c
}

// set replaces key's value, appends key when absent, or removes it when v
// is nil.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v == nil {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
			} else {
				m.Content[i+1] = v
			}
			return
		}
	}
	if v != nil {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
}

func setScalar(m *yaml.Node, key, value string, dropEmpty bool) {
	if value == "" && dropEmpty {
		set(m, key, nil)
		return
	}
	if old := lookup(m, key); old != nil && old.Kind == yaml.ScalarNode && old.Value == value {
		return
	}
	set(m, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

func setTime(m *yaml.Node, key string, t time.Time) {
	if t.IsZero() {
		return
	}
	if old := lookup(m, key); old != nil && old.Kind == yaml.ScalarNode {
		if ot, err := ParseTime(old.Value); err == nil && ot.Equal(t) {
			return
		}
	}
	set(m, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: FormatTime(t)})
}

func setList(m *yaml.Node, key string, values []string, keepEmpty bool) {
	if len(values) == 0 && !keepEmpty {
		set(m, key, nil)
		return
	}
	if old := lookup(m, key); old != nil && old.Kind == yaml.SequenceNode && slices.Equal(list(old), values) {
		return
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range values {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	}
	set(m, key, seq)
}

// Frontmatter splits a markdown file into its YAML frontmatter and body
// (ErrNoFrontmatter when it has none).
func Frontmatter(data []byte) (front []byte, body string, err error) { return split(data) }
