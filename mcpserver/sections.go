package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/sources"
	"github.com/ctxls/ctxls/sources/rules"
)

// Bounds of the file resource's sections. They are small next to the
// resource's cap, so that the outline, not the rules or the gotchas, gives
// way when a file's resource is too long.
const (
	// ruleBodyBytes bounds one rule's text, as the hooks' rules injector
	// does; the rest stays in the rule's file.
	ruleBodyBytes = 3000
	// rulesBytes bounds the rule texts of one file; rules beyond it are
	// listed by path.
	rulesBytes = 8000
	// agentsBytes bounds the AGENTS.md text (sources.agentsMd.maxChars
	// applies too).
	agentsBytes = 4000
	// attachedMemories bounds the memories listed for one file.
	attachedMemories = 20
)

// builtinSections are the sections every file resource has after its
// outline and relations: the rules and instructions that apply to the file,
// then the memories attached to it.
func (s *Server) builtinSections() []FileSection {
	return []FileSection{s.rulesSection, s.memoriesSection}
}

// home is the user's home directory (~/.claude/rules, ~/.claude/memory);
// "" when unknown, which leaves the user's rules out.
func (s *Server) home() string {
	if s.opts.Home != "" {
		return s.opts.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// rulesSection lists the rules that apply to the file at rel: the
// always-apply rules and the glob-scoped rules whose globs match it, loaded
// and matched by package rules as the hooks' rules injector does, and the
// nearest AGENTS.md above it. Configuration switches (sources.rules,
// sources.agentsMd) apply as they do to the hooks.
func (s *Server) rulesSection(ctx context.Context, root, rel string) (string, error) {
	cfg := s.config().Sources
	var b strings.Builder
	if cfg.Rules.Enabled {
		set := rules.Load(ctx, root, s.home())
		for _, sk := range set.Skipped {
			s.log.Debug("mcp: rule skipped", zap.String("rule", sk.Path), zap.String("reason", sk.Reason))
		}
		shown := 0
		for i := range set.Rules {
			r := &set.Rules[i]
			var why string
			switch r.Kind {
			case rules.Always:
				why = "always applies"
			case rules.Glob:
				g, ok := r.Match(rel)
				if !ok {
					continue
				}
				why = fmt.Sprintf("`%s` matches", g)
			default:
				continue // description and manual rules are not the file's
			}
			if b.Len() == 0 {
				b.WriteString("## Rules that apply to this file\n")
			}
			fmt.Fprintf(&b, "\n### %s (%s rule, %s)\n\n", r.Path, r.Format, why)
			body := strings.TrimSpace(r.Body)
			switch {
			case shown >= rulesBytes:
				fmt.Fprintf(&b, "(not shown here, the section is full: read %s)\n", r.Path)
				continue
			case len(body) > ruleBodyBytes:
				body = truncate(body, ruleBodyBytes) + "\n(the whole rule is in " + r.Path + ")"
			}
			shown += len(body)
			b.WriteString(body + "\n")
		}
	}
	if cfg.AgentsMD.Enabled {
		if agents, ok := sources.NearestAgents(root, path.Dir(rel)); ok {
			if text, ok := sources.ReadTrimmed(root, agents, min(cfg.AgentsMD.MaxChars, agentsBytes)); ok {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				fmt.Fprintf(&b, "## Instructions for agents (%s, the nearest AGENTS.md)\n\n%s\n", agents, text)
			}
		}
	}
	return b.String(), nil
}

// memoriesSection lists the memories attached to the file at rel by their
// files frontmatter (exact paths and globs): gotchas first, the most severe
// first, then the others, each with the start of its content.
func (s *Server) memoriesSection(ctx context.Context, _, rel string) (string, error) {
	ms, done, err := s.memories(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	// As in the hooks: stat the memory directories, walk only when one
	// changed or the last walk is older than memory.SyncAge.
	if _, err := ms.SyncIfChanged(ctx, memory.SyncAge); err != nil {
		return "", err
	}
	hits, err := ms.Attached(ctx, rel)
	if err != nil || len(hits) == 0 {
		return "", err
	}
	slices.SortStableFunc(hits, func(a, b memory.Hit) int {
		return cmp.Or(
			boolOrder(a.Type == memory.Gotcha, b.Type == memory.Gotcha),
			severityOrder(a, b),
			cmp.Compare(b.Relevance, a.Relevance),
			cmp.Compare(a.Slug, b.Slug),
		)
	})
	var b strings.Builder
	b.WriteString("## Memories attached to this file\n\n")
	for i, h := range hits {
		if i == attachedMemories {
			fmt.Fprintf(&b, "- … and %d more (memory_search finds them)\n", len(hits)-i)
			break
		}
		how := "by a pattern"
		if h.Relevance >= 1 {
			how = "by path"
		}
		fmt.Fprintf(&b, "- %s `%s` (%s", h.Type, h.Slug, h.Scope)
		if h.Severity != "" {
			fmt.Fprintf(&b, ", severity %s", h.Severity)
		}
		fmt.Fprintf(&b, ", attached %s): %s\n", how, h.Title)
		if m, err := ms.Get(ctx, h.Scope, h.Slug); err == nil && strings.TrimSpace(m.Content) != "" {
			fmt.Fprintf(&b, "  %s\n", oneLine(m.Content, 400))
		}
	}
	return b.String(), nil
}

// severityOrder orders gotchas the most severe first (only gotchas have a
// severity).
func severityOrder(a, b memory.Hit) int {
	if a.Type != memory.Gotcha || b.Type != memory.Gotcha {
		return 0
	}
	return cmp.Compare(slices.Index(memory.Severities, b.Severity), slices.Index(memory.Severities, a.Severity))
}

// boolOrder orders true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
