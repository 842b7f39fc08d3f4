package sources

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/sources/rules"
)

// maxRuleChars bounds one rule's injected text; the rest stays in the file.
const maxRuleChars = 3000

// RulesInjector injects rule files: always-apply rules at session start
// (and so again after compaction), glob-scoped rules when a matching file
// is read, about to be edited or active in the editor, and description-only
// rules listed at session start and injected when the prompt fits their
// description.
type RulesInjector struct {
	// cache, when set (All sets it), keeps parsed rule files between
	// calls for a long-lived caller such as the hook daemon.
	cache *rules.Cache
}

// Name implements Source.
func (RulesInjector) Name() string { return "rules-injector" }

// Collect implements Source.
func (ri RulesInjector) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	if !ev.Config.Sources.Rules.Enabled {
		return nil, nil
	}
	var files []string
	switch ev.Name {
	case hookevent.SessionStart, hookevent.PreCompact, hookevent.UserPromptSubmit:
		// Files in the working set keep their rules across compaction.
		files, _ = ev.WorkingSet(ctx)
	case hookevent.PreToolUse:
		if !IsEdit(ev.Tool) {
			return nil, nil
		}
		files = ev.Files
	case hookevent.PostToolUse, hookevent.PostToolBatch:
		files = ev.Files
	default:
		return nil, nil
	}
	set := ri.cache.Load(ctx, ev.Root, ev.Home)
	for _, s := range set.Skipped {
		ev.logger().Warn("rule skipped", zap.String("rule", s.Path), zap.String("reason", s.Reason))
	}
	var out []collect.Entry
	var described []rules.Rule
	for i := range set.Rules {
		r := &set.Rules[i]
		switch r.Kind {
		case rules.Always:
			if ev.Name == hookevent.SessionStart || ev.Name == hookevent.PreCompact {
				out = append(out, ruleEntry(r, "applies always"))
			}
		case rules.Glob:
			if f, g, ok := firstMatch(r, files); ok {
				out = append(out, ruleEntry(r, fmt.Sprintf("applies to %s; %s matches %s", strings.Join(r.Globs, ", "), f, g)))
			}
		case rules.Description:
			described = append(described, *r)
			if ev.Name == hookevent.UserPromptSubmit {
				if terms := DescriptionMatch(r.Description, ev.Prompt); terms != nil {
					out = append(out, ruleEntry(r, "its description fits the prompt: "+strings.Join(terms, ", ")))
				}
			}
		}
	}
	if len(described) > 0 && ev.Name == hookevent.SessionStart {
		var b strings.Builder
		b.WriteString("Rules that apply when their description fits (read the file when it does):")
		for _, r := range described {
			fmt.Fprintf(&b, "\n- %s: %s", r.Path, oneLine(r.Description, 160))
		}
		out = append(out, collect.Entry{Source: "rules-injector", ID: "described", Content: b.String(), Priority: collect.Normal})
	}
	return out, nil
}

func firstMatch(r *rules.Rule, files []string) (file, glob string, ok bool) {
	for _, f := range files {
		if g, ok := r.Match(f); ok {
			return f, g, true
		}
	}
	return "", "", false
}

func ruleEntry(r *rules.Rule, why string) collect.Entry {
	body := r.Body
	if len(body) > maxRuleChars {
		body = cut(body, maxRuleChars) + "\n… (truncated; the whole rule is in " + r.Path + ")"
	}
	return collect.Entry{
		Source: "rules-injector", ID: r.Path, Priority: collect.Normal,
		Content:  fmt.Sprintf("Rule %s (%s):\n%s", r.Path, why, body),
		Metadata: map[string]any{"format": r.Format, "kind": string(r.Kind)},
	}
}

// DescriptionMatch returns the description's terms found in the prompt when
// they are enough to say the rule fits: at least two distinct terms, or
// half of a short description's. nil means no fit.
func DescriptionMatch(description, prompt string) []string {
	if strings.TrimSpace(prompt) == "" {
		return nil
	}
	want := termSet(description)
	if len(want) == 0 {
		return nil
	}
	var hit []string
	for t := range termSet(prompt) {
		if want[t] {
			hit = append(hit, t)
		}
	}
	if len(hit) >= 2 || len(hit) > 0 && 2*len(hit) >= len(want) {
		sortStrings(hit)
		return hit
	}
	return nil
}
