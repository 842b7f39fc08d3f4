package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/memory"
)

func TestHoverShowsAttachedMemories(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := writeWorkspace(t)
	ms, err := memory.Open(memory.Options{Root: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*memory.Memory{
		{Slug: "token-format", Type: memory.Decision, Title: "Tokens are prefixed with t-", Files: []string{"auth/service.go"}, Content: "Why t-."},
		{Slug: "denied-is-shared", Type: memory.Gotcha, Severity: "high", Title: "ErrDenied is compared by identity", Files: []string{"auth/*.go"}, Content: "Never wrap it."},
		{Slug: "web-only", Type: memory.Learning, Title: "Handlers render plain text", Files: []string{"web/handler.go"}, Content: "x"},
	} {
		m.Scope, m.Tags = memory.Project, []string{"auth"}
		if err := ms.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t, Options{NoWatch: true})
	c.initialize(root)
	u := open(t, c, root, "auth/service.go")
	var h string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if h = hoverText(t, c, u, 6, 24); strings.Contains(h, "Memories") {
			break
		}
	}
	gotcha, decision := strings.Index(h, "ErrDenied is compared by identity"), strings.Index(h, "Tokens are prefixed with t-")
	if gotcha < 0 || decision < 0 || gotcha > decision || !strings.Contains(h, "gotcha (high)") {
		t.Errorf("hover lacks the file's memories, gotcha first:\n%s", h)
	}
	if strings.Contains(h, "Handlers render plain text") {
		t.Errorf("hover shows a memory of another file:\n%s", h)
	}
}
