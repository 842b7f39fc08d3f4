package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/internal/workspace"
)

// hookWait bounds a hook call to the daemon. The daemon answers within the
// hook's deadline (configurable, 1 s by default) plus a grace period; Claude
// Code's own timeout for the hook is the real bound.
const hookWait = 10 * time.Second

// isHook says whether args are a plain hook call, `hook EVENT`: the form
// `ctxls init` installs. Flags (--budget, --deadline, --root) are
// ctxls-core's business.
func isHook(args []string) bool {
	return len(args) == 2 && args[0] == "hook" && len(args[1]) > 0 && args[1][0] != '-'
}

// hook answers the hook event through the workspace's daemon, else by
// running ctxls-core with the same input (which answers in-process, logs,
// and starts the daemon). It returns the exit code.
func hook(core, event string) (code int) {
	// A hook never fails the session.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "ctxls: internal error: %v\n", r)
			code = 0
		}
	}()
	data, err := hookcall.ReadInput(os.Stdin, hookcall.InputWait)
	if errors.Is(err, hookcall.ErrInputTimeout) {
		// Nothing can be answered without the input, and waiting longer
		// holds the session up.
		hookcall.LogWarn(workspace.FindRoot(""), "hook answered nothing: its input was not read", map[string]any{"event": event, "error": err.Error()})
		return 0
	}
	if err != nil {
		data = nil
	}
	if out, ok := hookViaDaemon(core, event, data); ok {
		if len(out) > 0 {
			os.Stdout.Write(append(out, '\n'))
		}
		return 0
	}
	return runCore(core, []string{"hook", event}, data)
}

// hookViaDaemon asks the workspace's daemon; ok is false when ctxls-core
// must answer.
func hookViaDaemon(core, event string, data []byte) (out []byte, ok bool) {
	if hookcall.Off() || len(data) > hookcall.MaxInput {
		return nil, false
	}
	var in struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, false
	}
	resp, answered, late := ask(core, &hookcall.Request{Event: event, Root: workspace.FindRoot(in.Cwd), Input: data}, hookWait)
	if late {
		return nil, true // too late for any answer
	}
	return resp.Output, answered
}
