package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/config"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/internal/wstest"
)

// checkExcerpts fails unless every excerpt of c is the file on disk at the
// lines its item names, byte for byte, starting with the item's
// declaration.
func checkExcerpts(t *testing.T, root string, c *Context) {
	t.Helper()
	for _, s := range c.Sections {
		for _, it := range s.Items {
			if it.Excerpt == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(it.Path)))
			if err != nil {
				t.Errorf("%s rendered from a file that cannot be read: %v", it.QName, err)
				continue
			}
			lines := strings.Split(string(data), "\n")
			n := strings.Count(it.Excerpt, "\n") + 1
			if it.Line < 1 || it.Line-1+n > len(lines) {
				t.Errorf("%s at %s:%d: excerpt of %d lines past the file's %d", it.QName, it.Path, it.Line, n, len(lines))
				continue
			}
			if want := strings.Join(lines[it.Line-1:it.Line-1+n], "\n"); it.Excerpt != want {
				t.Errorf("%s at %s:%d: excerpt\n%s\nfile there\n%s", it.QName, it.Path, it.Line, it.Excerpt, want)
			}
			// Read at stored lines from a changed file, the excerpt is the
			// file too, but of other code: the line must declare the item.
			if !strings.Contains(lines[it.Line-1], it.Name) {
				t.Errorf("%s at %s:%d: the line there declares no %s: %q", it.QName, it.Path, it.Line, it.Name, lines[it.Line-1])
			}
		}
	}
}

func itemNames(c *Context) []string {
	var out []string
	for _, s := range c.Sections {
		for _, it := range s.Items {
			out = append(out, it.Path+"#"+it.QName)
		}
	}
	return out
}

// Nothing is rendered from a file that no longer matches the index: a
// changed file is re-indexed first when the caller can, else left out; a
// deleted file's entities are left out (and, with a refresher, removed).
func TestAssembleRendersOnlyCurrentFiles(t *testing.T) {
	const service = "auth/service.go"
	// Two lines more above Login: its stored lines now hold other code.
	shifted := strings.Replace(files[service], "// Login verifies", "// ErrLocked is returned for a locked account.\nvar ErrLocked = error(nil)\n\n// Login verifies", 1)
	// The same length, so that with the mtime put back only the content
	// hash tells the change.
	sameSize := strings.Replace(files[service], "session token", "session tokex", 1)
	tests := []struct {
		name    string
		change  func(t *testing.T, path string)
		refresh bool
		// wantStale: service.go's entities are left out; wantLogin: the
		// context shows Login (from the current file).
		wantStale, wantLogin bool
		wantTracked          bool
		// between: the file is re-indexed by this process after the query
		// and before the assembly, as the hook daemon's follow loop does.
		between bool
	}{
		{name: "fresh", change: func(*testing.T, string) {}, wantLogin: true, wantTracked: true},
		{name: "changed, no refresher", change: write(shifted), wantStale: true, wantTracked: true},
		{name: "changed, refreshed", change: write(shifted), refresh: true, wantLogin: true, wantTracked: true},
		{name: "same size and mtime, other content", change: keepStat(sameSize), wantStale: true, wantTracked: true},
		{name: "same size and mtime, refreshed", change: keepStat(sameSize), refresh: true, wantLogin: true, wantTracked: true},
		{name: "deleted, no refresher", change: remove, wantStale: true, wantTracked: true},
		// Re-indexed: the file is gone from the index, so from the answer.
		{name: "deleted, refreshed", change: remove, refresh: true, wantTracked: false},
		// The query's lines are older than the rows the check reads: the
		// query is asked again rather than Login left out as wrong code.
		{name: "re-indexed after the query", change: write(shifted), between: true, wantLogin: true, wantTracked: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, st := wstest.Indexed(t, files)
			ctx := context.Background()
			tc.change(t, filepath.Join(root, service))
			req := Request{Text: "AuthService Login password check token", Limit: 20, MinRelevance: -1, EntitiesOnly: true}
			resp, err := Query(ctx, st, req)
			if err != nil {
				t.Fatal(err)
			}
			if tc.between {
				if _, err := index.Update(ctx, st, index.Options{Root: root, Config: config.Default()}, []index.Change{{Path: service}}); err != nil {
					t.Fatal(err)
				}
			}
			opts := ContextOptions{Root: root, MaxTokens: 4000, MaxSections: 10}
			if tc.refresh {
				opts.Refresh = &index.Fresh{Store: st, Options: index.Options{Root: root, Config: config.Default()}}
			}
			c, err := Assemble(ctx, st, req, resp, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkExcerpts(t, root, c)
			names := itemNames(c)
			login := slices.Contains(names, service+"#auth.AuthService.Login")
			if login != tc.wantLogin {
				t.Errorf("Login shown %v, want %v; items %v", login, tc.wantLogin, names)
			}
			if stale := slices.Contains(c.Stale, service); stale != tc.wantStale {
				t.Errorf("Stale %v, want %s stale: %v", c.Stale, service, tc.wantStale)
			}
			for _, r := range resp.Results {
				if tc.wantStale && r.Entity.Path == service {
					t.Errorf("response still ranks %s of a stale file", r.Entity.QName)
				}
			}
			if _, err := os.Stat(filepath.Join(root, service)); err != nil {
				for _, n := range names {
					if strings.HasPrefix(n, service+"#") {
						t.Errorf("%s shown from a deleted file", n)
					}
				}
			}
			_, tracked, err := st.FileByPath(ctx, service)
			if err != nil {
				t.Fatal(err)
			}
			if tracked != tc.wantTracked {
				t.Errorf("%s tracked %v after assembly, want %v", service, tracked, tc.wantTracked)
			}
			// Other files are untouched and still shown.
			if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "auth/store.go#") }) {
				t.Errorf("auth/store.go's entities missing: %v", names)
			}
		})
	}
}

func write(content string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		// A later mtime than the index saw, whatever the clock's grain.
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(2 * time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
}

// keepStat writes content (of the file's length) and puts the mtime back.
func keepStat(content string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(content)) != info.Size() {
			t.Fatalf("content of %d bytes for a file of %d", len(content), info.Size())
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
