package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// Package is the server shared by one test package, started by Main.
type Package struct {
	Server *Server
	// Missing is why there is no server: only ErrNoPostgres lets tests
	// skip; any other failure to start fails Main.
	Missing error
}

// Main starts one server for a test package, runs its tests and stops the
// server. Call it from TestMain: os.Exit(pkg.Main(m)).
func (p *Package) Main(m *testing.M) int {
	srv, err := Start(context.Background())
	switch {
	case errors.Is(err, ErrNoPostgres):
		p.Missing = err
	case err != nil:
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		return 1
	default:
		p.Server = srv
		defer srv.Stop()
	}
	return m.Run()
}

// Need skips the test when the PostgreSQL binaries are absent and returns
// the package's server.
func (p *Package) Need(t testing.TB) *Server {
	t.Helper()
	if p.Server == nil {
		t.Skipf("skipped: %v", p.Missing)
	}
	return p.Server
}
