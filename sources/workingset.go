package sources

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/hookevent"
)

// WorkingSet restores what the person was working on at session start
// (and after compaction): the editor's recent files and their key
// entities, and what the previous session was asking about.
type WorkingSet struct{}

// Name implements Source.
func (WorkingSet) Name() string { return "working-set" }

// Collect implements Source.
func (WorkingSet) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	if ev.Name != hookevent.SessionStart {
		return nil, nil
	}
	files, err := ev.WorkingSet(ctx)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("Working set (files recently open or edited):\n")
	for _, f := range files {
		line, err := ev.Store.FileSummary(ctx, f, 8)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "- %s\n", line)
	}
	if acts, err := ev.Store.RecentActivity(ctx, time.Now().Add(-sessionWindow), 50); err == nil {
		var prompts []string
		for _, a := range acts {
			if a.Type == "prompt" && a.Session != ev.Session && len(prompts) < 3 {
				prompts = append(prompts, strings.ReplaceAll(analyzer.Truncate(a.Text, 160), "\n", " "))
			}
		}
		if len(prompts) > 0 {
			b.WriteString("Previous session was asking about:\n")
			for _, p := range prompts {
				fmt.Fprintf(&b, "- %s\n", p)
			}
		}
	}
	return []collect.Entry{{Source: "working-set", ID: "session", Content: strings.TrimRight(b.String(), "\n"), Priority: collect.High}}, nil
}
