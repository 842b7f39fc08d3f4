package think

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"
)

// Provider is the seed's ProviderConfig: how to run one AI command-line
// tool non-interactively and clean its output.
type Provider struct {
	Name      string
	Command   string
	Args      []string
	ModelFlag string
	// Parse cleans the tool's raw output into the thought.
	Parse         func(raw string) string
	SupportsAgent bool
	SupportsStyle bool
	// ExtraFlags are provider-specific switches by option name ("oss").
	ExtraFlags map[string]string
}

// ProviderNames lists the providers --call accepts.
var ProviderNames = []string{"claude", "codex", "gemini"}

// LookupProvider returns the configuration of a provider (a fresh value:
// callers may not change a shared one).
func LookupProvider(name string) (Provider, error) {
	switch name {
	case "claude":
		return Provider{Name: name, Command: "claude", Args: []string{"--print", "--no-session-persistence"},
			ModelFlag: "--model", Parse: strings.TrimSpace, SupportsAgent: true, SupportsStyle: true}, nil
	case "codex":
		// "-": codex exec reads the prompt from stdin.
		return Provider{Name: name, Command: "codex", Args: []string{"exec"}, ModelFlag: "--model",
			Parse: StripCodexHeaders, ExtraFlags: map[string]string{"oss": "--oss"}}, nil
	case "gemini":
		return Provider{Name: name, Command: "gemini", Args: []string{"-o", "text"}, ModelFlag: "--model",
			Parse: FilterGeminiNoise}, nil
	}
	return Provider{}, fmt.Errorf("unknown provider %q: want claude, codex or gemini", name)
}

// StripCodexHeaders drops the bracketed header lines codex exec prints
// before its answer (the seed's stripCodexHeaders).
func StripCodexHeaders(raw string) string {
	lines := strings.Split(raw, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "[") && strings.TrimSpace(l) != "" {
			return strings.TrimSpace(strings.Join(lines[i:], "\n"))
		}
	}
	return ""
}

// FilterGeminiNoise drops gemini's extension-loading and tagged status
// lines (the seed's filterGeminiNoise).
func FilterGeminiNoise(raw string) string {
	var keep []string
	for _, l := range strings.Split(raw, "\n") {
		if strings.Contains(l, "Loading extension") || strings.Contains(l, "[Gemini]") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// Bounds of a provider call (docs/decisions/0096).
const (
	DefaultTimeout = 3 * time.Minute
	MaxTimeout     = 30 * time.Minute
	// maxOutput is the most a provider may print; more is refused, not
	// truncated, so that a runaway tool never writes half an answer.
	maxOutput = 1 << 20
	// maxPrompt bounds the deliberation sent as context: the oldest
	// thoughts are left out first.
	maxPrompt = 256 << 10
	// maxStyle bounds an output style's text passed on the command line
	// (Linux limits one argument to 128 KiB).
	maxStyle = 64 << 10
	// stderrTail is how much of a failing tool's stderr the error quotes.
	stderrTail = 2 << 10
)

// CallOptions say how to run a provider.
type CallOptions struct {
	Model string
	// Agent is a discovered agent's name (Claude only).
	Agent string
	// Style is that output style's name, StylePrompt its text (Claude
	// only), appended to the system prompt.
	Style       string
	StylePrompt string
	OSS         bool
	Timeout     time.Duration
	// Dir is the working directory of the tool (the workspace root).
	Dir string
	// Session is the assistant session id for the attribution.
	Session string
}

// CommandArgs returns the tool's argument list (without the command).
func (p Provider) CommandArgs(o CallOptions) ([]string, error) {
	args := append([]string{}, p.Args...)
	if o.Model != "" {
		args = append(args, p.ModelFlag, o.Model)
	}
	if o.Agent != "" {
		if !p.SupportsAgent {
			return nil, fmt.Errorf("--agent is for --call claude only, not %s", p.Name)
		}
		args = append(args, "--agent", o.Agent)
	}
	if o.StylePrompt != "" {
		if !p.SupportsStyle {
			return nil, fmt.Errorf("--style is for --call claude only, not %s", p.Name)
		}
		if len(o.StylePrompt) > maxStyle {
			return nil, fmt.Errorf("the output style's text has %d bytes, at most %d can be passed", len(o.StylePrompt), maxStyle)
		}
		args = append(args, "--append-system-prompt", o.StylePrompt)
	}
	if o.OSS {
		f, ok := p.ExtraFlags["oss"]
		if !ok {
			return nil, fmt.Errorf("--oss is for --call codex only, not %s", p.Name)
		}
		args = append(args, f)
	}
	if p.Name == "codex" {
		args = append(args, "-")
	}
	return args, nil
}

// Attribution is the seed's "model:X provider:Y [session-id]".
func Attribution(provider, model, session string) string {
	if model == "" {
		model = "default"
	}
	s := "model:" + model + " provider:" + provider
	if session != "" {
		s += " [" + session + "]"
	}
	return s
}

// Errors of a provider call. ErrProvider counts against the provider's
// circuit breaker; a tool that is not installed does not.
var (
	ErrProvider     = errors.New("provider call failed")
	ErrNotInstalled = errors.New("provider CLI not found")
)

// Run runs the provider with prompt on its stdin and returns the cleaned
// thought. A missing tool, a non-zero exit, a timeout, output that is too
// large or not UTF-8, and an empty answer are errors.
func (p Provider) Run(ctx context.Context, o CallOptions, prompt string) (string, error) {
	args, err := p.CommandArgs(o)
	if err != nil {
		return "", err
	}
	path, err := exec.LookPath(p.Command)
	if err != nil {
		return "", fmt.Errorf("%w: the %s CLI (%s) is not installed or not on PATH; nothing written", ErrNotInstalled, p.Name, p.Command)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if timeout > MaxTimeout {
		timeout = MaxTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = o.Dir
	cmd.Stdin = strings.NewReader(prompt)
	killGroup(cmd)
	// A tool whose children keep stdout open must not hold us past the
	// deadline.
	cmd.WaitDelay = 2 * time.Second
	var stderr tailBuffer
	out := &capBuffer{max: maxOutput, full: cancel}
	cmd.Stdout, cmd.Stderr = out, &stderr
	// Run, not a pipe read: Wait ends at the deadline (and WaitDelay later)
	// even when a process that escaped the group still holds stdout.
	runErr := cmd.Run()
	data := out.b
	switch {
	case out.over:
		return "", fmt.Errorf("%w: %s printed more than %d bytes; nothing written", ErrProvider, p.Name, maxOutput)
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("%w: %s did not answer within %s (--timeout); nothing written", ErrProvider, p.Name, timeout)
	case runErr != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = ": " + msg
		}
		return "", fmt.Errorf("%w: %s: %v%s", ErrProvider, p.Name, runErr, msg)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%w: %s's output is not valid UTF-8; nothing written", ErrProvider, p.Name)
	}
	text := p.Parse(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))))
	if text == "" {
		return "", fmt.Errorf("%w: %s gave an empty answer; nothing written", ErrProvider, p.Name)
	}
	return text, nil
}

// capBuffer keeps what is written up to max bytes; past that it stops
// the tool (full) and discards the rest.
type capBuffer struct {
	b    []byte
	max  int
	over bool
	full func()
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if len(c.b)+len(p) > c.max {
		c.over = true
		c.b = nil
		c.full()
		return len(p), nil
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > stderrTail {
		t.b = append(t.b[:0], t.b[len(t.b)-stderrTail:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.ToValidUTF8(string(t.b), "?") }

// Prompt is what a provider is asked: the deliberation so far as context,
// then the request for one thought of the given kind. The oldest thoughts
// are left out when the whole would pass maxPrompt.
func Prompt(d *Document, kind Kind, request string) string {
	var head strings.Builder
	fmt.Fprintf(&head, "You are contributing to a structured deliberation recorded in a thinking document.\n\n")
	fmt.Fprintf(&head, "Topic: %s\n", d.Topic)
	task := map[Kind]string{
		Thought: "Add one thought that supports or develops the deliberation.",
		Counter: "Add one counter-argument: challenge the assumptions or the direction so far.",
		Branch:  "Add one alternative approach the deliberation has not considered.",
	}[kind]
	tail := fmt.Sprintf("\nYour task: %s\nRequest: %s\n\nAnswer with the %s only, in markdown, without preamble.\n", task, request, kind)
	budget := maxPrompt - head.Len() - len(tail)
	var parts []string
	omitted := 0
	for i := len(d.Thoughts) - 1; i >= 0; i-- {
		e := d.Thoughts[i]
		s := fmt.Sprintf("\n%d. [%s]", e.N, e.Kind)
		if e.By != "" {
			s += " (" + e.By + ")"
		}
		s += "\n" + e.Text + "\n"
		if len(s) > budget {
			omitted = i + 1
			break
		}
		budget -= len(s)
		parts = append(parts, s)
	}
	var b strings.Builder
	b.WriteString(head.String())
	if len(d.Thoughts) > 0 {
		b.WriteString("\nThoughts so far:\n")
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n(%d earlier thoughts left out for length)\n", omitted)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	b.WriteString(tail)
	return b.String()
}
