package pgtest

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// Package is the server shared by one test package: started by the first
// test that needs it, stopped by Main when the package's tests end, so a
// package whose PostgreSQL tests are filtered out starts nothing.
type Package struct {
	once   sync.Once
	server *Server
	err    error
}

// Main runs a test package's tests and stops its server. Call it from
// TestMain: os.Exit(pkg.Main(m)).
func (p *Package) Main(m *testing.M) int {
	code := m.Run()
	p.once.Do(func() {}) // no start after the end
	if p.server != nil {
		p.server.Stop()
	}
	return code
}

// Need returns the package's server, starting it on first use. It skips
// the test when the PostgreSQL binaries are absent, and fails it when they
// are present but the server does not start.
func (p *Package) Need(t testing.TB) *Server {
	t.Helper()
	p.once.Do(func() { p.server, p.err = Start(context.Background()) })
	if errors.Is(p.err, ErrNoPostgres) {
		t.Skipf("skipped: %v", p.err)
	}
	if p.err != nil {
		t.Fatalf("pgtest: %v", p.err)
	}
	return p.server
}
