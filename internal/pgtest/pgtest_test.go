package pgtest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

var pkg Package

func TestMain(m *testing.M) { os.Exit(pkg.Main(m)) }

func TestServerAnswersAndRestarts(t *testing.T) {
	srv := pkg.Need(t)
	ctx := context.Background()
	dsn, err := srv.CreateDatabase(ctx, "probe")
	if err != nil {
		t.Fatal(err)
	}
	if dsn == srv.DSN {
		t.Fatalf("database DSN %s is the server's", dsn)
	}
	ready := func() bool {
		return exec.Command("pg_isready", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port)).Run() == nil
	}
	srv.StopServer()
	if ready() {
		t.Fatal("server still answers after StopServer")
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if !ready() {
		t.Fatal("server does not answer after Restart")
	}
}
