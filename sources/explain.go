package sources

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/sources/discover"
	"github.com/ctxls/ctxls/sources/rules"
)

// Report says what every source found and why each item applies, or not,
// to the files and prompt of a request (what `ctxls sources` prints).
type Report struct {
	Root   string   `json:"root"`
	Home   string   `json:"home,omitempty"`
	Files  []string `json:"files,omitempty"`
	Prompt string   `json:"prompt,omitempty"`

	Rules        []RuleReport    `json:"rules"`
	SkippedRules []rules.Skipped `json:"skippedRules,omitempty"`
	Directory    []DirReport     `json:"directory,omitempty"`
	Modes        []ModeReport    `json:"modes,omitempty"`
	Discovery    DiscoveryReport `json:"discovery"`
}

// RuleReport is one rule and whether it applies.
type RuleReport struct {
	rules.Rule
	Applies bool   `json:"applies"`
	Why     string `json:"why"`
}

// DirReport is the AGENTS.md and README.md found for one file.
type DirReport struct {
	File   string `json:"file"`
	Agents string `json:"agents,omitempty"`
	Readme string `json:"readme,omitempty"`
}

// ModeReport is one configured keyword mode.
type ModeReport struct {
	Name     string   `json:"name"`
	Keywords []string `json:"keywords,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	Applies  bool     `json:"applies"`
	Trigger  string   `json:"trigger,omitempty"`
}

// DiscoveryReport is the discovery run and, for a prompt, what fits it.
type DiscoveryReport struct {
	discover.Result
	Matches   *discover.Context `json:"matches,omitempty"`
	Formatted string            `json:"formatted,omitempty"`
}

// Explain builds the report for ev.Files and ev.Prompt (either may be
// empty).
func Explain(ctx context.Context, ev *Event) Report {
	rep := Report{Root: ev.Root, Home: ev.Home, Files: ev.Files, Prompt: ev.Prompt}
	set := rules.Load(ctx, ev.Root, ev.Home)
	rep.SkippedRules = set.Skipped
	for _, r := range set.Rules {
		rep.Rules = append(rep.Rules, explainRule(r, ev))
	}
	for _, f := range ev.Files {
		d := DirReport{File: f}
		dir := parents([]string{f})[0]
		d.Agents, _ = NearestAgents(ev.Root, dir)
		d.Readme, _ = DirReadme(ev.Root, dir)
		rep.Directory = append(rep.Directory, d)
	}
	matched := map[string]string{}
	for _, m := range MatchModes(ev.Config.Sources.Modes, ev.Prompt) {
		matched[m.Name] = m.Trigger
	}
	for _, m := range ev.Config.Sources.Modes {
		trig, ok := matched[m.Name]
		rep.Modes = append(rep.Modes, ModeReport{Name: m.Name, Keywords: m.Keywords, Pattern: m.Pattern, Applies: ok, Trigger: trig})
	}
	rep.Discovery.Result = (&Discovery{}).Discover(ctx, ev)
	if ev.Prompt != "" && rep.Discovery.SkipReason == "" {
		cfg := ev.Config.Sources.Discovery
		m := discover.MatchPrompt(rep.Discovery.Items, ev.Prompt, cfg.MinScore, cfg.MaxPerType)
		rep.Discovery.Matches = &m
		rep.Discovery.Formatted = discover.Format(m)
	}
	return rep
}

func explainRule(r rules.Rule, ev *Event) RuleReport {
	rr := RuleReport{Rule: r}
	switch r.Kind {
	case rules.Always:
		rr.Applies, rr.Why = true, "always: injected at session start and again after compaction"
	case rules.Glob:
		if f, g, ok := firstMatch(&r, ev.Files); ok {
			rr.Applies, rr.Why = true, fmt.Sprintf("%s matches %s: injected when it is read, about to be edited or active in the editor", f, g)
		} else if len(ev.Files) > 0 {
			rr.Why = "no given file matches " + strings.Join(r.Globs, ", ")
		} else {
			rr.Why = "for files matching " + strings.Join(r.Globs, ", ") + " (give --file to check one)"
		}
	case rules.Description:
		if terms := DescriptionMatch(r.Description, ev.Prompt); terms != nil {
			rr.Applies, rr.Why = true, "its description fits the prompt ("+strings.Join(terms, ", ")+")"
		} else {
			rr.Why = "when its description fits the prompt; listed at session start"
		}
	case rules.Manual:
		rr.Why = "manual: no alwaysApply, globs or description, so never injected on its own"
	}
	return rr
}
