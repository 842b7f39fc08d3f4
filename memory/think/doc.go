// Package think keeps the memory plugin's thinking documents: ephemeral
// deliberations (a topic, then thoughts, counter-arguments and branches,
// some written by other AI command-line tools) that end in a conclusion,
// which may be promoted to a permanent memory.
//
// A document is a markdown file with YAML frontmatter in the hidden
// directory .thinking/ of a memory scope (hidden, so that the memory store's
// scans do not take it for a memory). The frontmatter is the truth: the
// topic, status, timestamps, references and every thought with its kind,
// time and attribution. The body below it is rendered from the frontmatter
// on every write, for people to read; edits to the body are not read back.
// .thinking/current names the scope's current document. Every change takes
// the scope's lock (the memory store's <scope>/.lock) and writes the file
// atomically, so two processes adding thoughts at once lose nothing.
package think

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/memory"
)

// Kind is what a thought does in the deliberation.
type Kind string

// The kinds of thought, one per subcommand (add, counter, branch).
const (
	Thought Kind = "thought"
	Counter Kind = "counter"
	Branch  Kind = "branch"
)

// ParseKind maps a subcommand name to its kind.
func ParseKind(s string) (Kind, error) {
	switch s {
	case "add", "thought":
		return Thought, nil
	case "counter":
		return Counter, nil
	case "branch":
		return Branch, nil
	}
	return "", fmt.Errorf("unknown thought kind %q: want add, counter or branch", s)
}

// Status of a document.
const (
	Open      = "open"
	Concluded = "concluded"
)

// Limits of a document (docs/decisions/0096): large enough for any real
// deliberation, small enough that a runaway input or provider output is
// refused instead of written.
const (
	MaxTopic    = 500     // characters
	MaxThought  = 100_000 // bytes of one thought or conclusion
	MaxThoughts = 500     // thoughts in one document
	maxFile     = 64 << 20
)

// Entry is one thought of a document.
type Entry struct {
	N    int       `yaml:"n" json:"n"`
	Kind Kind      `yaml:"kind" json:"kind"`
	At   time.Time `yaml:"at" json:"at"`
	// By is the attribution of a thought a provider wrote:
	// "model:X provider:Y [session-id]".
	By string `yaml:"by,omitempty" json:"by,omitempty"`
	// Agent and Style are the discovered agent and output style a
	// provider's thought was written with.
	Agent string `yaml:"agent,omitempty" json:"agent,omitempty"`
	Style string `yaml:"style,omitempty" json:"style,omitempty"`
	// Prompt is what the provider was asked, for a provider's thought.
	Prompt string `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	Text   string `yaml:"text" json:"text"`
}

// Document is one thinking document.
type Document struct {
	ID      string    `yaml:"id" json:"id"`
	Type    string    `yaml:"type" json:"type"` // always "thinking"
	Topic   string    `yaml:"topic" json:"topic"`
	Status  string    `yaml:"status" json:"status"`
	Created time.Time `yaml:"created" json:"created"`
	Updated time.Time `yaml:"updated" json:"updated"`
	// References are memory slugs the deliberation named (--ref); at
	// conclusion they are joined by the slugs its text mentions.
	References []string `yaml:"references,omitempty" json:"references,omitempty"`
	Conclusion string   `yaml:"conclusion,omitempty" json:"conclusion,omitempty"`
	// Promoted is the slug of the memory the conclusion became.
	Promoted string  `yaml:"promoted,omitempty" json:"promoted,omitempty"`
	Thoughts []Entry `yaml:"thoughts" json:"thoughts"`

	Scope memory.Scope `yaml:"-" json:"scope"`
	Path  string       `yaml:"-" json:"path"`
}

// docType is the frontmatter type of every thinking document.
const docType = "thinking"

var idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// CheckID refuses ids that are not a safe file name (no dots, no slashes):
// an id can never name a file outside the scope's .thinking directory.
func CheckID(id string) error {
	if len(id) > 120 || !idPattern.MatchString(id) {
		return fmt.Errorf("invalid thinking document id %q: lowercase letters, digits and single hyphens only", id)
	}
	return nil
}

// newID makes a document id from its creation time and topic.
func newID(topic string, at time.Time) string {
	s := memory.SlugFor("think", at.UTC().Format("20060102-150405")+" "+topic)
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-")
	}
	return s
}

// checkText validates a topic, thought or conclusion.
func checkText(what, s string, max int, chars bool) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if strings.ContainsRune(s, 0) {
		return fmt.Errorf("%s contains a NUL byte", what)
	}
	n := len(s)
	unit := "bytes"
	if chars {
		n, unit = utf8.RuneCountInString(s), "characters"
	}
	if n > max {
		return fmt.Errorf("%s has %d %s, at most %d allowed", what, n, unit, max)
	}
	return nil
}

// Marshal renders a document: frontmatter, then the readable body.
func Marshal(d *Document) ([]byte, error) {
	// node.Encode goes through YAML text, which the tab bug below breaks:
	// texts are encoded as placeholders and set in the node afterwards.
	texts := map[string]string{}
	hold := func(s *string) {
		if strings.ContainsAny(*s, "\n\t\r") {
			k := fmt.Sprintf("\x00text-%d", len(texts)) // no text holds a NUL (checkText)
			texts[k], *s = *s, k
		}
	}
	c := *d
	c.Thoughts = slices.Clone(d.Thoughts)
	hold(&c.Topic)
	hold(&c.Conclusion)
	for i := range c.Thoughts {
		hold(&c.Thoughts[i].Text)
		hold(&c.Thoughts[i].Prompt)
		hold(&c.Thoughts[i].By)
	}
	var node yaml.Node
	if err := node.Encode(&c); err != nil {
		return nil, fmt.Errorf("encode thinking document %s: %w", d.ID, err)
	}
	safeStyles(&node, texts)
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, fmt.Errorf("encode thinking document %s: %w", d.ID, err)
	}
	enc.Close()
	b.WriteString("---\n")
	b.WriteString(Render(d))
	return b.Bytes(), nil
}

// safeStyles makes every string that would not read back unchanged in the
// style the encoder picks double-quoted: yaml.v3 writes a block scalar
// that starts with a tab, which its own parser then rejects (found by
// FuzzDocumentRoundTrip). Multi-line text stays a readable block otherwise.
func safeStyles(n *yaml.Node, texts map[string]string) {
	if n.Kind == yaml.ScalarNode {
		if v, ok := texts[n.Value]; ok {
			n.Value, n.Style = v, yaml.LiteralStyle
			if !roundTrips(n) {
				n.Style = yaml.DoubleQuotedStyle
			}
		}
	}
	for _, c := range n.Content {
		safeStyles(c, texts)
	}
}

func roundTrips(n *yaml.Node) bool {
	data, err := yaml.Marshal(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k"}, n}})
	if err != nil {
		return false
	}
	var m map[string]string
	return yaml.Unmarshal(data, &m) == nil && m["k"] == n.Value
}

// Render is a document's readable markdown body.
func Render(d *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(d.Topic))
	fmt.Fprintf(&b, "_%s · %d thoughts · created %s_\n", d.Status, len(d.Thoughts), memory.FormatTime(d.Created))
	if len(d.References) > 0 {
		fmt.Fprintf(&b, "\nReferences: %s\n", strings.Join(d.References, ", "))
	}
	for _, e := range d.Thoughts {
		fmt.Fprintf(&b, "\n## %d. %s\n\n", e.N, title(e.Kind))
		if e.By != "" {
			by := e.By
			if e.Agent != "" {
				by += " · agent " + e.Agent
			}
			if e.Style != "" {
				by += " · style " + e.Style
			}
			fmt.Fprintf(&b, "_%s · %s_\n\n", by, memory.FormatTime(e.At))
		} else {
			fmt.Fprintf(&b, "_%s_\n\n", memory.FormatTime(e.At))
		}
		if e.Prompt != "" {
			fmt.Fprintf(&b, "> %s\n\n", oneLine(truncRunes(e.Prompt, 300)))
		}
		b.WriteString(strings.TrimRight(e.Text, "\n"))
		b.WriteString("\n")
	}
	if d.Conclusion != "" {
		b.WriteString("\n## Conclusion\n\n")
		b.WriteString(strings.TrimRight(d.Conclusion, "\n"))
		b.WriteString("\n")
		if d.Promoted != "" {
			fmt.Fprintf(&b, "\nPromoted to %s.\n", d.Promoted)
		}
	}
	return b.String()
}

func title(k Kind) string {
	switch k {
	case Counter:
		return "Counter"
	case Branch:
		return "Branch"
	}
	return "Thought"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Parse reads a document from its file's content.
func Parse(data []byte, path string, scope memory.Scope) (*Document, error) {
	front, _, err := memory.Frontmatter(data)
	if err != nil {
		return nil, fmt.Errorf("thinking document %s: %w", path, err)
	}
	var d Document
	if err := yaml.Unmarshal(front, &d); err != nil {
		return nil, fmt.Errorf("thinking document %s: %w", path, err)
	}
	if d.Type != docType {
		return nil, fmt.Errorf("thinking document %s: type %q, want %q", path, d.Type, docType)
	}
	if err := CheckID(d.ID); err != nil {
		return nil, fmt.Errorf("thinking document %s: %w", path, err)
	}
	if d.Status != Open && d.Status != Concluded {
		return nil, errors.New("thinking document " + path + ": status must be open or concluded")
	}
	d.Scope, d.Path = scope, path
	return &d, nil
}

// UsedStyles lists the output styles the document's thoughts used.
func (d *Document) UsedStyles() []string {
	var out []string
	for _, e := range d.Thoughts {
		if e.Style != "" && !slices.Contains(out, e.Style) {
			out = append(out, e.Style)
		}
	}
	return out
}
