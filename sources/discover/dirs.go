package discover

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Dirs returns the directories to scan for a workspace root and a home
// directory ("" for none): the seed's eight, then those of the plugins
// listed in ~/.claude/plugins/installed_plugins.json.
func Dirs(root, home string) []Dir {
	sub := map[Type]string{Agent: "agents", Command: "commands", Skill: "skills", OutputStyle: "output-styles"}
	var out []Dir
	for _, t := range Types {
		if home != "" {
			out = append(out, Dir{Path: filepath.Join(home, ".claude", sub[t]), Type: t, Scope: Global})
		}
		out = append(out, Dir{Path: filepath.Join(root, ".claude", sub[t]), Type: t, Scope: Local})
	}
	if home != "" {
		for _, p := range installedPlugins(home) {
			out = append(out, pluginDirs(p)...)
		}
	}
	return out
}

// installedPlugins reads Claude Code's plugin registry, in its version 1
// ({"plugins": {id: {installPath}}}) and version 2 ({"plugins": {id:
// [{installPath}]}}) shapes. A missing or unreadable registry lists none.
func installedPlugins(home string) []string {
	data, err := os.ReadFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil {
		return nil
	}
	var reg struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return nil
	}
	type install struct {
		InstallPath string `json:"installPath"`
	}
	seen := map[string]bool{}
	var out []string
	ids := make([]string, 0, len(reg.Plugins))
	for id := range reg.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		raw := reg.Plugins[id]
		var many []install
		if json.Unmarshal(raw, &many) != nil {
			var one install
			if json.Unmarshal(raw, &one) != nil {
				continue
			}
			many = []install{one}
		}
		for _, in := range many {
			if in.InstallPath != "" && !seen[in.InstallPath] {
				seen[in.InstallPath] = true
				out = append(out, in.InstallPath)
			}
		}
	}
	return out
}

// pluginDirs returns a plugin's resource directories: the standard ones and
// any its manifest names.
func pluginDirs(dir string) []Dir {
	var man struct {
		Name         string          `json:"name"`
		Agents       json.RawMessage `json:"agents"`
		Commands     json.RawMessage `json:"commands"`
		OutputStyles json.RawMessage `json:"outputStyles"`
		Skills       json.RawMessage `json:"skills"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json")); err == nil {
		json.Unmarshal(data, &man)
	}
	name := man.Name
	if name == "" {
		name = filepath.Base(dir)
	}
	var out []Dir
	seen := map[string]bool{}
	add := func(t Type, rels ...string) {
		for _, r := range rels {
			p := filepath.Clean(filepath.Join(dir, filepath.FromSlash(r)))
			if rel, err := filepath.Rel(dir, p); err != nil || strings.HasPrefix(rel, "..") {
				continue // a manifest may not point outside its plugin
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, Dir{Path: p, Type: t, Scope: Plugin, Plugin: name})
			}
		}
	}
	add(Agent, append([]string{"agents"}, paths(man.Agents)...)...)
	add(Command, append([]string{"commands"}, paths(man.Commands)...)...)
	add(Skill, append([]string{"skills"}, paths(man.Skills)...)...)
	add(OutputStyle, append([]string{"output-styles"}, paths(man.OutputStyles)...)...)
	return out
}

// paths decodes a manifest path field: a string or a list of strings.
func paths(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}
