package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/memory"
	"github.com/ctxls/ctxls/store"
)

// rootFlag adds the --root flag every workspace command takes.
func rootFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "root", ".", "workspace root directory")
}

// resolveRoot checks that root is a directory and makes it absolute.
func resolveRoot(root string) (string, error) {
	abs, err := wspath.Root(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", usagef("root %s does not exist", root)
	case errors.Is(err, wspath.ErrNotDir):
		return "", usagef("root %s is not a directory", root)
	case err != nil:
		return "", fmt.Errorf("root %s: %w", root, err)
	}
	return abs, nil
}

// relToRoot returns p relative to root (slash-separated); p may be absolute
// or relative to the current directory.
func relToRoot(root, p string) (rel, abs string, err error) { return wspath.Rel(root, p) }

// repairCorrupt is err, unless err says a query met a damaged index or
// state file of root: then the damaged file is moved aside (store.Repair),
// a damaged index is rebuilt in the background (heal), and the error says
// so and what to do next. Without it every later command would fail the
// same way, since Open checks only the files' headers.
func repairCorrupt(ctx context.Context, root string, err error) error {
	if !store.IsCorrupt(err) {
		return err
	}
	r, rerr := store.Repair(ctx, root)
	switch {
	case rerr != nil:
		return fmt.Errorf("%w (checking the files: %v)", err, rerr)
	case r.Index != "":
		var log *zap.Logger
		if heal(root, "damaged index pages; moved to "+r.Index, workspaceLog(root, &log)) {
			return fmt.Errorf("%w\nthe index was damaged and has been moved to %s; it is being rebuilt in the background: run the command again shortly", err, r.Index)
		}
		return fmt.Errorf("%w\nthe index was damaged and has been moved to %s; run 'ctxls index' to rebuild it", err, r.Index)
	case r.State != "":
		return fmt.Errorf("%w\nthe session state file was damaged and has been moved to %s; run the command again", err, r.State)
	}
	return err
}

// invalidAsUsage makes a memory that breaks the validation rules a usage
// error (exit 2) when its fields come from the command line: a missing
// --type is then the same mistake as a --type that names no type. A memory
// file given whole (on stdin) that breaks them is a failure (exit 1).
func invalidAsUsage(err error) error {
	var ve memory.ValidationError
	if errors.As(err, &ve) {
		return &usageError{err.Error()}
	}
	return err
}

// jsonVersion is the "version" of every --json output's shape
// (docs/json.md): raised when a key is renamed or removed, not when one is
// added.
const jsonVersion = 1
