package sources

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookevent"
)

// KeywordDetector injects the instruction of every configured mode
// (sources.modes) whose keyword or pattern the prompt contains. A mode is
// injected once for each prompt that asks for it, also when an earlier
// prompt of the session did.
type KeywordDetector struct{}

// Name implements Source.
func (KeywordDetector) Name() string { return "keyword-detector" }

// Collect implements Source.
func (KeywordDetector) Collect(_ context.Context, ev *Event) ([]collect.Entry, error) {
	if ev.Name != hookevent.UserPromptSubmit {
		return nil, nil
	}
	// The collector skips an entry the session has seen with the same key
	// and text; a per-prompt key lets a mode apply to each prompt asking
	// for it.
	stamp := time.Now().UnixNano()
	var out []collect.Entry
	for _, m := range MatchModes(ev.Config.Sources.Modes, ev.Prompt) {
		out = append(out, collect.Entry{
			Source: "keyword-detector", ID: fmt.Sprintf("%s@%d", m.Mode.Name, stamp), Priority: collect.High,
			Content:  fmt.Sprintf("Mode %q (the prompt says %q):\n%s", m.Mode.Name, m.Trigger, strings.TrimSpace(m.Mode.Instruction)),
			Metadata: map[string]any{"mode": m.Mode.Name},
		})
	}
	return out, nil
}

// ModeMatch is a mode the prompt asks for, and the text that asked.
type ModeMatch struct {
	Mode    config.Mode `json:"-"`
	Name    string      `json:"name"`
	Trigger string      `json:"trigger"`
}

// MatchModes returns the modes the prompt triggers, in configuration order,
// each once. Keywords match whole words in any case; a pattern is a Go
// regular expression (validated when the configuration loads).
func MatchModes(modes []config.Mode, prompt string) []ModeMatch {
	if strings.TrimSpace(prompt) == "" {
		return nil
	}
	var out []ModeMatch
	for _, m := range modes {
		if trig, ok := matchMode(m, prompt); ok {
			out = append(out, ModeMatch{Mode: m, Name: m.Name, Trigger: trig})
		}
	}
	return out
}

func matchMode(m config.Mode, prompt string) (string, bool) {
	for _, k := range m.Keywords {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if containsWord(prompt, k) {
			return k, true
		}
	}
	if m.Pattern != "" {
		if re, err := regexp.Compile(m.Pattern); err == nil {
			if loc := re.FindStringIndex(prompt); loc != nil {
				return prompt[loc[0]:loc[1]], true
			}
		}
	}
	return "", false
}

// containsWord reports whether prompt holds word, in any case, with no
// letter, digit or underscore right before or after it. (A regular
// expression of Unicode classes did the same, compiled on every prompt for
// each keyword: a tenth of the daemon's CPU for a prompt with nothing to
// look up.)
func containsWord(prompt, word string) bool {
	p, w := strings.ToLower(prompt), strings.ToLower(word)
	for from := 0; from < len(p); {
		i := strings.Index(p[from:], w)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(w)
		before, _ := utf8.DecodeLastRuneInString(p[:start])
		after, _ := utf8.DecodeRuneInString(p[end:])
		if (start == 0 || !wordRune(before)) && (end == len(p) || !wordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(p[start:])
		from = start + size
	}
	return false
}

func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }
