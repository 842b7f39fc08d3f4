// Package hookcall is the calling side of the hook daemon (package hookd):
// the request and response, where a workspace's daemon listens, and how to
// call or start it. It imports only the standard library, so that the thin
// client (cmd/ctxls) starts in a fraction of the time of the full program,
// ctxls-core (docs/decisions/0083, 0086).
package hookcall

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Request is one hook call, as the client process received it.
type Request struct {
	// Identity names the client's build (see Identity); a daemon of another
	// build refuses the call.
	Identity string `json:"identity"`
	// Home is the client's home directory: user-level sources
	// (~/.claude) are read from it.
	Home  string `json:"home"`
	Event string `json:"event"`
	Root  string `json:"root"`
	// Budget and Deadline are the command line's values; the Set flags
	// say they override the workspace's configuration.
	Budget      int           `json:"budget"`
	Deadline    time.Duration `json:"deadline"`
	BudgetSet   bool          `json:"budgetSet,omitempty"`
	DeadlineSet bool          `json:"deadlineSet,omitempty"`
	// Input is the hook's stdin, unparsed.
	Input []byte `json:"input"`
	// Query, when set, asks for `ctxls query` output instead of a hook
	// answer (Event is then empty).
	Query *Query `json:"query,omitempty"`
	// Stop asks the daemon to exit once the calls in flight are answered
	// (whatever its build); see Stop.
	Stop bool `json:"stop,omitempty"`
	// Info asks the daemon what it serves (Response.Daemon), whatever
	// its build; see List.
	Info bool `json:"info,omitempty"`
	// Index, when set, asks for `ctxls index` output: the daemon answers
	// only when it has followed every change since a whole walk.
	Index *Index `json:"index,omitempty"`
	// Walked tells the daemon that a whole index walk of its workspace
	// finished (see Walked).
	Walked *Walked `json:"walked,omitempty"`
}

// Index is a `ctxls index` call the daemon may answer without a walk.
type Index struct {
	JSON bool `json:"json,omitempty"`
}

// Walked is the notice of a whole index walk that finished: Started is
// when it began. The index then matches every file that had not changed
// since Started, so a daemon that watched the tree from before Started
// knows the index is current (hookd's follow).
type Walked struct {
	Started time.Time `json:"started"`
}

// Query is a `ctxls query` call: its text and flags.
type Query struct {
	Text         string   `json:"text"`
	Limit        int      `json:"limit"`
	MinRelevance float64  `json:"minRelevance"`
	ActiveFiles  []string `json:"activeFiles,omitempty"`
	JSON         bool     `json:"json,omitempty"`
	Explain      bool     `json:"explain,omitempty"`
}

// Response is the daemon's answer to a Request.
type Response struct {
	// Output is what the hook prints (empty: nothing).
	Output []byte `json:"output,omitempty"`
	// Refused, when set, says why the daemon did not serve the call; the
	// client answers it in-process.
	Refused string `json:"refused,omitempty"`
	// Error is a query's failure, to report as the command's error.
	Error string `json:"error,omitempty"`
	// Note is what a query's command prints on stderr beside Output: that
	// the index is being built and the answer may be incomplete.
	Note string `json:"note,omitempty"`
	// Daemon answers an Info request.
	Daemon *DaemonInfo `json:"daemon,omitempty"`
}

// DaemonInfo is what a daemon says of itself (`ctxls daemon list`).
type DaemonInfo struct {
	Root     string    `json:"root"`
	PID      int       `json:"pid"`
	Identity string    `json:"identity"` // its build (see Identity)
	Started  time.Time `json:"started"`
	LastCall time.Time `json:"last_call"`
	// Following is how the daemon follows the workspace's files.
	Following *Following `json:"following,omitempty"`
}

// Following is what a daemon says of how it keeps the index current with
// the files on disk (`ctxls doctor` reports it).
type Following struct {
	// Dirs is how many directories are watched; 0 with NoWatcher set.
	Dirs int `json:"dirs"`
	// NoWatcher, when set, is why no directory is watched: changes are
	// found when a file is rendered (checked against the disk) or by the
	// next `ctxls index`.
	NoWatcher string `json:"no_watcher,omitempty"`
	// Partial, when set, says why some directories are not watched;
	// changes in them are found as without a watcher.
	Partial string `json:"partial,omitempty"`
	// Current says a whole walk ran since the watches were in place and no
	// event was lost since: the index follows every change.
	Current bool `json:"current"`
	// Lost is why the index was last found not to follow the tree (a lost
	// event, a change to the ignore rules, a checkout of many files).
	Lost string `json:"lost,omitempty"`
}

// Off says whether CTXLS_HOOK_DAEMON=0 in the environment keeps this
// process's calls away from the daemon.
func Off() bool { return os.Getenv("CTXLS_HOOK_DAEMON") == "0" }

// ErrNoDaemon means no daemon is listening for the workspace.
var ErrNoDaemon = errors.New("no hook daemon for this workspace")

// SocketPath returns the socket of the daemon serving root for this user.
// It lives in a private per-user directory ($XDG_RUNTIME_DIR, else the
// temporary directory) rather than under root/.ctxls: a unix socket path is
// limited to 107 bytes, and workspace paths are often longer.
//
// The name is 96 bits of FNV-1a of root: a name, not a secret, in a
// directory only the user can write. crypto/sha256 named it before, and
// linked Go's FIPS 140 module into the thin client, whose initialisation
// ran on every hook call (7 % of a call's CPU; docs/PERFORMANCE.md, stop 26).
func SocketPath(root string) (string, error) {
	dir, err := socketDir()
	if err != nil {
		return "", err
	}
	h := fnv.New128a()
	h.Write([]byte(root))
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:12])+".sock"), nil
}

// LockPath is the lock file of the daemon listening on sock (SocketPath):
// the daemon holds it for its whole life and releases it once it has
// closed the index, so that one daemon serves a workspace.
func LockPath(sock string) string { return sock + ".lock" }

// socketDir returns the per-user directory of daemon sockets, creating it
// private to the user. An existing directory that another user owns or
// others can write to is refused: its sockets could be anyone's.
func socketDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	uid := os.Getuid()
	dir := filepath.Join(base, "ctxls-"+strconv.Itoa(uid))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("hook daemon directory %s: %w", dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("hook daemon directory %s: %w", dir, err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !info.IsDir() || !ok || int(st.Uid) != uid || info.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("hook daemon directory %s is not a private directory of this user", dir)
	}
	return dir, nil
}

// Identity names a build of ctxls by its executable: path, size and
// modification time. A daemon serves only clients that name its own
// executable, so that an upgrade (or a rebuild during development) never
// leaves an old daemon answering for a new binary.
func Identity(exe string) string {
	info, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s %d %d", exe, info.Size(), info.ModTime().UnixNano())
}

// Executable returns the running program's path with symbolic links
// resolved.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe, nil
}

// MaxInput is the largest hook input (stdin) accepted.
const MaxInput = 16 << 20
