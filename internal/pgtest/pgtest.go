// Package pgtest starts a private PostgreSQL server for tests: a fresh
// cluster in a temporary directory, listening on a loopback port and a
// socket in that directory, never a shared server. PostgreSQL refuses to
// run as root, so when the tests run as root (as CI does) the server runs
// as the package's unprivileged "postgres" user.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is a running private PostgreSQL server.
type Server struct {
	// DSN reaches the server's postgres database as its superuser.
	DSN  string
	Port int
	Dir  string
	cmd  *exec.Cmd
	bin  string
	// asUser is the user the server runs as ("" for the current one).
	asUser string
}

// ErrNoPostgres means the PostgreSQL binaries are not installed; callers
// skip their tests with it, and only with it.
var ErrNoPostgres = errors.New("PostgreSQL binaries (initdb, postgres) not found: apt-get install postgresql")

// binDir finds the directory holding initdb and postgres: PATH first, then
// Debian's versioned directories.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", ErrNoPostgres
}

// Start creates a cluster and starts its server; Stop ends it and removes
// its directory.
func Start(ctx context.Context) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root needs the postgres user to run the server: %w", err)
		}
		s.asUser = "postgres"
	}
	if s.Dir, err = os.MkdirTemp("", "ctxls-pg-"); err != nil {
		return nil, err
	}
	if s.asUser != "" {
		u, _ := user.Lookup(s.asUser)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(s.Dir, uid, gid); err != nil {
			os.RemoveAll(s.Dir)
			return nil, err
		}
	}
	data := filepath.Join(s.Dir, "data")
	if out, err := s.command(ctx, "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		os.RemoveAll(s.Dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// A few attempts: the free port found may be taken before the server
	// binds it.
	for attempt := 0; attempt < 5; attempt++ {
		if s.Port, err = freePort(); err != nil {
			break
		}
		if err = s.start(ctx); err == nil {
			return s, nil
		}
	}
	os.RemoveAll(s.Dir)
	return nil, err
}

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.asUser != "" {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", s.asUser, "--", path}, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
}

func (s *Server) start(ctx context.Context) error {
	log := filepath.Join(s.Dir, "server.log")
	lf, err := os.Create(log)
	if err != nil {
		return err
	}
	defer lf.Close()
	// Not CommandContext: the server outlives the ctx that started it.
	cmd := s.command(context.Background(), "postgres", "-D", filepath.Join(s.Dir, "data"), "-p", strconv.Itoa(s.Port),
		"-k", s.Dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200")
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.cmd = cmd
	exited := make(chan error, 1)
	// The local cmd, not s.cmd: StopServer clears the field while this
	// waits.
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			out, _ := os.ReadFile(log)
			return fmt.Errorf("postgres exited at start:\n%s", out)
		case <-ctx.Done():
			s.kill()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if exec.Command("pg_isready", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port)).Run() == nil {
			s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
			go func() { <-exited }()
			return nil
		}
	}
	s.kill()
	return errors.New("postgres did not accept connections within 30s")
}

// kill stops the server: SIGINT is PostgreSQL's fast shutdown. The signal
// goes to the process group, which holds runuser and the server.
func (s *Server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
	for i := 0; i < 200; i++ {
		if syscall.Kill(-s.cmd.Process.Pid, 0) != nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// StopServer stops the server and keeps its data, so that Restart can
// bring it back (the outage tests).
func (s *Server) StopServer() { s.kill(); s.cmd = nil }

// Restart starts a stopped server again on the same port.
func (s *Server) Restart(ctx context.Context) error { return s.start(ctx) }

// Stop stops the server and removes its directory.
func (s *Server) Stop() {
	s.kill()
	os.RemoveAll(s.Dir)
}

// CreateDatabase creates a database and returns its DSN, so that each test
// gets a fresh one on the package's server.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "psql", "-X", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres",
		"-d", "postgres", "-c", `CREATE DATABASE "`+strings.ReplaceAll(name, `"`, ``)+`"`).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("create database %s: %w\n%s", name, err, out)
	}
	return strings.Replace(s.DSN, "/postgres?", "/"+name+"?", 1), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Deadlocks is the number of deadlocks the server has detected in the
// database db (pg_stat_database.deadlocks): the server's own count, the
// oracle of a test that writers lock in one order. A backend reports its
// statistics when it has been idle a while or when it exits, and it leaves
// pg_stat_activity before it reports them on exit; so Deadlocks waits
// until no other client is connected to db, then until two reads a moment
// apart agree. Close the connections whose deadlocks are to be counted
// first.
func (s *Server) Deadlocks(ctx context.Context, db string) (int64, error) {
	lit := "'" + strings.ReplaceAll(db, "'", "''") + "'"
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := s.psql(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = `+lit+
			` AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if err != nil {
			return 0, err
		}
		if out == "0" {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("deadlocks of %s: %s clients still connected", db, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	read := func() (int64, error) {
		out, err := s.psql(ctx, `SELECT coalesce((SELECT deadlocks FROM pg_stat_database WHERE datname = `+lit+`), 0)`)
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(out, 10, 64)
	}
	n, err := read()
	for err == nil {
		time.Sleep(300 * time.Millisecond)
		var m int64
		if m, err = read(); err == nil && m == n {
			return n, nil
		}
		n = m
	}
	return 0, fmt.Errorf("deadlocks of %s: %w", db, err)
}

// psql runs one query as the superuser in the postgres database and
// returns its unaligned output.
func (s *Server) psql(ctx context.Context, query string) (string, error) {
	out, err := exec.CommandContext(ctx, "psql", "-X", "-qAt", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "postgres",
		"-d", "postgres", "-c", query).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql: %w\n%s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}
