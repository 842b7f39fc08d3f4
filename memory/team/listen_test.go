package team

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
)

// A listener hears each committed change of its project, and nothing of
// another project's or of a rolled-back write.
func TestListenHearsCommittedChanges(t *testing.T) {
	srv := pg.Need(t)
	s := openTeam(t, schemaFor(t))
	other, err := Open(context.Background(), Options{DSN: srv.DSN, Schema: s.Schema(), Project: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan Change, 16)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Listen(ctx, srv.DSN, "acme/app", func() { close(ready) }, func(c Change) { changes <- c })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatal("listener not ready")
	}
	if _, err := other.Write(ctx, newMem("decision-elsewhere", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	// An invalid link fails inside the transaction: no notification.
	if _, err := s.Write(ctx, newMem("decision-here", memory.Decision, "x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Link(ctx, "decision-here", "decision-missing", ""); err == nil {
		t.Fatal("link to a missing memory succeeded")
	}
	if _, err := s.Update(ctx, "decision-here", 1, func(m *memory.Memory) error { m.Content = "changed\n"; return nil }); err != nil {
		t.Fatal(err)
	}
	var got []Change
	timeout := time.After(10 * time.Second)
	for len(got) < 2 {
		select {
		case c := <-changes:
			got = append(got, c)
		case <-timeout:
			t.Fatalf("heard %v, want the write and the update", got)
		}
	}
	select {
	case c := <-changes:
		t.Fatalf("heard an extra change %v", c)
	case <-time.After(300 * time.Millisecond):
	}
	for _, c := range got {
		if c != (Change{Project: "acme/app", Slug: "decision-here"}) {
			t.Fatalf("heard %v", got)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Listen returned %v after cancel", err)
	}
}
