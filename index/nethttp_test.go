package index

import (
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/config"
)

// TestRealCodeNetHTTP indexes the standard library's net/http and checks
// facts anyone can verify by reading it.
func TestRealCodeNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes real code")
	}
	src := filepath.Join(goroot(t), "src", "net", "http")
	root := t.TempDir()
	if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", src, err, out)
	}
	sum, st := run(t, root, config.Default())
	if sum.Parsed < 100 || sum.Entities < 3000 {
		t.Fatalf("suspiciously small index of net/http: %+v", sum)
	}
	ctx := context.Background()

	ents, err := st.EntitiesByName(ctx, "Serve", 50)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range ents {
		if e.QName == "http.Server.Serve" && e.Kind == "method" && e.Path == "http/server.go" {
			found = true
			if !strings.HasPrefix(e.Doc, "Serve accepts incoming connections") {
				t.Errorf("Server.Serve doc = %q", e.Doc)
			}
			if !strings.Contains(e.Signature, ") Serve(l net.Listener) error") {
				t.Errorf("Server.Serve signature = %q", e.Signature)
			}
		}
	}
	if !found {
		t.Fatalf("method http.Server.Serve not found among %d entities named Serve", len(ents))
	}
	if got := target(t, st, "http.ListenAndServe", "ListenAndServe"); got != "http.Server.ListenAndServe" {
		t.Errorf("ListenAndServe → ListenAndServe resolved to %q, want http.Server.ListenAndServe", got)
	}
	// Server.ListenAndServe calls srv.Serve, the method on the same type.
	if got := target(t, st, "http.Server.ListenAndServe", "Serve"); got != "http.Server.Serve" {
		t.Errorf("Server.ListenAndServe → Serve resolved to %q", got)
	}
	// errors is not in this workspace: errors.New is no guess at another New
	// (cookiejar.New is the one net/http's tree holds).
	var errorsNew sql.NullString
	if err := st.DB().QueryRow(`SELECT d.qname FROM refs r JOIN entities s ON s.id = r.src_id
		LEFT JOIN entities d ON d.id = r.dst_id WHERE s.qname = 'http.Client.do' AND r.name = 'New' AND r.qualifier = 'errors'`).Scan(&errorsNew); err != nil {
		t.Fatalf("Client.do → errors.New: %v", err)
	}
	if errorsNew.Valid {
		t.Errorf("Client.do → errors.New resolved to %q, want unresolved", errorsNew.String)
	}
	// A function used as a value is a reference: fn = defaultCheckRedirect.
	if got := target(t, st, "http.Client.checkRedirect", "defaultCheckRedirect"); got != "http.defaultCheckRedirect" {
		t.Errorf("Client.checkRedirect → defaultCheckRedirect resolved to %q", got)
	}
	// contains: the method's parent is the Server type.
	var parent string
	st.DB().QueryRow(`SELECT p.qname FROM entities e JOIN entities p ON p.id = e.parent_id WHERE e.qname = 'http.Server.Serve'`).Scan(&parent)
	if parent != "http.Server" {
		t.Errorf("parent of http.Server.Serve = %q", parent)
	}
}
