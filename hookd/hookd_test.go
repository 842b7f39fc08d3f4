package hookd

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
	"github.com/ctxls/ctxls/internal/wstest"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/hooks"
	"github.com/ctxls/ctxls/store"
)

const authGo = `package auth

// AuthService checks credentials and issues session tokens.
type AuthService struct{ users map[string]string }

// Login checks a password and returns a session token.
func (a *AuthService) Login(user, password string) (string, error) {
	if a.users[user] != password {
		return "", nil
	}
	return issueToken(user), nil
}

func issueToken(user string) string { return "t-" + user }
`

// testWorkspace is an indexed workspace with sockets in a private directory.
func testWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	root := t.TempDir()
	wstest.Write(t, root, map[string]string{"auth/auth.go": authGo})
	wstest.Index(t, root)
	return root
}

// serve runs a daemon for root until the test ends; its Serve result
// arrives on the returned channel.
func serve(t testing.TB, root, identity string) <-chan error {
	t.Helper()
	return serveWith(t, ServeOptions{Root: root, Identity: identity})
}

// serveWith is serve with every option.
func serveWith(t testing.TB, opts ServeOptions) <-chan error {
	t.Helper()
	root := opts.Root
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	stopped := make(chan struct{})
	go func() {
		done <- Serve(ctx, opts)
		close(stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop")
		}
	})
	sock, err := hookcall.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(sock); err == nil {
			return done
		}
		select {
		case err := <-done:
			t.Fatalf("daemon stopped before listening: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("daemon socket never appeared")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func prompt(root, session string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": session, "cwd": root, "hook_event_name": "UserPromptSubmit",
		"prompt": "Why does AuthService.Login reject valid passwords?"})
	return b
}

func request(root, identity string, input []byte) *hookcall.Request {
	home, _ := os.UserHomeDir()
	return &hookcall.Request{Identity: identity, Home: home, Event: "user-prompt-submit", Root: root,
		Budget: hooks.DefaultBudget, Deadline: hooks.DefaultDeadline, Input: input}
}

// The daemon answers exactly what the hook answers in its own process.
func TestDaemonAnswersAsInProcess(t *testing.T) {
	root := testWorkspace(t)
	serve(t, root, "build-1")
	ctx := context.Background()
	want, err := hooks.Run(ctx, "user-prompt-submit", prompt(root, "in-process"), hooks.Options{Root: root})
	if err != nil || len(want) == 0 {
		t.Fatalf("in-process answer %q, %v", want, err)
	}
	resp, err := hookcall.Call(ctx, request(root, "build-1", prompt(root, "daemon")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Refused != "" || string(resp.Output) != string(want) {
		t.Errorf("daemon answered %q (refused %q), want %q", resp.Output, resp.Refused, want)
	}
	// The same session again: its items were injected already.
	again, err := hookcall.Call(ctx, request(root, "build-1", prompt(root, "daemon")))
	if err != nil || len(again.Output) != 0 {
		t.Errorf("second call in the session: %q, %v; want nothing", again.Output, err)
	}
}

// A client of another build is refused, and the daemon makes way for one of
// that build.
func TestDaemonRefusesAnotherBuild(t *testing.T) {
	root := testWorkspace(t)
	done := serve(t, root, "build-1")
	resp, err := hookcall.Call(context.Background(), request(root, "build-2", prompt(root, "s")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Refused == "" || len(resp.Output) != 0 {
		t.Errorf("call from another build: %+v, want refused", resp)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("daemon kept running after a client of another build called")
	}
	if _, err := hookcall.Call(context.Background(), request(root, "build-2", prompt(root, "s"))); !errors.Is(err, hookcall.ErrNoDaemon) {
		t.Errorf("after the daemon stopped: %v, want hookcall.ErrNoDaemon", err)
	}
}

// A client that finds the socket can connect: the daemon's socket appears
// only once it listens. Spinning on the file catches a socket bound but not
// yet listening.
func TestSocketAppearsListening(t *testing.T) {
	root := testWorkspace(t)
	sock, err := hookcall.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, ServeOptions{Root: root, Identity: "build-1"}) }()
		for deadline := time.Now().Add(10 * time.Second); ; {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("daemon socket never appeared")
			}
		}
		err := hookcall.Ping(context.Background(), root)
		cancel()
		if serr := <-done; serr != nil {
			t.Fatalf("start %d: Serve: %v", i, serr)
		}
		if err != nil {
			t.Fatalf("start %d: the socket existed but Ping: %v", i, err)
		}
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after the daemon stopped: %v", err)
	}
}

// A daemon whose socket another daemon replaced stops, and leaves the new
// socket in place.
func TestDaemonLeavesItsReplacement(t *testing.T) {
	root := testWorkspace(t)
	done := serve(t, root, "build-1")
	sock, _ := hookcall.SocketPath(root)
	other := filepath.Join(filepath.Dir(sock), "other.sock")
	ln, err := net.Listen("unix", other)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Rename(other, sock); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(3 * checkEvery):
		t.Fatal("daemon kept running after its socket was replaced")
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("the replacing socket: %v", err)
	}
}

func TestOneDaemonPerWorkspace(t *testing.T) {
	root := testWorkspace(t)
	serve(t, root, "build-1")
	if err := Serve(context.Background(), ServeOptions{Root: root, Identity: "build-1"}); !errors.Is(err, ErrRunning) {
		t.Errorf("second daemon: %v, want ErrRunning", err)
	}
}

// A daemon whose workspace lost its index (rm -rf .ctxls, a deleted
// checkout) or its state file exits instead of lingering, or writing
// sessions into a file no other process reads.
func TestDaemonStopsWhenItsFilesAreDeleted(t *testing.T) {
	for name, remove := range map[string]func(root string) error{
		// Short names: the test's name is in the socket's path, which
		// may hold 107 bytes.
		"dir":   func(root string) error { return os.RemoveAll(workspace.Dir(root)) },
		"state": func(root string) error { return os.Remove(store.StatePath(root)) },
	} {
		t.Run(name, func(t *testing.T) {
			root := testWorkspace(t)
			done := serve(t, root, "build-1")
			if err := remove(root); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(3 * checkEvery):
				t.Fatalf("daemon kept running after %s was deleted", name)
			}
		})
	}
}

func TestCallWithoutDaemon(t *testing.T) {
	root := testWorkspace(t)
	if _, err := hookcall.Call(context.Background(), request(root, "build-1", prompt(root, "s"))); !errors.Is(err, hookcall.ErrNoDaemon) {
		t.Errorf("Call: %v, want hookcall.ErrNoDaemon", err)
	}
}

// The socket directory must be private: one that others can write to is
// refused.
func TestSocketDirMustBePrivate(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	if _, err := hookcall.SocketPath("/w"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ctxls-"+strconv.Itoa(os.Getuid()))
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := hookcall.SocketPath("/w"); err == nil {
		t.Error("a world-writable socket directory was accepted")
	}
}

// hooks.daemon: false in the workspace's configuration stops a running
// daemon (the hook processes stop asking it at once).
func TestDaemonStopsWhenTurnedOff(t *testing.T) {
	root := testWorkspace(t)
	done := serve(t, root, "build-1")
	if err := os.WriteFile(config.File(root), []byte("hooks:\n  daemon: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(3 * checkEvery):
		t.Fatal("daemon kept running after hooks.daemon: false")
	}
}

// A damaged index file stops the daemon: the caller answers in its own
// process, whose store.Open moves the file aside and starts a new index.
func TestDaemonStopsOnACorruptIndex(t *testing.T) {
	root := testWorkspace(t)
	done := serve(t, root, "build-1")
	if err := os.WriteFile(store.Path(root), []byte("garbage, not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := hookcall.Call(context.Background(), request(root, "build-1", prompt(root, "s")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Refused == "" {
		t.Errorf("call on a corrupt index: %+v, want refused", resp)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("daemon kept running on a corrupt index")
	}
}
