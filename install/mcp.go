package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MCPServerName is the key of ctxls's entry in an .mcp.json file.
const MCPServerName = "ctxls"

// MCPFile is the project-scoped MCP configuration of Claude Code, relative
// to the workspace root (and to a plugin's root).
const MCPFile = ".mcp.json"

// mcpEntry is the server entry: `ctxls mcp` over stdio. The workspace is the
// directory the client starts it in (Claude Code: the project).
func mcpEntry(command string) map[string]any {
	return map[string]any{"type": "stdio", "command": command, "args": []any{"mcp"}}
}

// isOurMCP reports whether a server entry was written by ctxls.
func isOurMCP(v any) bool {
	m, _ := v.(map[string]any)
	args, _ := m["args"].([]any)
	cmd, _ := m["command"].(string)
	return len(args) > 0 && args[0] == "mcp" && strings.Contains(filepath.Base(cmd), "ctxls")
}

// MCPConfig registers ctxls's MCP server in an .mcp.json file (or, with
// opts.Uninstall, removes it), keeping every other server and key as it
// was. It is idempotent, keeps a backup of the previous file, never creates
// a file to remove something from (and removes one that only held ctxls),
// and refuses to replace a server named ctxls that it did not write.
func MCPConfig(path string, opts Options) (Report, error) {
	rep := Report{Path: path}
	if opts.Command == "" {
		opts.Command = "ctxls"
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.Uninstall {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return rep, nil
		}
	}
	doc, old, err := readJSON(path)
	if err != nil {
		return rep, err
	}
	servers, ok := doc["mcpServers"].(map[string]any)
	if !ok {
		if doc["mcpServers"] != nil {
			return rep, fmt.Errorf("%s: mcpServers is not an object (nothing was changed)", path)
		}
		servers = map[string]any{}
	}
	if cur, exists := servers[MCPServerName]; exists {
		if !isOurMCP(cur) {
			if opts.Uninstall {
				return rep, nil // not ours: leave it
			}
			return rep, fmt.Errorf("%s already has an MCP server named %q that ctxls did not write (nothing was changed)", path, MCPServerName)
		}
		delete(servers, MCPServerName)
		rep.Removed++
	}
	if !opts.Uninstall {
		servers[MCPServerName] = mcpEntry(opts.Command)
		rep.Added++
	}
	if len(servers) > 0 {
		doc["mcpServers"] = servers
	} else {
		delete(doc, "mcpServers")
	}
	if opts.Uninstall {
		return rep, removeOrWrite(path, doc, old, opts.Now, &rep)
	}
	changed, backup, err := writeJSON(path, doc, old, opts.Now)
	if !changed {
		rep.Added, rep.Removed = 0, 0
	}
	rep.Backup = backup
	return rep, err
}
