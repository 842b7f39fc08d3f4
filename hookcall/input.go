package hookcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
)

// InputWait bounds the read of a hook's stdin: the hook's default deadline
// (hooks.DefaultDeadline; equal by a test in package hooks). Claude Code
// writes the input at once and closes the pipe; a writer that has not done
// so by then gets no answer, instead of holding the session up.
const InputWait = time.Second

// ErrInputTimeout is returned by ReadInput when stdin was not closed within
// its wait.
var ErrInputTimeout = errors.New("hook input not complete within the hook's deadline")

// ReadInput reads a hook's stdin, up to MaxInput+1 bytes, for at most
// wait. On ErrInputTimeout the read goes on in the background; the caller
// answers nothing and exits, which ends it. A pipe's read deadline cannot
// be set when the pipe is in blocking mode, as a process's stdin usually
// is: hence the goroutine.
func ReadInput(r io.Reader, wait time.Duration) ([]byte, error) {
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
		done <- read{data, err}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case rd := <-done:
		return rd.data, rd.err
	case <-t.C:
		return nil, fmt.Errorf("%w (%v)", ErrInputTimeout, wait)
	}
}

// LogWarn appends a warning to root's .ctxls/ctxls.log in the JSON lines
// the full program's logger writes, for the thin client, which has no
// logger of its own. It creates neither the directory nor, beyond the
// file, anything in it; errors are ignored: it is a last word before the
// process exits.
func LogWarn(root, msg string, fields map[string]any) {
	dir := workspace.Dir(root)
	if _, err := os.Stat(dir); err != nil {
		return
	}
	rec := map[string]any{"level": "warn", "ts": time.Now().UTC().Format("2006-01-02T15:04:05.000Z0700"), "msg": msg}
	for k, v := range fields {
		rec[k] = v
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "ctxls.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}
