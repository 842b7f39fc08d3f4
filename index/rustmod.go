package index

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// rustModule returns the file of the Rust module a path names from the file
// from ("crate::a::b" → src/a/b.rs or src/a/b/mod.rs), or "" when it names
// no module of the workspace: a crate outside it (std, a dependency), or an
// item rather than a module. A path starts at the crate root (crate), the
// file's module (self), its parent (super), a child module of the file's,
// or another crate of the workspace by name.
func (fs *fileSet) rustModule(from string, segs []string) string {
	if len(segs) == 0 {
		return ""
	}
	file := ""
	switch segs[0] {
	case "crate":
		file = fs.crateFile(fs.crateRoot(from))
		segs = segs[1:]
	case "self":
		file = from
		segs = segs[1:]
	case "super":
		file = from
		for len(segs) > 0 && segs[0] == "super" {
			if file = fs.rustParent(file); file == "" {
				return ""
			}
			segs = segs[1:]
		}
	default:
		if file = fs.rustChild(from, segs[0]); file == "" {
			file = fs.workspaceCrate(segs[0])
		}
		segs = segs[1:]
	}
	for _, s := range segs {
		if file == "" {
			return ""
		}
		file = fs.rustChild(file, s)
	}
	return file
}

// rustChildDir is the directory of a module file's child modules: its own
// for lib.rs, main.rs and mod.rs, else the one named after it.
func rustChildDir(file string) string {
	switch base := path.Base(file); base {
	case "lib.rs", "main.rs", "mod.rs":
		return path.Dir(file)
	default:
		return path.Join(path.Dir(file), strings.TrimSuffix(base, ".rs"))
	}
}

// rustChild returns the file of module name declared in file's module.
func (fs *fileSet) rustChild(file, name string) string {
	dir := rustChildDir(file)
	for _, p := range []string{dir + "/" + name + ".rs", dir + "/" + name + "/mod.rs"} {
		if fs.paths[p] != 0 {
			return p
		}
	}
	return ""
}

// rustParent returns the file of the module whose child file's module is.
func (fs *fileSet) rustParent(file string) string {
	dir := path.Dir(file)
	if path.Base(file) == "mod.rs" || path.Base(file) == "lib.rs" || path.Base(file) == "main.rs" {
		if path.Base(file) != "mod.rs" {
			return "" // the crate root has no parent
		}
		dir = path.Dir(dir)
	}
	for _, p := range []string{dir + "/mod.rs", dir + "/lib.rs", dir + "/main.rs", dir + ".rs"} {
		if fs.paths[p] != 0 {
			return p
		}
	}
	return ""
}

// crateRoot returns the directory of the crate root file (lib.rs or
// main.rs) above file, nearest first, "" when there is none.
func (fs *fileSet) crateRoot(file string) string {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		if fs.crateFile(dir) != "" {
			return dir
		}
		if dir == "." || dir == "/" {
			return ""
		}
	}
}

// crateFile returns the crate root file of a directory, "" when it has none.
func (fs *fileSet) crateFile(dir string) string {
	for _, p := range []string{dir + "/lib.rs", dir + "/main.rs"} {
		p = strings.TrimPrefix(p, "./")
		if fs.paths[p] != 0 {
			return p
		}
	}
	return ""
}

// workspaceCrate returns the lib.rs of the workspace's crate of a name:
// the root's package (Cargo.toml's name), or a member whose directory is
// named so (clap_builder/src/lib.rs; "-" in a directory is "_" in a crate
// name). "" for a crate outside the workspace.
func (fs *fileSet) workspaceCrate(name string) string {
	if name == fs.rootCrate && fs.paths["src/lib.rs"] != 0 {
		return "src/lib.rs"
	}
	for _, p := range fs.byBase("lib.rs") {
		dir := strings.TrimSuffix(p, "/src/lib.rs")
		if dir == p {
			continue
		}
		if strings.ReplaceAll(path.Base(dir), "-", "_") == name {
			return p
		}
	}
	return ""
}

// cargoPackage returns the package name the Cargo.toml at root declares, ""
// when there is none or it cannot be read.
func cargoPackage(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "Cargo.toml"))
	if err != nil {
		return ""
	}
	inPackage := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inPackage = line == "[package]"
			continue
		}
		if k, v, ok := strings.Cut(line, "="); inPackage && ok && strings.TrimSpace(k) == "name" {
			return strings.ReplaceAll(strings.Trim(strings.TrimSpace(v), `"'`), "-", "_")
		}
	}
	return ""
}
