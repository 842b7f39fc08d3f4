// Command ctxls-hook is the small client Claude Code runs for each hook:
// `ctxls-hook hook EVENT` (the arguments of `ctxls hook EVENT`, so that the
// two are interchangeable in settings). It hands the call to the
// workspace's hook daemon and prints its answer. Whenever the daemon cannot
// answer (none runs yet, another build, CTXLS_HOOK_DAEMON=0, flags it does
// not handle, unreadable input), it runs `ctxls hook` with the same input,
// which answers in-process, logs, and starts the daemon for the next call.
//
// It exists for speed: it links only the standard library and starts in
// about half the time of the full ctxls binary, whose 130 packages'
// initialisation and page faults were a third of a hook call answered by the
// daemon (docs/decisions/0083).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ctxls/ctxls/hookcall"
)

// wait bounds a call to the daemon. The daemon answers within the hook's
// deadline (configurable, 1 s by default) plus a grace period; Claude Code's
// own timeout for the hook is the real bound.
const wait = 10 * time.Second

func main() {
	// A hook never fails the session: whatever happens, exit 0.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "ctxls-hook: internal error: %v\n", r)
		}
		os.Exit(0)
	}()
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, hookcall.MaxInput+1))
	if err != nil {
		data = nil
	}
	ctxls, err := fullBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ctxls-hook: %v\n", err)
		return
	}
	if out, ok := viaDaemon(ctxls, args, data); ok {
		if len(out) > 0 {
			os.Stdout.Write(append(out, '\n'))
		}
		return
	}
	// In-process, in the full binary; its exit code is ignored on purpose
	// (it is 0 by design, and a hook must not fail).
	cmd := exec.Command(ctxls, append([]string{"hook"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	_ = cmd.Run()
}

// fullBinary is the ctxls executable beside this one, else ctxls on PATH.
func fullBinary() (string, error) {
	if exe, err := hookcall.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "ctxls")
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("ctxls")
	if err != nil {
		return "", errors.New("no ctxls binary beside ctxls-hook or on PATH")
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// viaDaemon asks the workspace's daemon; ok is false when the full binary
// must answer.
func viaDaemon(ctxls string, args []string, data []byte) (out []byte, ok bool) {
	// Flags (--budget, --deadline, --root) and unknown arguments are the
	// full binary's business.
	if len(args) != 1 || hookcall.Off() || len(data) > hookcall.MaxInput {
		return nil, false
	}
	var in struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, false
	}
	home, _ := os.UserHomeDir()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp, err := hookcall.Call(ctx, &hookcall.Request{
		Identity: hookcall.Identity(ctxls), Home: home, Event: args[0], Root: hookcall.FindRoot(in.Cwd),
		Input: data,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, true // too late for any answer
	case err != nil || resp.Refused != "":
		return nil, false
	}
	return resp.Output, true
}
