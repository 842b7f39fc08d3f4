package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// jsonDataKeys are the keys whose object value maps data (a kind, a
// language, a slug, a term, a signal's name, an extension) to figures: docs/json.md
// writes their keys as *.
var jsonDataKeys = map[string]bool{"by_kind": true, "by_lang": true, "skip_reasons": true, "skipped": true,
	"quality": true, "problems": true, "links_by_memory": true, "terms": true, "signals": true, "weights": true, "metadata": true,
	"changed": true, "renamed": true, "unsupported_by_extension": true}

// jsonKeys returns the key paths of a JSON document: a.b for objects,
// a[].b for the objects of arrays, a.* for the keys of a data map.
func jsonKeys(v any, prefix string, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			p := prefix + k
			into[p] = true
			if m, ok := sub.(map[string]any); ok && jsonDataKeys[k] {
				for _, d := range m {
					into[p+".*"] = true
					jsonKeys(d, p+".*.", into)
				}
				continue
			}
			jsonKeys(sub, p+".", into)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, strings.TrimSuffix(prefix, ".")+"[].", into)
		}
	}
}

// documentedJSON reads docs/json.md: for each "### `ctxls ... --json`"
// heading, the key paths of the code block under it; a key ending in ?
// may be absent.
func documentedJSON(t *testing.T) map[string]map[string]bool {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile("^### `(ctxls [^`]+)`")
	docs := map[string]map[string]bool{}
	var cur string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case head.MatchString(line):
			cur = head.FindStringSubmatch(line)[1]
			docs[cur] = map[string]bool{}
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
		case inBlock && cur != "":
			if k := strings.TrimSpace(strings.SplitN(line, "  ", 2)[0]); k != "" {
				docs[cur][k] = true
			}
		}
	}
	return docs
}

// Every --json output has "version" and snake_case keys, and the keys
// docs/json.md lists for it: no more, and no fewer than it marks required.
func TestJSONDocumented(t *testing.T) {
	t.Setenv("CTXLS_HOOK_DAEMON", "0")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() { Greet() }\n"), 0o644)
	setup := [][]string{
		{"index"},
		{"memory", "write", "--type", "gotcha", "--title", "Greet is English only", "--tags", "i18n", "--files", "main.go", "--content", "Say hello in English."},
		{"memory", "write", "--type", "decision", "--title", "Greetings stay short", "--tags", "i18n", "--content", "One word."},
		{"memory", "link", "gotcha-greet-is-english-only", "decision-greetings-stay-short"},
	}
	for _, args := range setup {
		if _, errOut, code := ctxls(t, root, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
	}
	// A session with a prompt the hook answered, and a tool call after it.
	for _, h := range []struct{ event, input string }{
		{"user-prompt-submit", `{"session_id":"json-1","hook_event_name":"UserPromptSubmit","prompt":"fix Greet in main.go","cwd":"` + root + `"}`},
		{"post-tool-use", `{"session_id":"json-1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"` + filepath.Join(root, "main.go") + `"},"tool_response":{},"cwd":"` + root + `"}`},
	} {
		cmd := exec.Command(os.Getenv("CTXLS_BIN"), "hook", h.event)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(h.input)
		if out, err := cmd.Output(); err != nil || (h.event == "user-prompt-submit" && !strings.Contains(string(out), "Greet")) {
			t.Fatalf("hook %s: %v %q", h.event, err, out)
		}
	}
	docs := documentedJSON(t)
	// In order: the think commands work on the document create makes, and
	// the commands that change memories come after those that read them.
	// doc names the section of an output documented as another's.
	runs := []struct {
		name string
		args []string
		doc  string
	}{
		{"ctxls index --json", []string{"index", "--json"}, ""},
		{"ctxls stats --json", []string{"stats", "--json"}, ""},
		{"ctxls stats --sessions --json", []string{"stats", "--sessions", "--json"}, ""},
		{"ctxls sessions --json", []string{"sessions", "--json"}, ""},
		{"ctxls sessions show --json", []string{"sessions", "show", "json-1", "--json"}, ""},
		{"ctxls symbols --json", []string{"symbols", "--json", "main.go"}, ""},
		{"ctxls query --json", []string{"query", "--json", "--explain", "Greet"}, ""},
		{"ctxls context --json", []string{"context", "--json", "--active-file", "main.go", "Greet"}, ""},
		{"ctxls context --session --json", []string{"context", "--json", "--session", "json-2", "Greet"}, ""},
		{"ctxls sources --json", []string{"sources", "--json"}, ""},
		{"ctxls memory write --json", []string{"memory", "write", "--json", "--type", "learning", "--title", "Hello is fine", "--tags", "i18n", "--content", "ok"}, ""},
		{"ctxls memory show --json", []string{"memory", "show", "--json", "gotcha-greet-is-english-only"}, ""},
		{"ctxls memory list --json", []string{"memory", "list", "--json"}, ""},
		{"ctxls memory search --json", []string{"memory", "search", "--json", "greet"}, ""},
		{"ctxls memory graph --json", []string{"memory", "graph", "--json"}, ""},
		{"ctxls memory health --json", []string{"memory", "health", "--json"}, ""},
		{"ctxls memory rebuild --json", []string{"memory", "rebuild", "--json"}, ""},
		{"ctxls daemon list --json", []string{"daemon", "list", "--json"}, ""},
		{"ctxls memory edges --json", []string{"memory", "edges", "--json", "gotcha-greet-is-english-only"}, ""},
		{"ctxls memory impact --json", []string{"memory", "impact", "--json", "gotcha-greet-is-english-only"}, ""},
		{"ctxls memory tag --json", []string{"memory", "tag", "--json", "decision-greetings-stay-short", "style"}, ""},
		{"ctxls memory think create --json", []string{"memory", "think", "create", "--json", "--ref", "gotcha-greet-is-english-only", "Should Greet speak French?"}, ""},
		{"ctxls memory think add --json", []string{"memory", "think", "add", "--json", "--non-interactive", "French users exist"}, ""},
		{"ctxls memory think show --json", []string{"memory", "think", "show", "--json"}, ""},
		{"ctxls memory think list --json", []string{"memory", "think", "list", "--json"}, ""},
		{"ctxls memory think conclude --json", []string{"memory", "think", "conclude", "--json", "--non-interactive", "--promote", "decision", "Keep English"}, ""},
		{"ctxls memory think catalog --json", []string{"memory", "think", "catalog", "--json"}, ""},
		{"ctxls memory think create --json (a second document)", []string{"memory", "think", "create", "--json", "Should Greet speak Spanish?"}, "ctxls memory think create --json"},
		{"ctxls memory think counter --json", []string{"memory", "think", "counter", "--json", "--non-interactive", "Nobody asked"}, "ctxls memory think add --json"},
		{"ctxls memory think branch --json", []string{"memory", "think", "branch", "--json", "--non-interactive", "Spanish first"}, "ctxls memory think add --json"},
		{"ctxls memory think use --json", []string{"memory", "think", "use", "--json", "{think_id}"}, ""},
		{"ctxls memory think delete --json", []string{"memory", "think", "delete", "--json", "{think_id}"}, ""},
		{"ctxls memory update --json", []string{"memory", "update", "--json", "decision-greetings-stay-short", "--content", "Two words."}, "ctxls memory write --json"},
		{"ctxls memory untag --json", []string{"memory", "untag", "--json", "decision-greetings-stay-short", "style"}, "ctxls memory tag --json"},
		{"ctxls memory promote --json", []string{"memory", "promote", "--json", "learning-hello-is-fine", "decision"}, "ctxls memory tag --json"},
		{"ctxls memory demote --json", []string{"memory", "demote", "--json", "learning-hello-is-fine", "learning"}, "ctxls memory tag --json"},
		{"ctxls memory link --json", []string{"memory", "link", "--json", "decision-greetings-stay-short", "learning-hello-is-fine"}, ""},
		{"ctxls memory unlink --json", []string{"memory", "unlink", "--json", "decision-greetings-stay-short", "learning-hello-is-fine"}, ""},
		{"ctxls memory rename --json", []string{"memory", "rename", "--json", "gotcha-greet-is-english-only", "gotcha-greet-speaks-english"}, "ctxls memory tag --json"},
		{"ctxls memory import --json", []string{"memory", "import", "--json", "--scope", "local", filepath.Join(root, ".claude", "memory")}, ""},
		{"ctxls memory move --json", []string{"memory", "move", "--json", "--scope", "project", "learning-hello-is-fine", "global"}, ""},
		{"ctxls memory delete --json", []string{"memory", "delete", "--json", "--scope", "project", "decision-greetings-stay-short"}, ""},
	}
	// Every command with --json is run above, but for these.
	notRun := map[string]string{
		"ctxls memory export": "the enterprise scope needs PostgreSQL: TestMemoryCLIEnterpriseOnPostgres checks it",
	}
	covered := map[string]bool{}
	for _, r := range runs {
		c, _, err := newRootCmd(nil).Find(r.args)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		covered[c.CommandPath()] = true
	}
	for _, c := range allCommands() {
		if c.LocalFlags().Lookup("json") != nil && !covered[c.CommandPath()] && notRun[c.CommandPath()] == "" {
			t.Errorf("%s has --json, but TestJSONDocumented does not run it", c.CommandPath())
		}
	}
	ran := map[string]bool{}
	thinkID := ""
	for _, r := range runs {
		name := r.name
		if r.doc == "" {
			r.doc = name
		}
		ran[r.doc] = true
		args := slices.Clone(r.args)
		for i, a := range args {
			if a == "{think_id}" {
				args[i] = thinkID
			}
		}
		out, errOut, code := ctxls(t, root, args...)
		if code > 1 {
			t.Errorf("%s: exit %d, %q %q", name, code, out, errOut)
			continue
		}
		if v := checkJSONDoc(t, docs, name, r.doc, out); v != nil {
			if id, ok := v["id"].(string); ok && r.args[1] == "think" && r.args[2] == "create" {
				thinkID = id
			}
		}
	}
	// Checked by the tests of the enterprise scope, which need PostgreSQL.
	for _, name := range []string{"ctxls memory export --json", "ctxls memory import --scope enterprise --json"} {
		ran[name] = true
	}
	for name := range docs {
		if !ran[name] {
			t.Errorf("docs/json.md documents %s, which no test runs", name)
		}
	}
}

// checkJSONDoc checks one --json output (of the run called name) against
// the section doc of docs/json.md: "version" 1, no null at the top,
// snake_case keys, and the keys the section lists. It returns the output
// decoded, or nil when it is not a JSON object.
func checkJSONDoc(t *testing.T, docs map[string]map[string]bool, name, section, out string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Errorf("%s: %v: %q", name, err, out)
		return nil
	}
	if v["version"] != float64(1) {
		t.Errorf("%s: version %v, want 1", name, v["version"])
	}
	for k, val := range v {
		if val == nil {
			t.Errorf("%s: %s is null; an empty top-level list is []", name, k)
		}
	}
	got := map[string]bool{}
	jsonKeys(v, "", got)
	doc, ok := docs[section]
	if !ok {
		t.Errorf("docs/json.md has no section for %s; its keys:\n%s", section, sortedKeys(got))
		return v
	}
	snake := regexp.MustCompile(`^([a-z0-9_]+|\*)$`)
	for k := range got {
		for _, part := range strings.Split(strings.ReplaceAll(k, "[]", ""), ".") {
			if !snake.MatchString(part) {
				t.Errorf("%s: key %s is not snake_case", name, k)
			}
		}
		if !doc[k] && !doc[k+"?"] {
			t.Errorf("%s: key %s is not in docs/json.md", name, k)
		}
	}
	for k := range doc {
		if !strings.HasSuffix(k, "?") && !got[k] {
			t.Errorf("%s: docs/json.md lists %s, which the output lacks", name, k)
		}
	}
	return v
}

func sortedKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, "\n")
}
