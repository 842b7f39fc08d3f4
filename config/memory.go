package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/internal/workspace"
)

// Memory configures the memory store's scopes beyond the file scopes.
type Memory struct {
	Enterprise Enterprise `yaml:"enterprise"`
}

// Enterprise configures a team's shared enterprise scope on PostgreSQL
// (docs/TEAM-MEMORY.md). An empty backend leaves the enterprise scope to
// the memory plugin's config.json (a directory).
type Enterprise struct {
	// Backend is "postgres" or "" (off).
	Backend string `yaml:"backend"`
	// DSN is the connection string (postgres://… or key=value), with TLS
	// options such as sslmode passed through. CTXLS_ENTERPRISE_DSN
	// overrides it, so a secret need not live in the workspace. It is
	// never logged or printed.
	DSN string `yaml:"dsn"`
	// Schema is the PostgreSQL schema holding the tables (default ctxls).
	Schema string `yaml:"schema"`
	// Project separates one project's rows from another's in a shared
	// database; "" is the team-wide project.
	Project string `yaml:"project"`
}

// EnterpriseDSNEnv overrides memory.enterprise.dsn.
const EnterpriseDSNEnv = "CTXLS_ENTERPRISE_DSN"

// ValidSchemaName reports what a schema name may be: it is put into SQL as
// an identifier, so only plain lowercase names of at most 63 bytes are
// accepted. (Not a regexp: a counted repetition compiles to a copy per
// count, and a package-level one cost every process 3 ms at start.)
func ValidSchemaName(s string) bool {
	if s == "" || len(s) > 63 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// isProjectKey reports what a project key may be: at most 200 letters,
// digits and . _ / -.
func isProjectKey(s string) bool {
	if len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-", r)) {
			return false
		}
	}
	return true
}

// Postgres reports whether the enterprise scope is on PostgreSQL.
func (e Enterprise) Postgres() bool { return e.Backend == "postgres" }

// ResolvedDSN returns the DSN, CTXLS_ENTERPRISE_DSN first.
func (e Enterprise) ResolvedDSN() string {
	if v := os.Getenv(EnterpriseDSNEnv); v != "" {
		return v
	}
	return e.DSN
}

// SchemaName returns the schema, ctxls by default.
func (e Enterprise) SchemaName() string {
	if e.Schema == "" {
		return "ctxls"
	}
	return e.Schema
}

func (e Enterprise) validate() error {
	switch e.Backend {
	case "":
		return nil
	case "postgres":
	default:
		return fmt.Errorf("memory.enterprise.backend must be postgres or empty, got %q", e.Backend)
	}
	if !ValidSchemaName(e.SchemaName()) {
		return fmt.Errorf("memory.enterprise.schema must be a lowercase identifier (letters a-z, digits, _, not starting with a digit, at most 63), got %q", e.Schema)
	}
	if !isProjectKey(e.Project) {
		return fmt.Errorf("memory.enterprise.project must be at most 200 letters, digits and . _ / -, got %q", e.Project)
	}
	return nil
}

// EnterpriseCacheDir is the local read cache of a workspace's enterprise
// scope on PostgreSQL: the scope's memories as files, which the hooks,
// the language server and the MCP server read without the network.
func EnterpriseCacheDir(root string) string {
	return filepath.Join(workspace.Dir(root), "enterprise-cache")
}
