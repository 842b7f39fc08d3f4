package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/engine"
)

func TestParseSettings(t *testing.T) {
	def := engine.DefaultSettings()
	with := func(f func(*engine.Settings)) engine.Settings { s := def; f(&s); return s }
	for _, tc := range []struct {
		name, raw string
		want      engine.Settings
		err       bool
	}{
		{"absent", ``, def, false},
		{"null", `null`, def, false},
		{"the extension's defaults", `{"enabled":true,"maxTokens":4000,"minRelevance":0.5,"logLevel":"info","triggers":{"fileOpen":true,"fileEdit":true,"selection":true,"symbolMention":true,"implicitQueries":true}}`,
			with(func(s *engine.Settings) { s.MaxTokens, s.MinRelevance = 4000, 0.5 }), false},
		{"partial", `{"maxTokens":1200,"triggers":{"selection":false}}`, with(func(s *engine.Settings) { s.MaxTokens, s.Triggers.Selection = 1200, false }), false},
		{"disabled", `{"enabled":false}`, with(func(s *engine.Settings) { s.Enabled = false }), false},
		{"every trigger off", `{"triggers":{"fileOpen":false,"fileEdit":false,"selection":false,"symbolMention":false,"implicitQueries":false}}`,
			with(func(s *engine.Settings) { s.Triggers = engine.Triggers{} }), false},
		{"wrong type", `{"maxTokens":"lots"}`, def, true},
		{"budget out of range", `{"maxTokens":5}`, def, true},
		{"gate out of range", `{"minRelevance":1.5}`, def, true},
		{"not an object", `[1]`, def, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSettings(json.RawMessage(tc.raw))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("settings = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSettingsFromTheEditor(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero})
	var res map[string]any
	if err := c.call("initialize", map[string]any{"processId": nil, "rootUri": uri.File(root), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"enabled": true, "maxTokens": 4000, "minRelevance": 0.5, "logLevel": "info",
			"triggers": map[string]any{"fileOpen": false, "fileEdit": true, "selection": true, "symbolMention": true, "implicitQueries": true}}}, &res); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	c.waitStatus(func(m map[string]any) bool { return m["state"] == "ready" && m["entities"].(float64) > 0 })
	mdPath := filepath.Join(root, ".ctxls", "auto-context.md")

	// fileOpen is off: opening is no trigger; a selection still is.
	open(t, c, root, "auth/service.go")
	c.notify("ctxls/activity", map[string]any{"type": "selection", "filePath": filepath.Join(root, "web/handler.go"), "position": map[string]any{"line": 4, "character": 6}, "text": "HandleLogin"})
	md := waitFile(t, mdPath, "selected code in web/handler.go")
	if strings.Contains(md, "opened auth/service.go") {
		t.Errorf("fileOpen off, yet the open is a reason:\n%s", md)
	}

	// Disabled: activity no longer rewrites the file.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"enabled": false}}})
	time.Sleep(200 * time.Millisecond) // a rewrite the change itself may have started
	before, _ := os.ReadFile(mdPath)
	c.notify("ctxls/activity", map[string]any{"type": "file_open", "filePath": filepath.Join(root, "web/handler.go")})
	var snap map[string]any
	if err := c.call("ctxls/context", map[string]any{}, &snap); err != nil { // ordered after the activity
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if after, _ := os.ReadFile(mdPath); string(after) != string(before) {
		t.Errorf("enabled=false, yet the auto-context was rewritten:\n%s", after)
	}

	// Enabled again (every other key back to its default, fileOpen on):
	// rewritten at once, with the open remembered meanwhile.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"enabled": true}}})
	waitFile(t, mdPath, "opened web/handler.go")

	// Malformed settings are ignored (logged), nothing else changes.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"maxTokens": "many"}}})
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": nil})
	if err := c.call("ctxls/context", map[string]any{}, &snap); err != nil {
		t.Fatalf("server after malformed settings: %v", err)
	}
}

func TestStateDirectoryIsNotWorkedOn(t *testing.T) {
	root := writeWorkspace(t)
	zero := time.Duration(0)
	c := startServer(t, Options{NoWatch: true, Debounce: &zero, BufferFlush: 20 * time.Millisecond})
	c.initialize(root)
	mdPath := filepath.Join(root, ".ctxls", "auto-context.md")
	open(t, c, root, "auth/service.go")
	waitFile(t, mdPath, "opened auth/service.go")

	// The preview of the auto-context, as an editor would send it: opened,
	// edited, focused, saved, and seen changing on disk.
	preview := filepath.Join(root, ".ctxls", "preview.md")
	if err := os.WriteFile(preview, []byte("# Quokkaheading\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := uri.File(preview)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": "# Quokkaheading\n"}})
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": "# Quokkaheading\n\n## Wombatheading\n"}}})
	c.notify("ctxls/activity", map[string]any{"type": "file_open", "filePath": preview})
	c.notify("ctxls/activity", map[string]any{"type": "selection", "filePath": string(u), "position": map[string]any{"line": 0, "character": 2}, "text": "Quokkaheading"})
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": u}})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": u, "type": 2}}})
	if h := hoverText(t, c, u, 0, 4); strings.Contains(h, "Quokka") {
		t.Errorf("hover in the preview answered from the preview itself: %s", h)
	}
	time.Sleep(300 * time.Millisecond) // well past the buffer flush

	var snap map[string]any
	if err := c.call("ctxls/context", map[string]any{"refresh": true}, &snap); err != nil {
		t.Fatal(err)
	}
	if snap["activeFile"] != "auth/service.go" || strings.Contains(snap["markdown"].(string), ".ctxls") {
		t.Errorf("the state directory became activity: active %v\n%s", snap["activeFile"], snap["markdown"])
	}
	var ws []map[string]any
	for _, q := range []string{"Quokkaheading", "Wombatheading"} {
		if err := c.call("workspace/symbol", map[string]any{"query": q}, &ws); err != nil {
			t.Fatal(err)
		}
		if len(ws) != 0 {
			t.Errorf("%s from .ctxls/preview.md reached the index: %v", q, ws)
		}
	}
}
