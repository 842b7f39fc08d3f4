package sources

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/collect"
	"github.com/ctxls/ctxls/hookevent"
	"github.com/ctxls/ctxls/internal/wspath"
)

// maxDirFileSize bounds the AGENTS.md and README.md files read; larger ones
// are read up to this size and trimmed anyway.
const maxDirFileSize = 64 << 10

// DirectoryAgents injects the nearest AGENTS.md above the file in play (up
// to the workspace root); at session start, the workspace's own. Claude
// Code does not read AGENTS.md itself.
type DirectoryAgents struct{}

// Name implements Source.
func (DirectoryAgents) Name() string { return "directory-agents" }

// Collect implements Source.
func (DirectoryAgents) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	if !ev.Config.Sources.AgentsMD.Enabled {
		return nil, nil
	}
	var dirs []string
	switch ev.Name {
	case hookevent.SessionStart:
		dirs = []string{"."}
	case hookevent.PreToolUse:
		if !IsEdit(ev.Tool) {
			return nil, nil
		}
		dirs = parents(ev.Files)
	case hookevent.PostToolUse, hookevent.PostToolBatch:
		dirs = parents(ev.Files)
	default:
		return nil, nil
	}
	seen := map[string]bool{}
	var out []collect.Entry
	for _, d := range dirs {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		rel, ok := NearestAgents(ev.Root, d)
		if !ok || seen[rel] {
			continue
		}
		seen[rel] = true
		if text, ok := ReadTrimmed(ev.Root, rel, ev.Config.Sources.AgentsMD.MaxChars); ok {
			out = append(out, collect.Entry{Source: "directory-agents", ID: rel, Priority: collect.Normal,
				Content: fmt.Sprintf("Instructions for agents in %s (%s):\n%s", dirLabel(path.Dir(rel)), rel, text)})
		}
	}
	return out, nil
}

// NearestAgents returns the workspace-relative path of the AGENTS.md
// nearest to dir (workspace-relative), walking up to the root.
func NearestAgents(root, dir string) (string, bool) {
	dir = path.Clean(filepath.ToSlash(dir))
	if strings.HasPrefix(dir, "..") || path.IsAbs(dir) {
		return "", false
	}
	for {
		rel := path.Join(dir, "AGENTS.md")
		if workspaceFile(root, rel) {
			return rel, true
		}
		if dir == "." {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// DirectoryReadme injects the README.md of the directory of the file in
// play, trimmed to sources.readme.maxChars.
type DirectoryReadme struct{}

// Name implements Source.
func (DirectoryReadme) Name() string { return "directory-readme" }

// readmeNames are tried in order in each directory.
var readmeNames = []string{"README.md", "readme.md", "Readme.md", "README"}

// Collect implements Source.
func (DirectoryReadme) Collect(ctx context.Context, ev *Event) ([]collect.Entry, error) {
	if !ev.Config.Sources.Readme.Enabled {
		return nil, nil
	}
	switch ev.Name {
	case hookevent.PreToolUse:
		if !IsEdit(ev.Tool) {
			return nil, nil
		}
	case hookevent.PostToolUse, hookevent.PostToolBatch:
	default:
		return nil, nil
	}
	var out []collect.Entry
	for _, d := range parents(ev.Files) {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		rel, ok := DirReadme(ev.Root, d)
		if !ok {
			continue
		}
		if text, ok := ReadTrimmed(ev.Root, rel, ev.Config.Sources.Readme.MaxChars); ok {
			out = append(out, collect.Entry{Source: "directory-readme", ID: rel, Priority: collect.Low,
				Content: fmt.Sprintf("README of %s (%s):\n%s", dirLabel(d), rel, text)})
		}
	}
	return out, nil
}

// DirReadme returns the workspace-relative path of dir's README, if any.
func DirReadme(root, dir string) (string, bool) {
	dir = path.Clean(filepath.ToSlash(dir))
	if strings.HasPrefix(dir, "..") || path.IsAbs(dir) {
		return "", false
	}
	for _, n := range readmeNames {
		rel := path.Join(dir, n)
		if workspaceFile(root, rel) {
			return rel, true
		}
	}
	return "", false
}

// workspaceFile reports whether rel is a regular file whose real path is
// inside root: an AGENTS.md or README linked to a file outside is none.
// Only a file that exists has its links resolved.
func workspaceFile(root, rel string) bool {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	info, err := os.Stat(abs)
	return err == nil && info.Mode().IsRegular() && wspath.Inside(root, abs)
}

// parents returns the distinct directories of files, in order.
func parents(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		d := path.Dir(filepath.ToSlash(f))
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func dirLabel(d string) string {
	if d == "." {
		return "the workspace root"
	}
	return d + "/"
}

// ReadTrimmed reads the workspace file rel (at most maxDirFileSize bytes)
// and trims it to max characters, saying where the rest is; ok is false for
// an unreadable or blank file, or one whose real path is outside root.
func ReadTrimmed(root, rel string, max int) (string, bool) {
	f, err := wspath.Open(root, filepath.FromSlash(rel))
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, maxDirFileSize)
	n, _ := io.ReadFull(f, buf)
	text := strings.TrimSpace(string(buf[:n]))
	if text == "" {
		return "", false
	}
	if len(text) > max {
		text = cut(text, max) + "\n… (trimmed; the whole file is " + rel + ")"
	}
	return text, true
}
