package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/sources"
)

// Input is a hook's stdin, normalised: Claude Code sends snake_case keys,
// VS Code's agent camelCase; both decode into the same fields.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source"` // SessionStart
	Prompt         string          `json:"prompt"` // UserPromptSubmit
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	ToolCalls      []ToolCall      `json:"tool_calls"` // PostToolBatch
	Trigger        string          `json:"trigger"`    // PreCompact
}

// ToolCall is one call of a PostToolBatch.
type ToolCall struct {
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// MaxInput is the largest stdin accepted; larger input is refused (the hook
// then answers nothing).
const MaxInput = hookcall.MaxInput

var errEmpty = errors.New("empty hook input")

// ParseInput decodes a hook's stdin. Invalid UTF-8 is repaired; keys are
// accepted in snake_case and camelCase at any depth.
func ParseInput(data []byte) (*Input, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errEmpty
	}
	if len(data) > MaxInput {
		return nil, fmt.Errorf("hook input of %d bytes exceeds %d", len(data), MaxInput)
	}
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("hook input is not JSON: %w", err)
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, errors.New("hook input is not a JSON object")
	}
	norm, err := json.Marshal(snakeKeys(raw))
	if err != nil {
		return nil, err
	}
	var in Input
	if err := json.Unmarshal(norm, &in); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	return &in, nil
}

// Tool decodes a tool input; newEvent calls it once per tool call.
func Tool(raw json.RawMessage) sources.ToolInput {
	var t sources.ToolInput
	if len(raw) > 0 {
		json.Unmarshal(raw, &t)
	}
	if t.FilePath == "" {
		t.FilePath = t.Path
	}
	return t
}

func snakeKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			sk := toSnake(k)
			if _, dup := out[sk]; dup && sk != k {
				continue // an explicit snake_case key wins
			}
			out[sk] = snakeKeys(val)
		}
		return out
	case []any:
		for i := range x {
			x[i] = snakeKeys(x[i])
		}
	}
	return v
}

func toSnake(s string) string {
	if !strings.ContainsFunc(s, unicode.IsUpper) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
