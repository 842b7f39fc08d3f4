package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultSharedCommand is the command written into files a team commits
// (.claude/settings.json, .mcp.json, a plugin): a name each teammate's PATH
// resolves (decision 0098).
const DefaultSharedCommand = "ctxls"

// ErrMachinePath says a command names a path that exists only on one
// machine, which a file the team shares must not hold.
var ErrMachinePath = errors.New("an absolute path works only on the machine it was written on")

// CheckShared reports whether command may be written into a file the team
// shares: a name looked up on PATH, or a path relative to the project.
func CheckShared(command string) error {
	if filepath.IsAbs(command) || strings.HasPrefix(command, "~") {
		return fmt.Errorf("%s: %w", command, ErrMachinePath)
	}
	return nil
}

// Resolve returns the executable that command runs on this machine, the
// way Claude Code runs a hook from the project root: a bare name through
// PATH, a relative path from root, an absolute path as it is.
func Resolve(root, command string) (string, error) {
	if command == "" {
		return "", errors.New("empty command")
	}
	p := command
	switch {
	case !strings.ContainsRune(command, filepath.Separator) && !strings.ContainsRune(command, '/'):
		found, err := exec.LookPath(command)
		if err != nil {
			return "", fmt.Errorf("%s is not on PATH", command)
		}
		return found, nil
	case !filepath.IsAbs(command):
		p = filepath.Join(root, filepath.FromSlash(command))
	}
	info, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s does not exist", p)
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file", p)
	}
	return p, nil
}
