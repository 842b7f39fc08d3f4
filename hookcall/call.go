package hookcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// maxResponse bounds an answer: additionalContext is capped at 10,000
// characters, escaped and base64-encoded in the envelope.
const maxResponse = 1 << 20

// dialTimeout bounds connecting to a daemon: a live one accepts at once.
const dialTimeout = 200 * time.Millisecond

// Call sends req to the daemon serving req.Root and waits for its answer
// until ctx ends. It returns ErrNoDaemon when none listens; a Response with
// Refused set when the daemon would not serve it. Either way the caller
// answers in-process.
func Call(ctx context.Context, req *Request) (Response, error) {
	sock, err := SocketPath(req.Root)
	if err != nil {
		return Response{}, err
	}
	return CallSocket(ctx, sock, req)
}

// CallSocket is Call to the daemon listening on sock, whatever workspace
// it serves.
func CallSocket(ctx context.Context, sock string, req *Request) (Response, error) {
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return Response{}, ErrNoDaemon
		}
		return Response{}, fmt.Errorf("connect to hook daemon: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return Response{}, fmt.Errorf("send to hook daemon: %w", err)
	}
	var resp Response
	if err := json.NewDecoder(io.LimitReader(conn, maxResponse)).Decode(&resp); err != nil {
		return Response{}, fmt.Errorf("hook daemon answer: %w", err)
	}
	return resp, nil
}

// Stop asks the daemon serving root, if one does, to exit once the calls
// in flight are answered. It does not wait for the daemon to exit.
func Stop(ctx context.Context, root string) error {
	_, err := Call(ctx, &Request{Root: root, Stop: true})
	if errors.Is(err, ErrNoDaemon) {
		return nil
	}
	return err
}

// Sockets returns the sockets of this user's daemons, each of which may
// be stale (its daemon killed): CallSocket then returns ErrNoDaemon.
func Sockets() ([]string, error) {
	dir, err := socketDir()
	if err != nil {
		return nil, err
	}
	return filepath.Glob(filepath.Join(dir, "*.sock"))
}

// Ping checks that a daemon serves root: it answers a call without an
// event with an empty response.
func Ping(ctx context.Context, root string) error {
	_, err := Call(ctx, &Request{Root: root})
	return err
}

// Spawn starts `exe daemon --root root` in the background, in a session of
// its own with no standard streams, so that it outlives the hook process and
// holds none of Claude Code's pipes open. It does not wait for the daemon.
func Spawn(exe, root string) error {
	if err := Detach(exe, root, "daemon", "--root", root); err != nil {
		return fmt.Errorf("start hook daemon: %w", err)
	}
	return nil
}

// Detach starts exe with args in dir, in the background and in a session of
// its own with no standard streams, and does not wait for it.
func Detach(exe, dir string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
