package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/ctxls/ctxls/internal/workspace"
)

// MarkdownFile and JSONFile are the auto-context files of a root.
func MarkdownFile(root string) string { return filepath.Join(workspace.Dir(root), "auto-context.md") }

// JSONFile is the structured twin of MarkdownFile.
func JSONFile(root string) string { return filepath.Join(workspace.Dir(root), "auto-context.json") }

// write replaces both files atomically; the JSON is written first so that a
// reader triggered by the markdown's change finds a matching JSON. Neither
// is synced to disk: they are derived and rewritten at the next activity
// (docs/decisions/0038).
func write(root string, snap *Snapshot) error {
	if err := workspace.EnsureDir(root); err != nil {
		return fmt.Errorf("auto-context: %w", err)
	}
	data, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return fmt.Errorf("auto-context: %w", err)
	}
	if err := workspace.ReplaceFile(JSONFile(root), append(data, '\n'), workspace.FilePerm); err != nil {
		return err
	}
	return workspace.ReplaceFile(MarkdownFile(root), []byte(snap.Markdown), workspace.FilePerm)
}
