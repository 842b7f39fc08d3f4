// Command ctxls-core is the full program of ctxls, a context engine for AI
// coding assistants: it indexes a workspace's code, retrieves what matters
// for a prompt or for what the person is doing, and hands it to the
// assistant through hooks, a language server and an MCP server. People run
// it through the thin client ctxls (cmd/ctxls), which hands the calls a
// workspace's daemon can answer to the daemon and runs this program for
// the rest (docs/decisions/0086).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/ctxls/ctxls/memory"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// noFTS5 is what a build without FTS5 says before it refuses to run.
const noFTS5 = "ctxls: this ctxls-core was built without SQLite's FTS5, which its index needs; build it with the sqlite_fts5 tag: make install, or go install -tags sqlite_fts5 ./cmd/ctxls-core"

func main() {
	if !builtWithFTS5 {
		fmt.Fprintln(os.Stderr, noFTS5)
		os.Exit(exitError)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// CTXLS_CPUPROFILE=file writes a CPU profile of the command, for
	// performance work on real trees.
	if p := os.Getenv("CTXLS_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
	}
	code := run(ctx, os.Args[1:])
	pprof.StopCPUProfile()
	stop()
	os.Exit(code)
}

// Exit codes shared by every command.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run executes the command line and maps errors to exit codes.
func run(ctx context.Context, args []string) int {
	root := newRootCmd(args)
	args = queryArgs(root, args)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	// A slug that cannot name a memory came from the command line: the
	// same mistake as a malformed flag.
	if errors.As(err, &ue) || isCobraUsageError(err) || errors.Is(err, memory.ErrInvalidSlug) {
		// The usage of the command that was misused, not the whole
		// program's: that is where the fix is.
		if cmd == nil || cmd == root {
			fmt.Fprintf(os.Stderr, "ctxls: %v\nRun 'ctxls --help' for the commands.\n", err)
		} else {
			fmt.Fprintf(os.Stderr, "ctxls: %v\n\n%s", err, cmd.UsageString())
		}
		return exitUsage
	}
	var se silentError
	if errors.As(err, &se) {
		return se.code
	}
	fmt.Fprintf(os.Stderr, "ctxls: %v\n", err)
	return exitError
}

// usageError marks an error in how a command was invoked (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// silentError carries an exit code for a failure already reported.
type silentError struct{ code int }

func (e silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }
