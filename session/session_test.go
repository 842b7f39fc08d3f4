package session

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/engine"
	"github.com/ctxls/ctxls/internal/wstest"
)

var files = map[string]string{
	"auth/service.go": `package auth

// Login verifies a password and returns a session token.
func Login(user, password string) string {
	return issueToken(user)
}

func issueToken(user string) string { return "t-" + user }
`,
}

// statuses records what a session reports, newest last.
type statuses struct {
	mu  sync.Mutex
	all []Status
}

func (s *statuses) add(st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, st)
}

func (s *statuses) last() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.all) == 0 {
		return Status{}
	}
	return s.all[len(s.all)-1]
}

// open starts a session over an indexed copy of files, with the index
// queue held for an hour so that a test can read what was queued.
func open(t *testing.T) (*Session, *Folder, *statuses) {
	t.Helper()
	root, _ := wstest.Indexed(t, files)
	hour := time.Hour
	st := &statuses{}
	s := New(Options{NoWatch: true, NoIndex: true, Debounce: &hour, BufferFlush: time.Hour, OnStatus: st.add})
	t.Cleanup(s.Close)
	f := s.AddFolder(context.Background(), root)
	if f == nil {
		t.Fatal("folder not opened")
	}
	return s, f, st
}

// queued returns what the folder's queue holds for rel: ok false when
// nothing, else whether it is a buffer and the buffer's text.
func queued(f *Folder, rel string) (ok, buffer bool, text string) {
	f.pendingMu.Lock()
	defer f.pendingMu.Unlock()
	c, ok := f.pending[rel]
	if !ok || c == nil {
		return ok, false, ""
	}
	return true, true, string(*c)
}

// Every change, whichever way it comes, queues for the index the text the
// index should hold: the buffer while it differs from the disk, else the
// disk; nothing while an unsaved buffer is newer than the disk.
func TestModificationsQueueWhatTheIndexShouldHold(t *testing.T) {
	const rel = "auth/service.go"
	edit := Edit{Range: &Range{Start: Position{Line: 0, Character: 0}, End: Position{Line: 0, Character: 0}}, Text: "// edited\n"}
	tests := []struct {
		name string
		// before runs first, its queue then cleared.
		before     func(s *Session, m Modification)
		mod        func(m Modification) Modification
		wantQueued bool
		wantBuffer string // "" with wantQueued: from disk
	}{
		{
			name: "open as on disk",
			mod:  func(m Modification) Modification { m.Action, m.Text = Open, []byte(files[rel]); return m },
		},
		{
			name: "open unsaved (hot exit)",
			mod: func(m Modification) Modification {
				m.Action, m.Text = Open, []byte(files[rel]+"\n// unsaved\n")
				return m
			},
			wantQueued: true, wantBuffer: files[rel] + "\n// unsaved\n",
		},
		{
			name:       "change",
			before:     openAsOnDisk,
			mod:        func(m Modification) Modification { m.Action, m.Edits, m.Version = Change, []Edit{edit}, 2; return m },
			wantQueued: true, wantBuffer: "// edited\n" + files[rel],
		},
		{
			name:       "save",
			before:     openAndEdit(edit),
			mod:        func(m Modification) Modification { m.Action = Save; return m },
			wantQueued: true,
		},
		{
			name:       "close unsaved",
			before:     openAndEdit(edit),
			mod:        func(m Modification) Modification { m.Action = Close; return m },
			wantQueued: true,
		},
		{
			name:   "close saved",
			before: openAsOnDisk,
			mod:    func(m Modification) Modification { m.Action = Close; return m },
		},
		{
			name:       "on disk, not open",
			mod:        func(m Modification) Modification { m.Action = OnDisk; return m },
			wantQueued: true,
		},
		{
			name:   "on disk under an unsaved buffer",
			before: openAndEdit(edit),
			mod:    func(m Modification) Modification { m.Action = OnDisk; return m },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, f, _ := open(t)
			abs := filepath.Join(f.Root(), filepath.FromSlash(rel))
			m := Modification{URI: string(uri.File(abs)), Path: abs, Version: 1}
			if tt.before != nil {
				tt.before(s, m)
				f.pendingMu.Lock()
				clear(f.pending)
				f.pendingMu.Unlock()
			}
			if err := s.DidModify(context.Background(), tt.mod(m)); err != nil {
				t.Fatal(err)
			}
			ok, buffer, text := queued(f, rel)
			switch {
			case ok != tt.wantQueued:
				t.Errorf("queued = %v, want %v", ok, tt.wantQueued)
			case ok && buffer != (tt.wantBuffer != ""):
				t.Errorf("queued a buffer = %v, want %v", buffer, tt.wantBuffer != "")
			case buffer && text != tt.wantBuffer:
				t.Errorf("queued buffer = %q, want %q", text, tt.wantBuffer)
			}
		})
	}
}

func openAsOnDisk(s *Session, m Modification) {
	m.Action, m.Text = Open, []byte(files["auth/service.go"])
	s.DidModify(context.Background(), m)
}

func openAndEdit(e Edit) func(*Session, Modification) {
	return func(s *Session, m Modification) {
		openAsOnDisk(s, m)
		m.Action, m.Edits, m.Version = Change, []Edit{e}, 2
		s.DidModify(context.Background(), m)
	}
}

// An auto-context write that began before an edit reached the index can
// end after it, with the count it started with: the last status must
// still carry the newest count, or the status bar shows the old one until
// the next write (seen in CI under load).
func TestLateAutoContextWriteKeepsTheNewestCount(t *testing.T) {
	s, f, st := open(t)
	ctx := context.Background()
	f.readyStatus(ctx)
	n := st.last().Entities
	if n == 0 {
		t.Fatal("no entities counted")
	}
	abs := filepath.Join(f.Root(), "auth", "service.go")
	m := Modification{Action: Open, URI: string(uri.File(abs)), Path: abs, Version: 1, Text: []byte(files["auth/service.go"])}
	if err := s.DidModify(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Action, m.Version = Change, 2
	m.Edits = []Edit{{Range: &Range{Start: Position{Line: 8}, End: Position{Line: 8}}, Text: "\nfunc RevokeToken(tok string) bool { return tok != \"\" }\n"}}
	if err := s.DidModify(ctx, m); err != nil {
		t.Fatal(err)
	}
	f.flush()
	if got := st.last(); got.State != "ready" || got.Entities <= n {
		t.Fatalf("status after the edit reached the index: %+v, want ready with more than %d entities", got, n)
	}
	f.written(&engine.Snapshot{Root: f.Root(), Entities: n})
	if got := st.last().Entities; got <= n {
		t.Errorf("status after a late auto-context write: %d entities, want more than %d", got, n)
	}
}
