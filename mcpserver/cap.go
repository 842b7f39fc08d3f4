package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxOutputBytes caps each representation of a tool result: the
// markdown text the model reads and the structured JSON. At about four
// characters per token it is 8,000 tokens, under the 10,000 at which Claude
// Code warns about a large MCP result.
const DefaultMaxOutputBytes = 32000

// finish sets the result's text to note (a line about the index, or "")
// and render(out), and shrinks out until both the text and out's JSON fit
// the cap. shrink removes the least important item and reports false when
// nothing is left to remove; it should mark out as truncated.
func finish[T any](limit int, note string, out *T, render func(*T) string, shrink func(*T) bool) (*mcp.CallToolResult, T, error) {
	for {
		md := note + render(out)
		js, err := json.Marshal(out)
		if err != nil {
			return nil, *out, fmt.Errorf("encode result: %w", err)
		}
		if len(md) <= limit && len(js) <= limit {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: md}}}, *out, nil
		}
		if !shrink(out) {
			return nil, *out, fmt.Errorf("result does not fit in %d bytes even when shortened; ask for less (a smaller max_tokens or limit)", limit)
		}
	}
}

// dropLast removes the last element of the longest of lists, reporting
// whether any list had one.
func dropLast[E any](lists ...*[]E) bool {
	var longest *[]E
	for _, l := range lists {
		if len(*l) > 0 && (longest == nil || len(*l) > len(*longest)) {
			longest = l
		}
	}
	if longest == nil {
		return false
	}
	*longest = (*longest)[:len(*longest)-1]
	return true
}
