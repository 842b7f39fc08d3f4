package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/wstest"
)

// Before an edit far down a long file, the edited function comes first,
// with its callers and callees, and the outline is the part of the file
// around it, not its first declarations.
func TestBeforeEditShowsTheEditedFunction(t *testing.T) {
	root := quietDir(t)
	var src strings.Builder
	src.WriteString("package big\n")
	for i := range 40 {
		fmt.Fprintf(&src, "\n// F%02d does step %d.\nfunc F%02d() int {\n\treturn helper(%d)\n}\n", i, i, i, i)
	}
	src.WriteString("\nfunc helper(n int) int { return n }\n")
	os.WriteFile(filepath.Join(root, "big.go"), []byte(src.String()), 0o644)
	os.WriteFile(filepath.Join(root, "use.go"), []byte("package big\n\nfunc Caller() int { return F35() }\n"), 0o644)
	wstest.Index(t, root)

	out, code := hook(t, "pre-tool-use", input(map[string]any{"session_id": "edit", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "big.go"), "old_string": "\treturn helper(35)", "new_string": "\treturn helper(36)"}}))
	c := contextOf(t, "pre-tool-use", out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Editing function `big.F35`", "Callers of big.F35", "big.Caller", "It calls: helper", "func F35() int (line", "← the edit"} {
		if !strings.Contains(c, want) {
			t.Errorf("missing %q in:\n%s", want, c)
		}
	}
	if strings.Contains(c, "func F00()") {
		t.Errorf("the outline starts at the top of the file, not around the edit:\n%s", c)
	}
	if i, j := strings.Index(c, "Editing"), strings.Index(c, "Outline"); i < 0 || j < i {
		t.Errorf("the edited function does not come first:\n%s", c)
	}
}
