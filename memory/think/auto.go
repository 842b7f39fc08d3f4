package think

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/sources/discover"
)

// Auto-selection constants (docs/decisions/0096).
const (
	// OllamaTimeout is the seed's 15 s bound on one selection request.
	OllamaTimeout = 15 * time.Second
	// DefaultChatModel is the plugin's chat_model default.
	DefaultChatModel = "gemma3:4b"
	// maxOllamaResponse bounds what is read of Ollama's answer.
	maxOllamaResponse = 1 << 20
	// ollamaService names Ollama's circuit breaker.
	ollamaService = "ollama"
)

// Models are the Claude models a selection may name.
var Models = []string{"haiku", "sonnet", "opus"}

// Selection sources.
const (
	FromOllama     = "ollama"
	FromHeuristics = "heuristics"
)

// AutoSelection is the seed's recommended agent, style and model for one
// thought, with why and how it was chosen.
type AutoSelection struct {
	Agent     string `json:"agent,omitempty"`
	Style     string `json:"style,omitempty"`
	Model     string `json:"model,omitempty"`
	Reasoning string `json:"reasoning"`
	Source    string `json:"source"`
}

// Label is the seed's source indicator.
func (a AutoSelection) Label() string {
	if a.Source == FromOllama {
		return "(via ollama)"
	}
	return "(via heuristics - ollama unavailable)"
}

// String is the seed's display line.
func (a AutoSelection) String() string {
	var flags []string
	if a.Agent != "" {
		flags = append(flags, "--agent "+a.Agent)
	}
	if a.Style != "" {
		flags = append(flags, "--style "+a.Style)
	}
	if a.Model != "" {
		flags = append(flags, "--model "+a.Model)
	}
	return fmt.Sprintf("Auto-selected %s: %s. Reasoning: %s", a.Label(), strings.Join(flags, " "), a.Reasoning)
}

// Validate is the seed's whitelist validation: agent and style must be
// discovered, the model one of Models, at least one of them set, and the
// reasoning given.
func (a AutoSelection) Validate(cat Catalog) error {
	var errs []error
	if a.Agent == "" && a.Style == "" && a.Model == "" {
		errs = append(errs, errors.New("names no agent, style or model"))
	}
	if a.Agent != "" {
		if _, ok := cat.Agent(a.Agent); !ok {
			errs = append(errs, fmt.Errorf("agent %q is not discovered", a.Agent))
		}
	}
	if a.Style != "" {
		if _, ok := cat.Style(a.Style); !ok {
			errs = append(errs, fmt.Errorf("output style %q is not discovered", a.Style))
		}
	}
	if a.Model != "" && !slices.Contains(Models, a.Model) {
		errs = append(errs, fmt.Errorf("model %q is not one of haiku, sonnet, opus", a.Model))
	}
	if strings.TrimSpace(a.Reasoning) == "" {
		errs = append(errs, errors.New("gives no reasoning"))
	}
	return errors.Join(errs...)
}

// SelectRequest is what a selection is for.
type SelectRequest struct {
	Topic   string
	Thought string
	Kind    Kind
	// UsedStyles are the styles the document's thoughts already used.
	UsedStyles []string
}

// Ollama is an Ollama endpoint asked for selections.
type Ollama struct {
	Endpoint string
	Model    string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
}

// OllamaConfig reads ollama_host and chat_model from the plugin's settings
// file .claude/memory.local.md; it returns nil when no host is configured.
func OllamaConfig(root string) (*Ollama, error) {
	path := filepath.Join(root, ".claude", "memory.local.md")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	front, _, err := memory.Frontmatter(data)
	if errors.Is(err, memory.ErrNoFrontmatter) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cfg struct {
		Host  string `yaml:"ollama_host"`
		Model string `yaml:"chat_model"`
	}
	if err := yaml.Unmarshal(front, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Host == "" {
		return nil, nil
	}
	if u, err := url.Parse(cfg.Host); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: ollama_host %q is not an http(s) URL", path, cfg.Host)
	}
	if cfg.Model == "" {
		cfg.Model = DefaultChatModel
	}
	return &Ollama{Endpoint: strings.TrimRight(cfg.Host, "/"), Model: cfg.Model}, nil
}

// Select asks Ollama for a selection (the seed's selectViaOllama) and
// validates it against the catalog.
func (o *Ollama) Select(ctx context.Context, req SelectRequest, cat Catalog) (AutoSelection, error) {
	ctx, cancel := context.WithTimeout(ctx, OllamaTimeout)
	defer cancel()
	body, err := json.Marshal(map[string]any{
		"model": o.Model, "prompt": selectionPrompt(req, cat), "stream": false, "format": "json",
	})
	if err != nil {
		return AutoSelection{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint+"/api/generate", bytes.NewReader(body))
	if err != nil {
		return AutoSelection{}, fmt.Errorf("ollama: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(hr)
	if err != nil {
		return AutoSelection{}, fmt.Errorf("ollama: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxOllamaResponse+1))
	if err != nil {
		return AutoSelection{}, fmt.Errorf("ollama: read the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return AutoSelection{}, fmt.Errorf("ollama: %s: %s", resp.Status, strings.TrimSpace(string(data[:min(len(data), 300)])))
	}
	if len(data) > maxOllamaResponse {
		return AutoSelection{}, fmt.Errorf("ollama: answer larger than %d bytes", maxOllamaResponse)
	}
	var gen struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal(data, &gen); err != nil {
		return AutoSelection{}, fmt.Errorf("ollama: malformed answer: %w", err)
	}
	var sel AutoSelection
	if err := json.Unmarshal([]byte(gen.Response), &sel); err != nil {
		return AutoSelection{}, fmt.Errorf("ollama: the model's answer is not the JSON asked for: %w", err)
	}
	sel.Source = FromOllama
	// Names are matched case-insensitively; use the discovered spelling.
	if it, ok := cat.Agent(sel.Agent); ok {
		sel.Agent = it.Name
	}
	if it, ok := cat.Style(sel.Style); ok {
		sel.Style = it.Name
	}
	sel.Model = strings.ToLower(strings.TrimSpace(sel.Model))
	if err := sel.Validate(cat); err != nil {
		return AutoSelection{}, fmt.Errorf("ollama's selection rejected: %w", err)
	}
	return sel, nil
}

func selectionPrompt(req SelectRequest, cat Catalog) string {
	var b strings.Builder
	b.WriteString("Choose the agent, output style and Claude model best suited to write one thought in a deliberation.\n")
	fmt.Fprintf(&b, "Topic: %s\nThought kind: %s\nRequest: %s\n", req.Topic, req.Kind, truncRunes(req.Thought, 2000))
	if len(req.UsedStyles) > 0 {
		fmt.Fprintf(&b, "Styles already used (prefer a different perspective): %s\n", strings.Join(req.UsedStyles, ", "))
	}
	list := func(name string, items []discover.Item) {
		fmt.Fprintf(&b, "\nAvailable %s (use the exact name or leave empty):\n", name)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s: %s\n", it.Name, truncRunes(it.Description, 200))
		}
	}
	list("agents", cat.Agents)
	list("output styles", cat.Styles)
	b.WriteString("\nModels: haiku (quick), sonnet (balanced), opus (deep analysis).\n")
	b.WriteString(`Answer with JSON only: {"agent": "", "style": "", "model": "", "reasoning": "one sentence"}` + "\n")
	return b.String()
}

// heuristic is one keyword rule of the fallback.
type heuristic struct {
	why    string
	words  []string
	styles []string // substrings of style names, preferred in order
	model  string
}

var heuristics = []heuristic{
	{"security keywords", []string{"security", "vulnerab", "attack", "exploit", "auth", "token", "secret", "injection", "leak", "permission"},
		[]string{"security", "risk", "devil"}, "opus"},
	{"architecture keywords", []string{"architect", "design", "structure", "module", "interface", "api", "boundar", "system"},
		[]string{"architect", "product"}, "opus"},
	{"performance keywords", []string{"performance", "latency", "slow", "fast", "memory", "cpu", "scale", "throughput", "cache"},
		[]string{"pragmat", "architect"}, "sonnet"},
	{"simplicity keywords", []string{"simple", "simplif", "complex", "minimal", "overengineer"},
		[]string{"simplif", "pragmat"}, "sonnet"},
	{"user keywords", []string{"user", "ux", "customer", "usabil"}, []string{"user"}, "sonnet"},
	{"history keywords", []string{"history", "previous", "legacy", "before", "past"}, []string{"historian"}, "sonnet"},
}

// kindStyles are the styles each kind of thought leans to (the plugin's
// recommended pairings).
var kindStyles = map[Kind][]string{
	Thought: {"architect", "pragmat"},
	Counter: {"devil", "risk", "skeptic", "critic"},
	Branch:  {"simplif", "pragmat", "alternative"},
}

// Heuristics is the seed's selectViaHeuristics: keyword rules over the
// topic and request, the kind of thought, and the discovered agents'
// keywords; only discovered names are chosen.
func Heuristics(req SelectRequest, cat Catalog) AutoSelection {
	text := strings.ToLower(req.Topic + " " + req.Thought)
	sel := AutoSelection{Source: FromHeuristics, Model: "sonnet"}
	var why []string
	var prefs []string
	for _, h := range heuristics {
		var hit []string
		for _, w := range h.words {
			if strings.Contains(text, w) {
				hit = append(hit, w)
			}
		}
		if len(hit) > 0 {
			why = append(why, fmt.Sprintf("%s (%s)", h.why, strings.Join(hit, ", ")))
			prefs = append(prefs, h.styles...)
			if sel.Model != "opus" {
				sel.Model = h.model
			}
		}
	}
	if len(why) == 0 && len(strings.Fields(req.Thought)) < 12 {
		sel.Model = "haiku"
		why = append(why, "a short request with no domain keywords")
	}
	prefs = append(prefs, kindStyles[req.Kind]...)
	sel.Style = pickStyle(cat.Styles, prefs, req.UsedStyles)
	if sel.Style != "" {
		why = append(why, fmt.Sprintf("%s suits a %s", sel.Style, req.Kind))
	}
	m := discover.MatchPrompt(cat.Agents, req.Topic+" "+req.Thought, 1, 1)
	if len(m.Agents) > 0 {
		sel.Agent = m.Agents[0].Item.Name
		why = append(why, fmt.Sprintf("agent %s matches %s", sel.Agent, strings.Join(m.Agents[0].Matched, ", ")))
	}
	sel.Reasoning = strings.Join(why, "; ")
	return sel
}

// pickStyle returns the first discovered style whose name contains a
// preferred substring, skipping styles already used while others match.
func pickStyle(styles []discover.Item, prefs, used []string) string {
	for _, skipUsed := range []bool{true, false} {
		for _, p := range prefs {
			for _, it := range styles {
				if skipUsed && slices.ContainsFunc(used, func(u string) bool { return strings.EqualFold(u, it.Name) }) {
					continue
				}
				if strings.Contains(strings.ToLower(it.Name), p) {
					return it.Name
				}
			}
		}
	}
	return ""
}

// Select is the seed's selectWithCircuitBreaker: Ollama when configured
// and its circuit (br, may be nil) is closed, else heuristics. note says
// why Ollama was not used, "" when it was or is not configured.
func Select(ctx context.Context, req SelectRequest, cat Catalog, o *Ollama, br *Breakers) (sel AutoSelection, note string) {
	if o == nil {
		return Heuristics(req, cat), ""
	}
	if br != nil {
		if st, ok := br.Allow(ollamaService); !ok {
			return Heuristics(req, cat), fmt.Sprintf("ollama skipped: circuit open after %d failures", st.ConsecutiveFailures)
		}
	}
	sel, err := o.Select(ctx, req, cat)
	if br != nil && ctx.Err() == nil {
		st, _ := br.Record(ollamaService, err == nil)
		if err != nil {
			err = fmt.Errorf("%w (%d/%d)", err, st.ConsecutiveFailures, BreakerThreshold)
		}
	}
	if err != nil {
		return Heuristics(req, cat), err.Error()
	}
	return sel, ""
}
