package hooks

import (
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/analyzer"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/sources"
)

// newEvent builds what the sources see of a hook call from its input,
// parsing each tool input once and cutting the prompt once. Run adds the
// store, configuration, collector and logger.
func newEvent(name string, in *Input, root string) *sources.Event {
	ev := &sources.Event{
		Name: name, Session: in.SessionID, Start: in.Source, Tool: in.ToolName,
		ToolInput: Tool(in.ToolInput), Prompt: analyzer.CutMessage(in.Prompt), Root: root,
	}
	// $HOME locates ~/.claude; tests point it at a temporary directory.
	if home, err := os.UserHomeDir(); err == nil {
		ev.Home = home
	}
	if name == hookevent.PostToolBatch && ev.Tool == "" && len(in.ToolCalls) > 0 {
		ev.Tool = in.ToolCalls[0].ToolName
	}
	// The workspace files the tool call (or each call of a batch) names,
	// and the tool that names each.
	add := func(tool, p string) {
		if rel, ok := workspaceFile(root, p); ok {
			ev.Files = append(ev.Files, rel)
			ev.Tools = append(ev.Tools, tool)
		}
	}
	add(in.ToolName, ev.ToolInput.FilePath)
	for _, c := range in.ToolCalls {
		add(c.ToolName, Tool(c.ToolInput).FilePath)
	}
	return ev
}

// workspaceFile returns p (absolute, or relative to root) relative to root
// with forward slashes; ok is false for "" and for a path outside root.
func workspaceFile(root, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
