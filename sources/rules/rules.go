// Package rules reads the instruction files that teams write for coding
// assistants (Cursor, GitHub Copilot, Claude Code, docs/kord/rules) into one
// model: a rule applies always, to files matching its globs, or only when
// its description fits (the agent decides); a rule with none of these is
// manual and never injected on its own.
//
// Loading is bounded (a few fixed directories, a cap on files and sizes),
// so it is cheap enough to repeat on every hook call.
package rules

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxls/ctxls/internal/wspath"
	"github.com/ctxls/ctxls/sources/frontmatter"
)

// Kind says when a rule applies.
type Kind string

// Rule kinds.
const (
	Always      Kind = "always"
	Glob        Kind = "glob"
	Description Kind = "description"
	Manual      Kind = "manual"
)

// Formats of rule files.
const (
	FormatClaude        = "claude"
	FormatCursor        = "cursor"
	FormatCursorLegacy  = "cursor-legacy"
	FormatCopilot       = "copilot"
	FormatCopilotScoped = "copilot-instructions"
	FormatKord          = "kord"
)

// Rule is one rule file in the common model.
type Rule struct {
	// Path is how the rule is shown: relative to the workspace root, or
	// under ~ for the user's own rules.
	Path string `json:"path"`
	// File is the absolute path; RealPath has symbolic links resolved.
	File     string `json:"-"`
	RealPath string `json:"-"`
	Format   string `json:"format"`
	Kind     Kind   `json:"kind"`
	// Globs scope a Glob rule; they match workspace-relative slash paths.
	Globs       []string `json:"globs,omitempty"`
	Description string   `json:"description,omitempty"`
	Body        string   `json:"-"`
	// Hash identifies the body for deduplication.
	Hash string `json:"hash"`
}

// Skipped is a rule file that was not loaded, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Set is what Load found.
type Set struct {
	Rules   []Rule    `json:"rules"`
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Bounds of a load: rules are a handful of small files; anything beyond
// these is not a rules directory worth a hook's time.
const (
	maxFilesPerDir = 200
	maxDepth       = 8
	maxFileSize    = 256 << 10
)

// location is one place rules live.
type location struct {
	dir    string // absolute directory to walk, or file when single
	single bool
	suffix string
	format string
	home   bool
}

func locations(root, home string) []location {
	locs := []location{
		{dir: filepath.Join(root, ".claude", "rules"), suffix: ".md", format: FormatClaude},
	}
	if home != "" {
		locs = append(locs, location{dir: filepath.Join(home, ".claude", "rules"), suffix: ".md", format: FormatClaude, home: true})
	}
	return append(locs,
		location{dir: filepath.Join(root, ".cursor", "rules"), suffix: ".mdc", format: FormatCursor},
		location{dir: filepath.Join(root, ".cursorrules"), single: true, format: FormatCursorLegacy},
		location{dir: filepath.Join(root, ".github", "copilot-instructions.md"), single: true, format: FormatCopilot},
		location{dir: filepath.Join(root, ".github", "instructions"), suffix: ".instructions.md", format: FormatCopilotScoped},
		location{dir: filepath.Join(root, "docs", "kord", "rules"), suffix: ".md", format: FormatKord},
	)
}

// Load reads every rule of the workspace at root and of the user whose home
// is home ("" for none). Rules that are the same file (by real path) or the
// same text (by hash) as an earlier one are skipped, as are rules whose
// frontmatter is malformed; the others still load. The order is stable:
// Claude Code, user, Cursor, Copilot, kord; by path within each.
func Load(ctx context.Context, root, home string) Set { return load(ctx, root, home, nil) }

func load(ctx context.Context, root, home string, cache *Cache) Set {
	var set Set
	byReal := map[string]string{}
	byHash := map[string]string{}
	for _, loc := range locations(root, home) {
		if ctx.Err() != nil {
			set.Skipped = append(set.Skipped, Skipped{Path: display(root, home, loc.dir, loc.home), Reason: "not read: " + ctx.Err().Error()})
			break
		}
		for _, file := range loc.files(root, home, &set) {
			shown := display(root, home, file, loc.home)
			// A workspace's rules must be the workspace's files (a cloned
			// repository's .cursorrules can be a link to ~/.ssh); the
			// user's own, under their home, are read wherever they link.
			within := root
			if loc.home {
				within = ""
			}
			r, err := parse(file, loc.format, within, cache)
			if err != nil {
				set.Skipped = append(set.Skipped, Skipped{Path: shown, Reason: err.Error()})
				continue
			}
			r.Path = shown
			if prev, dup := byReal[r.RealPath]; dup {
				set.Skipped = append(set.Skipped, Skipped{Path: shown, Reason: "same file as " + prev})
				continue
			}
			if prev, dup := byHash[r.Hash]; dup {
				set.Skipped = append(set.Skipped, Skipped{Path: shown, Reason: "same text as " + prev})
				continue
			}
			byReal[r.RealPath], byHash[r.Hash] = shown, shown
			set.Rules = append(set.Rules, r)
		}
	}
	return set
}

// files lists a location's rule files, bounded; problems other than a
// missing directory are recorded as skipped.
func (l location) files(root, home string, set *Set) []string {
	if l.single {
		if info, err := os.Stat(l.dir); err == nil && info.Mode().IsRegular() {
			return []string{l.dir}
		}
		return nil
	}
	var out []string
	err := filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			set.Skipped = append(set.Skipped, Skipped{Path: display(root, home, p, l.home), Reason: err.Error()})
			return nil
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(l.dir, p); strings.Count(rel, string(filepath.Separator)) >= maxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(strings.ToLower(d.Name()), l.suffix) {
			return nil
		}
		if len(out) >= maxFilesPerDir {
			set.Skipped = append(set.Skipped, Skipped{Path: display(root, home, l.dir, l.home), Reason: fmt.Sprintf("more than %d rule files; the rest are ignored", maxFilesPerDir)})
			return filepath.SkipAll
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		set.Skipped = append(set.Skipped, Skipped{Path: display(root, home, l.dir, l.home), Reason: err.Error()})
	}
	return out
}

// openRule opens a rule file of at most maxFileSize bytes, through the
// workspace boundary when within is not "".
func openRule(file, within string) (*os.File, os.FileInfo, error) {
	var f *os.File
	var err error
	if within != "" {
		f, err = wspath.Open(within, file)
	} else {
		f, err = os.Open(file)
	}
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if info.Size() > maxFileSize {
		f.Close()
		return nil, nil, fmt.Errorf("larger than %d KiB", maxFileSize>>10)
	}
	return f, info, nil
}

// parse reads one rule file and maps its format onto the model. A file
// whose real path is not inside within (when not "") is not read. With a
// cache, a file opened with the size and modification time it was parsed
// at is not read again.
func parse(file, format, within string, cache *Cache) (Rule, error) {
	r := Rule{File: file, RealPath: file, Format: format}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		r.RealPath = real
	}
	f, info, err := openRule(file, within)
	if err != nil {
		return r, err
	}
	defer f.Close()
	key := cacheKey{real: r.RealPath, format: format}
	if hit, ok := cache.get(key, info); ok {
		hit.rule.File = file
		return hit.rule, hit.err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize))
	if err != nil {
		return r, err
	}
	r, err = fill(r, data, format)
	cache.put(key, info, r, err)
	return r, err
}

// fill maps a rule file's text, in its format, onto r.
func fill(r Rule, data []byte, format string) (Rule, error) {
	meta, body, err := frontmatter.Parse(data)
	if err != nil {
		return r, fmt.Errorf("malformed %w", err)
	}
	r.Body = strings.TrimSpace(body)
	if r.Body == "" {
		return r, errors.New("empty rule")
	}
	sum := sha256.Sum256([]byte(r.Body))
	r.Hash = hex.EncodeToString(sum[:8])
	r.Description = strings.TrimSpace(meta.Description)
	scope := func(globs []string) {
		for _, g := range globs {
			if g == "**" || g == "**/*" || g == "*" {
				r.Kind, r.Globs = Always, nil
				return
			}
		}
		if len(globs) > 0 {
			r.Kind, r.Globs = Glob, globs
		}
	}
	switch format {
	case FormatClaude:
		r.Kind = Always
		scope(meta.Paths)
	case FormatCursorLegacy, FormatCopilot:
		r.Kind = Always
	case FormatCursor:
		switch {
		case meta.AlwaysApply:
			r.Kind = Always
		case len(meta.Globs) > 0:
			scope(meta.Globs)
		case r.Description != "":
			r.Kind = Description
		default:
			r.Kind = Manual
		}
	case FormatCopilotScoped:
		switch {
		case len(meta.ApplyTo) > 0:
			scope(meta.ApplyTo)
		case r.Description != "":
			r.Kind = Description
		default:
			r.Kind = Manual
		}
	case FormatKord:
		globs := append(append(append([]string(nil), meta.Globs...), meta.Paths...), meta.ApplyTo...)
		switch {
		case meta.AlwaysApply:
			r.Kind = Always
		case len(globs) > 0:
			scope(globs)
		case r.Description != "":
			r.Kind = Description
		default:
			r.Kind = Always
		}
	}
	for i, g := range r.Globs {
		g = normalize(g)
		if !doublestar.ValidatePattern(g) {
			return r, fmt.Errorf("invalid glob %q", r.Globs[i])
		}
		r.Globs[i] = g
	}
	return r, nil
}

// normalize makes a glob match workspace-relative slash paths: leading ./
// and / are dropped, a directory ("src/") means everything under it, and a
// pattern without a slash ("*.go") matches the file name at any depth, as in
// .gitignore.
func normalize(g string) string {
	g = filepath.ToSlash(strings.TrimSpace(g))
	g = strings.TrimPrefix(g, "./")
	g = strings.TrimLeft(g, "/")
	if strings.HasSuffix(g, "/") {
		g += "**"
	}
	if !strings.Contains(g, "/") {
		g = "**/" + g
	}
	return g
}

// Match reports the first of the rule's globs that matches rel, a
// workspace-relative slash path.
func (r *Rule) Match(rel string) (glob string, ok bool) {
	rel = path.Clean(filepath.ToSlash(rel))
	for _, g := range r.Globs {
		if m, _ := doublestar.Match(g, rel); m {
			return g, true
		}
	}
	return "", false
}

func display(root, home, p string, inHome bool) string {
	base := root
	prefix := ""
	if inHome {
		base, prefix = home, "~/"
	}
	rel, err := filepath.Rel(base, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return prefix + filepath.ToSlash(rel)
}
