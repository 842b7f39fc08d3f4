package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/retrieval"
	"github.com/ctxls/ctxls/store"
)

// The tests of issue 19's editor part (decision 0095): the auto-context is
// one view of the workspace, open buffers winning over the index and the
// disk, rewritten when the index catches up, and an unsaved edit that is
// discarded leaves neither the index nor the auto-context.

const service = "auth/service.go"

// readSnapshot reads auto-context.json; nil while it does not exist or is
// being replaced.
func readSnapshot(root string) *engine.Snapshot {
	data, err := os.ReadFile(engine.JSONFile(root))
	if err != nil {
		return nil
	}
	var snap engine.Snapshot
	if json.Unmarshal(data, &snap) != nil {
		return nil
	}
	return &snap
}

// contradictions lists what in snap disagrees with the buffer of service:
// an excerpt of that file that is not the buffer's text at its line, or an
// entity shown twice.
func contradictions(snap *engine.Snapshot, buffer string) []string {
	lines := strings.Split(buffer, "\n")
	var out []string
	shown := map[string]int{}
	for _, s := range snap.Sections {
		for _, it := range s.Items {
			if it.Kind != "file" {
				shown[it.Path+"#"+it.QName]++
			}
			if it.Path != service || it.Excerpt == "" {
				continue
			}
			n := strings.Count(it.Excerpt, "\n") + 1
			if it.Line < 1 || it.Line-1+n > len(lines) || strings.Join(lines[it.Line-1:it.Line-1+n], "\n") != it.Excerpt {
				out = append(out, "under "+s.Title+", "+it.QName+" is not the buffer's text at line "+strconv.Itoa(it.Line)+":\n"+it.Excerpt)
			}
		}
	}
	for k, n := range shown {
		if n > 1 {
			out = append(out, k+" shown "+strconv.Itoa(n)+" times")
		}
	}
	return out
}

func change(c *client, u protocol.DocumentURI, version int, line int, text string) {
	c.t.Helper()
	pos := map[string]any{"line": line, "character": 0}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": text}},
	})
}

// An edit of Login, seen while the index is behind the buffer and after
// it caught up: every auto-context written shows the file as the buffer
// has it, each entity once, and once the index holds the buffer the file's
// other entities come back, at the buffer's lines, without further
// activity.
func TestAutoContextIsOneViewOfAnEdit(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero, BufferFlush: 400 * time.Millisecond})
	c.initialize(root)
	u := open(t, c, root, service)
	c.notify("ctxls/message", map[string]any{"text": "how does Login check the password and issue the token?"})
	waitFile(t, engine.MarkdownFile(root), "asked: how does Login")

	// Three lines at the top of Login's body: issueToken moves down.
	guard := "\tif user == \"\" {\n\t\treturn \"\", ErrDenied\n\t}\n"
	buffer := strings.Replace(workspaceFiles[service], "\tif a.users[user]", guard+"\tif a.users[user]", 1)
	change(c, u, 2, 7, guard)

	deadline := time.Now().Add(15 * time.Second)
	var last *engine.Snapshot
	editing, caughtUp := false, false
	for time.Now().Before(deadline) && !(editing && caughtUp) {
		snap := readSnapshot(root)
		if snap == nil || (last != nil && snap.Generated.Equal(last.Generated) && snap.Markdown == last.Markdown) {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		last = snap
		if !strings.Contains(strings.Join(snap.Why, ";"), "edited Login") {
			continue // written before the edit arrived
		}
		for _, bad := range contradictions(snap, buffer) {
			t.Errorf("auto-context contradicts the buffer: %s\n%s", bad, snap.Markdown)
		}
		if len(snap.Sections) > 0 && snap.Sections[0].Title == "Editing" && strings.Contains(snap.Sections[0].Items[0].Excerpt, "if user == \"\"") {
			editing = true
			for _, s := range snap.Sections[1:] {
				for _, it := range s.Items {
					if it.Path == service && it.QName == "auth.issueToken" && it.Line == 17 {
						caughtUp = true
					}
				}
			}
		}
	}
	if !editing || !caughtUp {
		var md string
		if last != nil {
			md = last.Markdown
		}
		t.Fatalf("never an auto-context with the edit under Editing (%v) and the file's other code at the buffer's lines once the index caught up (%v); last:\n%s", editing, caughtUp, md)
	}
}

// entityCount counts the indexed entities named name.
func entityCount(t *testing.T, root, name string) int {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ents, err := st.EntitiesByName(context.Background(), name, 10)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// diskIsIndexed fails unless the index holds service as it is on disk.
func diskIsIndexed(t *testing.T, root string) {
	t.Helper()
	st, err := store.Open(context.Background(), root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, err := retrieval.Verify(context.Background(), st, root, []string{service})
	if err != nil {
		t.Fatal(err)
	}
	if states[service] != retrieval.Fresh {
		t.Errorf("the index holds %s %s, want it as on disk", service, states[service])
	}
}

const revoke = "\n// RevokeToken ends a session.\nfunc RevokeToken(tok string) bool { return tok != \"\" }\n"

// waitIndexed waits until the index has (or has not) a declaration named
// name, asking the server.
func waitIndexed(t *testing.T, c *client, name string, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ws []map[string]any
		if err := c.call("workspace/symbol", map[string]any{"query": name}, &ws); err != nil {
			t.Fatal(err)
		}
		if (len(ws) > 0) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s indexed: %v, want %v", name, len(ws) > 0, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An unsaved edit that is discarded (closed without saving, or the editor
// quitting) leaves the index and the auto-context; an editor that opens a
// buffer differing from the disk (restored unsaved work) has it indexed as
// an edit would be.
func TestDiscardedEditLeavesNoTrace(t *testing.T) {
	edited := workspaceFiles[service] + revoke
	tests := []struct {
		name string
		// edit makes the buffer differ from the disk.
		edit func(c *client, u protocol.DocumentURI)
		// discard ends the buffer without saving.
		discard func(t *testing.T, c *client, u protocol.DocumentURI)
		open    string // the text didOpen sends; "" is the disk's
	}{
		{
			name: "didChange, then didClose",
			edit: func(c *client, u protocol.DocumentURI) { change(c, u, 2, 14, revoke) },
			discard: func(t *testing.T, c *client, u protocol.DocumentURI) {
				c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
			},
		},
		{
			name: "didChange, then shutdown",
			edit: func(c *client, u protocol.DocumentURI) { change(c, u, 2, 14, revoke) },
			discard: func(t *testing.T, c *client, u protocol.DocumentURI) {
				if err := c.call("shutdown", nil, nil); err != nil {
					t.Fatal(err)
				}
				c.notify("exit", nil)
				select {
				case code := <-c.code:
					c.code <- code
				case <-time.After(10 * time.Second):
					t.Fatal("server did not exit")
				}
			},
		},
		{
			name: "restored buffer opened, then the client disconnects",
			open: edited,
			discard: func(t *testing.T, c *client, u protocol.DocumentURI) {
				c.conn.Close()
				select {
				case code := <-c.code:
					c.code <- code
				case <-time.After(10 * time.Second):
					t.Fatal("server did not stop")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeWorkspace(t)
			zero := time.Duration(0)
			c := startServer(t, Options{NoWatch: true, Debounce: &zero, BufferFlush: 50 * time.Millisecond})
			c.initialize(root)
			u := uri.File(filepath.Join(root, service))
			text := tc.open
			if text == "" {
				text = workspaceFiles[service]
			}
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": text}})
			if tc.edit != nil {
				tc.edit(c, u)
			} else {
				// An open alone is not an edit: make the buffer's symbols
				// part of the context.
				c.notify("ctxls/message", map[string]any{"text": "what does RevokeToken do?"})
			}
			waitIndexed(t, c, "RevokeToken", true)
			waitFile(t, engine.MarkdownFile(root), "RevokeToken")

			tc.discard(t, c, u)
			deadline := time.Now().Add(10 * time.Second)
			for entityCount(t, root, "RevokeToken") > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := entityCount(t, root, "RevokeToken"); n > 0 {
				t.Errorf("the discarded RevokeToken is still indexed (%d entities)", n)
			}
			diskIsIndexed(t, root)
			var md []byte
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				md, _ = os.ReadFile(engine.MarkdownFile(root))
				if !strings.Contains(string(md), "func RevokeToken") || time.Now().After(deadline) {
					break
				}
			}
			// The message names RevokeToken in the "why" line; the code must
			// be gone.
			if strings.Contains(string(md), "func RevokeToken") {
				t.Errorf("auto-context keeps the discarded edit:\n%s", md)
			}
		})
	}
}

// A change on disk under a buffer with unsaved changes does not replace the
// buffer in the index (the editor's text is newer); once saved, changes on
// disk are taken again (the one funnel, session/queue.go).
func TestDiskChangeUnderAnUnsavedBuffer(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{Debounce: &zero, BufferFlush: 50 * time.Millisecond})
	c.initialize(root)
	u := open(t, c, root, service)
	change(c, u, 2, 14, revoke)
	waitIndexed(t, c, "RevokeToken", true)

	abs := filepath.Join(root, service)
	onDisk := workspaceFiles[service] + "\nfunc DiskOnly() {}\n"
	if err := os.WriteFile(abs, []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	// The watcher's event has had time to reach the queue and the queue to
	// flush (50 ms) many times over.
	time.Sleep(time.Second)
	waitIndexed(t, c, "RevokeToken", true)
	waitIndexed(t, c, "DiskOnly", false)

	// The editor saves its buffer: the disk is the truth again.
	saved := workspaceFiles[service] + revoke
	if err := os.WriteFile(abs, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": u}})
	waitIndexed(t, c, "RevokeToken", true)
	// Now a change on disk (a formatter, git) under the clean buffer is
	// taken in.
	if err := os.WriteFile(abs, []byte(saved+"\nfunc DiskOnly() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, c, "DiskOnly", true)
}
