// Package install merges ctxls's hook entries into Claude Code settings and
// writes a Claude Code plugin. It changes nothing it did not add: every entry
// it writes carries the ctxls command, and uninstall removes exactly those.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/workspace"
)

// Hook describes one hook ctxls installs.
type Hook struct {
	Event   string // Claude Code event name
	Matcher string // "" for events without matchers
	Arg     string // ctxls hook argument
	Timeout int    // seconds
}

// Hooks are the hooks ctxls installs, with small explicit timeouts (a timed
// out hook's output is discarded, so waiting longer buys nothing).
var Hooks = []Hook{
	hook(hookevent.SessionStart, "startup|resume|clear|compact", 5),
	hook(hookevent.UserPromptSubmit, "", 5),
	hook(hookevent.PreToolUse, "Edit|Write|MultiEdit", 5),
	hook(hookevent.PostToolUse, "Read|Edit|Write|MultiEdit|Bash", 5),
	hook(hookevent.PreCompact, "", 5),
}

// hook is the Hook of Claude Code's event name, run as `ctxls hook ARG`.
func hook(event, matcher string, timeout int) Hook {
	return Hook{Event: event, Matcher: matcher, Arg: hookevent.Arg(event), Timeout: timeout}
}

// Options control Settings.
type Options struct {
	// Command is the ctxls executable to run (a path or a name on PATH).
	Command string
	// Uninstall removes ctxls's entries instead of adding them.
	Uninstall bool
	// Now stamps backups; zero means time.Now.
	Now time.Time
}

// Report says what Settings did.
type Report struct {
	Path    string
	Backup  string // where the previous file was saved, if it existed
	Added   int
	Removed int
}

// isOurs reports whether a handler was written by ctxls.
func isOurs(h map[string]any) bool {
	args, _ := h["args"].([]any)
	if len(args) > 0 && args[0] == "hook" {
		cmd, _ := h["command"].(string)
		return strings.Contains(filepath.Base(cmd), "ctxls")
	}
	cmd, _ := h["command"].(string)
	return strings.Contains(cmd, "ctxls hook ")
}

// Settings merges (or removes) ctxls's hooks in a Claude Code settings file,
// keeping every other key and hook as it was. It is idempotent and keeps a
// backup of the previous file next to it.
func Settings(path string, opts Options) (Report, error) {
	rep := Report{Path: path}
	if opts.Command == "" {
		opts.Command = "ctxls"
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	doc, old, err := readJSON(path)
	if err != nil {
		return rep, err
	}
	hooksObj, _ := doc["hooks"].(map[string]any)
	if hooksObj == nil {
		hooksObj = map[string]any{}
	}
	// Remove our entries everywhere first: re-install replaces them, so a
	// changed command or timeout never leaves a duplicate.
	for event, v := range hooksObj {
		groups, _ := v.([]any)
		var kept []any
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			if gm == nil {
				kept = append(kept, g)
				continue
			}
			hs, _ := gm["hooks"].([]any)
			var keep []any
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				if hm != nil && isOurs(hm) {
					rep.Removed++
					continue
				}
				keep = append(keep, h)
			}
			if len(keep) == 0 && len(hs) > 0 {
				continue // the group held only our handler
			}
			gm["hooks"] = keep
			kept = append(kept, gm)
		}
		if len(kept) == 0 {
			delete(hooksObj, event)
		} else {
			hooksObj[event] = kept
		}
	}
	if !opts.Uninstall {
		for _, h := range Hooks {
			handler := map[string]any{"type": "command", "command": opts.Command, "args": []any{"hook", h.Arg}, "timeout": h.Timeout}
			group := map[string]any{"hooks": []any{handler}}
			if h.Matcher != "" {
				group["matcher"] = h.Matcher
			}
			list, _ := hooksObj[h.Event].([]any)
			hooksObj[h.Event] = append(list, group)
			rep.Added++
		}
	}
	if len(hooksObj) > 0 {
		doc["hooks"] = hooksObj
	} else {
		delete(doc, "hooks")
	}
	if opts.Uninstall {
		if err := removeOrWrite(path, doc, old, opts.Now, &rep); err != nil {
			return rep, err
		}
		if dir := filepath.Dir(path); filepath.Base(dir) == ".claude" {
			// The .claude directory init created for the file goes with
			// it when nothing else is in it (Remove fails on one that is
			// not empty).
			os.Remove(dir)
		}
		return rep, nil
	}
	changed, backup, err := writeJSON(path, doc, old, opts.Now)
	if !changed {
		rep.Added, rep.Removed = 0, 0
	}
	rep.Backup = backup
	return rep, err
}

// removeOrWrite ends an uninstall: a file that did not exist stays absent,
// a file that held only ctxls's entries is removed (it came with ctxls init,
// and `ctxls init` writes it again; nothing of anyone else's needs a
// backup), and any other file is written back without them.
func removeOrWrite(path string, doc map[string]any, old []byte, now time.Time, rep *Report) error {
	if old == nil || rep.Removed == 0 {
		// Nothing of ours was there: the file stays as it is, byte for
		// byte (not even reformatted).
		rep.Removed = 0
		return nil
	}
	if len(doc) == 0 {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	}
	changed, backup, err := writeJSON(path, doc, old, now)
	if !changed {
		rep.Added, rep.Removed = 0, 0
	}
	rep.Backup = backup
	return err
}

// readJSON reads a JSON object file; a missing or empty file is an empty
// object. old is the file's content (nil when it did not exist).
func readJSON(path string) (doc map[string]any, old []byte, err error) {
	doc = map[string]any{}
	old, err = os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return doc, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(old)) > 0 {
		if err := json.Unmarshal(old, &doc); err != nil {
			return nil, nil, fmt.Errorf("%s is not valid JSON (fix it or move it aside; nothing was changed): %w", path, err)
		}
	}
	return doc, old, nil
}

// writeJSON writes doc to path atomically unless it equals old, keeping a
// backup of old stamped with now. It reports whether it wrote.
func writeJSON(path string, doc map[string]any, old []byte, now time.Time) (changed bool, backup string, err error) {
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, "", err
	}
	out = append(out, '\n')
	if bytes.Equal(out, old) {
		return false, "", nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if old != nil {
		backup = fmt.Sprintf("%s.bak-%s", path, now.UTC().Format("20060102T150405"))
		if err := workspace.WriteFileAtomic(backup, old, 0o644); err != nil {
			return false, "", err
		}
	}
	return true, backup, workspace.WriteFileAtomic(path, out, 0o644)
}

// Plugin writes a Claude Code plugin into dir: the manifest, the hooks and
// a skill describing ctxls.
func Plugin(dir, command, version string) ([]string, error) {
	if command == "" {
		command = "ctxls"
	}
	manifest := map[string]any{
		"name":        "ctxls",
		"version":     strings.TrimPrefix(version, "v"),
		"description": "Puts the code, rules and decisions that matter for each prompt and edit in front of Claude.",
		"author":      map[string]any{"name": "ctxls"},
	}
	hooksObj := map[string]any{}
	for _, h := range Hooks {
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "args": []any{"hook", h.Arg}, "timeout": h.Timeout}}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		list, _ := hooksObj[h.Event].([]any)
		hooksObj[h.Event] = append(list, group)
	}
	skill := `---
name: ctxls
description: Find code, callers and definitions in this workspace with the ctxls index. Use when you need more context than was injected automatically.
---

# ctxls

ctxls keeps an index of this workspace's code (entities, calls, imports) in .ctxls/index.db and injects the
most relevant pieces into the conversation automatically. When you need more:

- ` + "`ctxls query --explain \"<question>\"`" + ` ranks files and entities for a question, with the evidence.
- ` + "`ctxls context \"<question>\"`" + ` prints a compact context (signatures, docs, excerpts) within a token budget.
- ` + "`ctxls symbols <file>`" + ` lists a file's entities and references.
- ` + "`ctxls index`" + ` refreshes the index after large changes (it is incremental).
`
	files := map[string][]byte{}
	var err error
	if files[".claude-plugin/plugin.json"], err = json.MarshalIndent(manifest, "", "  "); err != nil {
		return nil, err
	}
	if files["hooks/hooks.json"], err = json.MarshalIndent(map[string]any{"hooks": hooksObj}, "", "  "); err != nil {
		return nil, err
	}
	files["skills/ctxls/SKILL.md"] = []byte(skill)
	var written []string
	for _, rel := range []string{".claude-plugin/plugin.json", "hooks/hooks.json", "skills/ctxls/SKILL.md"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, err
		}
		data := files[rel]
		if !bytes.HasSuffix(data, []byte("\n")) {
			data = append(data, '\n')
		}
		if err := workspace.WriteFileAtomic(p, data, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// gitignoreMarker is the comment EnsureGitignore writes above the line it
// adds, so that RemoveGitignore removes exactly what init added and never a
// line the project wrote itself.
const gitignoreMarker = "# added by ctxls init (ctxls init --uninstall removes these two lines)"

// gitignoreLine is the pattern EnsureGitignore adds.
const gitignoreLine = ".ctxls/"

// EnsureGitignore adds a line for .ctxls/ to a workspace's .gitignore when
// neither it nor an equivalent pattern is there.
func EnsureGitignore(root string) (bool, error) {
	p := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(l) {
		case ".ctxls", ".ctxls/", "/.ctxls", "/.ctxls/":
			return false, nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, []byte(gitignoreMarker+"\n"+gitignoreLine+"\n")...)
	return true, workspace.WriteFileAtomic(p, data, 0o644)
}

// RemoveGitignore takes out of a workspace's .gitignore the lines
// EnsureGitignore added (recognised by their marker), and removes the file
// when nothing else is left in it. A .ctxls/ line without the marker was
// written by someone else and stays.
func RemoveGitignore(root string) (bool, error) {
	p := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var kept []string
	removed := false
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == gitignoreMarker && i+1 < len(lines) && strings.TrimRight(lines[i+1], "\r\n") == gitignoreLine {
			i++
			removed = true
			continue
		}
		kept = append(kept, lines[i])
	}
	if !removed {
		return false, nil
	}
	out := strings.Join(kept, "")
	if strings.TrimSpace(out) == "" {
		return true, os.Remove(p)
	}
	return true, workspace.WriteFileAtomic(p, []byte(out), 0o644)
}

// Installed reports whether the Claude Code settings file at path holds a
// hook handler ctxls wrote; a missing file holds none.
func Installed(path string) (bool, error) {
	doc, _, err := readJSON(path)
	if err != nil {
		return false, err
	}
	hooksObj, _ := doc["hooks"].(map[string]any)
	for _, groups := range hooksObj {
		list, _ := groups.([]any)
		for _, g := range list {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				if hm, _ := h.(map[string]any); hm != nil && isOurs(hm) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}
