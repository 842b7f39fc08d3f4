// Command ctxls is the program people, editors and Claude Code run. It is a
// thin client: it links only the standard library (and hookcall and
// internal/wspath, which link nothing else) and starts in a fraction
// of the time of the full program, ctxls-core (installed beside it), whose
// package initialisation and page faults were half of a query answered by a
// workspace's daemon (docs/decisions/0086).
//
// The calls on a person's critical path that the workspace's daemon answers
// go to the daemon: `ctxls hook EVENT` and `ctxls query`. Every other
// command, and every call the daemon cannot serve (none runs yet, another
// build, CTXLS_HOOK_DAEMON=0, flags it does not handle), is run by
// ctxls-core with the same arguments, standard streams, environment and
// exit code; it answers in-process and starts the daemon for the next call.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/hookcall"
)

// coreName is the full program's file name.
const coreName = "ctxls-core"

func main() {
	args := os.Args[1:]
	core, err := coreBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ctxls: %v\n", err)
		if isHook(args) {
			os.Exit(0) // a hook never fails the session
		}
		os.Exit(1)
	}
	switch {
	case isHook(args):
		os.Exit(hook(core, args[1]))
	case len(args) > 0 && args[0] == "index" && !hookcall.Off():
		if req, ok := parseIndex(args[1:]); ok {
			// An answer without output is a daemon of a build that
			// took the call for a ping.
			if resp, answered, _ := ask(core, req, indexWait); answered && len(resp.Output) > 0 {
				os.Stdout.Write(resp.Output)
				return
			}
		}
	case len(args) > 0 && args[0] == "query" && !hookcall.Off():
		if q, ok := parseQuery(args[1:]); ok {
			if req, ok := q.request(); ok {
				resp, answered, late := ask(core, req, queryWait)
				switch {
				case late:
					// Asking again in ctxls-core would wait as long.
					fmt.Fprintf(os.Stderr, "ctxls: the workspace daemon did not answer within %v\n", queryWait)
					os.Exit(1)
				case answered:
					os.Stderr.WriteString(resp.Note)
					os.Stdout.Write(resp.Output)
					return
				}
			}
		}
	}
	execCore(core, args)
}

// ask sends req, with this user's home directory, to the workspace's daemon
// as a client of core's build, and returns its answer. answered is false when ctxls-core must run
// the call instead (no daemon, another build, a refusal or an error, which
// ctxls-core reports); late, when the daemon took the call but did not
// answer within wait.
func ask(core string, req *hookcall.Request, wait time.Duration) (resp hookcall.Response, answered, late bool) {
	req.Identity = hookcall.Identity(core)
	req.Home, _ = os.UserHomeDir()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp, err := hookcall.Call(ctx, req)
	switch {
	case err != nil && ctx.Err() != nil:
		return resp, false, true
	case err != nil, resp.Refused != "", resp.Error != "":
		return resp, false, false
	}
	return resp, true, false
}

// coreBinary is ctxls-core beside this executable, else on PATH.
func coreBinary() (string, error) {
	exe, err := hookcall.Executable()
	if err == nil {
		p := filepath.Join(filepath.Dir(exe), coreName)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(coreName)
	if err != nil {
		where := "this program"
		if exe != "" {
			where = exe
		}
		return "", fmt.Errorf("%s, the program ctxls runs, is neither beside %s nor on PATH (make build puts both in bin/)", coreName, where)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// execCore replaces this process with ctxls-core and the same arguments:
// the language server, a long index run or a usage error behave exactly as
// if ctxls-core had been started.
func execCore(core string, args []string) {
	err := syscall.Exec(core, append([]string{os.Args[0]}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "ctxls: run %s: %v\n", core, err)
	os.Exit(1)
}

// runCore runs ctxls-core as a child with stdin (already read by this
// process) and returns its exit code.
func runCore(core string, args []string, stdin []byte) int {
	cmd := exec.Command(core, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "ctxls: run %s: %v\n", core, err)
	return 1
}
