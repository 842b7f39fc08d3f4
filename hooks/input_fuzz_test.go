package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// inputSeeds are hook stdins as Claude Code and VS Code's agent send them,
// and hostile ones: not JSON, not an object, invalid UTF-8, keys in both
// cases, fields of the wrong type, deep nesting.
var inputSeeds = []string{
	`{"session_id":"abc","transcript_path":"/tmp/t.jsonl","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"how does Login check the password"}`,
	`{"sessionId":"abc","hookEventName":"PostToolUse","toolName":"Edit","toolInput":{"filePath":"auth/auth.go","oldString":"a","newString":"b"},"toolResponse":{"success":true}}`,
	`{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Read","tool_input":{"file_path":"a.go"}},{"toolName":"Grep","toolInput":{"pattern":"x","path":"src"}}]}`,
	`{"hook_event_name":"SessionStart","source":"startup"}`,
	`{"hook_event_name":"PreCompact","trigger":"auto"}`,
	`{"prompt":"a","Prompt":"b"}`,
	`{"Prompt":"b","prompt":"a"}`,
	`{"PROMPT":"x","ÉTÉ":"y","ǅx":1}`,
	"{\"prompt\":\"\xff\xfe bad \xc3\"}",
	`{"prompt":"\ud800 lone surrogate"}`,
	`{"tool_calls":5}`, `{"tool_input":null}`, `{"prompt":7}`,
	`[]`, `"str"`, `null`, `42`, ``, `   `, `{`, `{"a":1} trailing`,
	strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
	`{"x":` + strings.Repeat(`{"A":`, 2000) + `1` + strings.Repeat(`}`, 2000) + `}`,
}

// FuzzParseInput: ParseInput never panics; what it returns holds valid
// UTF-8 in every string field and valid JSON in every raw field; and on an
// object of valid UTF-8 it returns the prompt and tool name that were given.
func FuzzParseInput(f *testing.F) {
	for _, s := range inputSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		if err != nil {
			if in != nil {
				t.Fatalf("error %v with a result %+v", err, in)
			}
			return
		}
		for name, s := range map[string]string{"session_id": in.SessionID, "transcript_path": in.TranscriptPath,
			"cwd": in.Cwd, "hook_event_name": in.HookEventName, "source": in.Source, "prompt": in.Prompt,
			"tool_name": in.ToolName, "trigger": in.Trigger} {
			if !utf8.ValidString(s) {
				t.Fatalf("%s %q is not valid UTF-8", name, s)
			}
		}
		raws := []json.RawMessage{in.ToolInput, in.ToolResponse}
		for _, c := range in.ToolCalls {
			if !utf8.ValidString(c.ToolName) {
				t.Fatalf("tool call name %q is not valid UTF-8", c.ToolName)
			}
			raws = append(raws, c.ToolInput)
		}
		for _, r := range raws {
			if len(r) > 0 && !json.Valid(r) {
				t.Fatalf("raw field %q is not JSON", r)
			}
			checkTool(t, r)
		}
		// The given values, read independently of the key normalisation.
		if !utf8.Valid(data) {
			return
		}
		var given map[string]any
		if json.Unmarshal(bytes.TrimSpace(data), &given) != nil {
			return
		}
		for key, got := range map[string]string{"prompt": in.Prompt, "tool_name": in.ToolName} {
			if want, ok := given[key].(string); ok && got != want {
				t.Fatalf("%s: got %q, given %q", key, got, want)
			}
		}
	})
}

// FuzzTool decodes arbitrary tool inputs: never a panic, every field valid
// UTF-8 when the input is, and FilePath falls back to Path.
func FuzzTool(f *testing.F) {
	for _, s := range []string{
		`{"file_path":"auth/auth.go","old_string":"a","new_string":"b"}`, `{"path":"src","pattern":"Login"}`,
		`{"command":"go test ./..."}`, `{"content":"package a\n"}`, `{"file_path":"","path":"p"}`,
		`{"file_path":7}`, `null`, `[]`, `"x"`, `{`, ``, "{\"path\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkTool(t, json.RawMessage(data))
	})
}

func checkTool(t *testing.T, raw json.RawMessage) {
	t.Helper()
	ti := Tool(raw)
	if ti.FilePath == "" && ti.Path != "" {
		t.Fatalf("FilePath is empty but Path is %q", ti.Path)
	}
	var given struct {
		FilePath *string `json:"file_path"`
		Path     *string `json:"path"`
	}
	if json.Unmarshal(raw, &given) != nil {
		return
	}
	switch {
	case given.FilePath != nil && *given.FilePath != "":
		if ti.FilePath != *given.FilePath {
			t.Fatalf("FilePath %q, given file_path %q", ti.FilePath, *given.FilePath)
		}
	case given.Path != nil:
		if ti.FilePath != *given.Path {
			t.Fatalf("FilePath %q, given only path %q", ti.FilePath, *given.Path)
		}
	}
	if utf8.Valid(raw) {
		for _, s := range []string{ti.FilePath, ti.Path, ti.Command, ti.Pattern, ti.OldStr, ti.NewStr, ti.Content} {
			if !utf8.ValidString(s) {
				t.Fatalf("field %q is not valid UTF-8", s)
			}
		}
	}
}
