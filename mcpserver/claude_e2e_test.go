package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/install"
)

// TestClaudeCode runs the real Claude Code CLI ($CTXLS_CLAUDE_BIN, installed
// by make test) against the built binary registered in .mcp.json the way
// `ctxls init --mcp` writes it. The Messages API is a fake (httptest): its
// "model" calls mcp__ctxls__symbol_lookup, then reads a file resource with
// Claude Code's ReadMcpResourceTool, and the test reads the tool results
// Claude Code sends back.
func TestClaudeCode(t *testing.T) {
	claude, bin := os.Getenv("CTXLS_CLAUDE_BIN"), os.Getenv("CTXLS_BIN")
	if claude == "" || bin == "" {
		t.Skip("CTXLS_CLAUDE_BIN and CTXLS_BIN not set (make test sets them when npm is there)")
	}
	root := testWorkspace(t, fixture)
	if _, err := install.MCPConfig(filepath.Join(root, install.MCPFile), install.Options{Command: bin}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var toolResults []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			w.Write([]byte("{}"))
			return
		}
		var body struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(data, &body)
		var results []string
		for _, m := range body.Messages {
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_result" {
						results = append(results, string(b.Content))
					}
				}
			}
		}
		content := []any{map[string]any{"type": "text", "text": "done"}}
		stop := "end_turn"
		if len(results) > 0 {
			mu.Lock()
			toolResults = results
			mu.Unlock()
		}
		switch {
		case len(body.Tools) == 0 || !strings.Contains(string(data), "MCPTOOL"):
		case len(results) == 0:
			content = []any{map[string]any{"type": "tool_use", "id": "toolu_ctxls_1", "name": "mcp__ctxls__symbol_lookup",
				"input": map[string]any{"name": "Login"}}}
			stop = "tool_use"
		case len(results) == 1:
			content = []any{map[string]any{"type": "tool_use", "id": "toolu_ctxls_2", "name": "ReadMcpResourceTool",
				"input": map[string]any{"server": "ctxls", "uri": "ctxls://context/file/auth/auth.go"}}}
			stop = "tool_use"
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
			"content": content, "stop_reason": stop, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}})
	}))
	defer api.Close()

	scratch := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "MCPTOOL where is Login defined?",
		"--mcp-config", install.MCPFile, "--strict-mcp-config", "--allowedTools", "mcp__ctxls__symbol_lookup,ReadMcpResourceTool",
		"--output-format", "stream-json", "--verbose")
	cmd.Dir = root
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + scratch, "TMPDIR=" + scratch,
		"ANTHROPIC_API_KEY=sk-ant-dummy", "ANTHROPIC_BASE_URL=" + api.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, lastBytes(out))
	}

	// Claude Code started the server and listed its tools.
	var connected bool
	tools := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type, Subtype string
			Tools         []string                        `json:"tools"`
			MCPServers    []struct{ Name, Status string } `json:"mcp_servers"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Subtype != "init" {
			continue
		}
		for _, s := range ev.MCPServers {
			connected = connected || (s.Name == "ctxls" && s.Status == "connected")
		}
		for _, tl := range ev.Tools {
			tools[tl] = true
		}
	}
	if !connected {
		t.Errorf("Claude Code did not report ctxls connected:\n%s", lastBytes(out))
	}
	for _, name := range []string{"mcp__ctxls__context_query", "mcp__ctxls__symbol_lookup", "mcp__ctxls__related"} {
		if !tools[name] {
			t.Errorf("tool %s not offered by Claude Code (tools %v)", name, tools)
		}
	}
	// The tool call and the resource read went through ctxls and their
	// answers reached the model.
	mu.Lock()
	defer mu.Unlock()
	if len(toolResults) != 2 {
		t.Fatalf("tool results the model received: %q\nclaude output:\n%s", toolResults, lastBytes(out))
	}
	if !strings.Contains(toolResults[0], "auth/auth.go") || !strings.Contains(toolResults[0], "main.main") {
		t.Errorf("symbol_lookup result: %q", toolResults[0])
	}
	if !strings.Contains(toolResults[1], "# auth/auth.go") || !strings.Contains(toolResults[1], "auth.Service.Authenticate") {
		t.Errorf("file resource as read by Claude Code: %q", toolResults[1])
	}
}

func lastBytes(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}
