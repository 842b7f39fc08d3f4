package workspace

import (
	"os"
	"path/filepath"
)

// FindRoot returns the workspace root for a working directory: the nearest
// ancestor with a .ctxls directory, else with .git, else dir itself. An
// empty dir means $CLAUDE_PROJECT_DIR, else the current directory.
func FindRoot(dir string) string {
	if dir == "" {
		if d := os.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
			dir = d
		} else {
			dir, _ = os.Getwd()
		}
	}
	dir, _ = filepath.Abs(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for _, marker := range []string{DirName, ".git"} {
		for d := dir; ; d = filepath.Dir(d) {
			if info, err := os.Stat(filepath.Join(d, marker)); err == nil && info.IsDir() {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return dir
}
