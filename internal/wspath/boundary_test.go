package wspath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// boundaryTree makes a workspace and, beside it, a directory outside it
// holding a secret, with links of every kind from the one into the other.
func boundaryTree(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub"), filepath.Join(outside, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(root, "real.go"):           "package real",
		filepath.Join(root, "sub", "a.go"):       "package sub",
		filepath.Join(outside, "secret.txt"):     "AWS_SECRET_ACCESS_KEY=outside",
		filepath.Join(outside, "deep", "key.go"): "AWS_SECRET_ACCESS_KEY=deep",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"passwd.go":      filepath.Join(outside, "secret.txt"), // absolute, outside
		"relout.go":      "../outside/secret.txt",              // relative, outside
		"outdir":         outside,                              // a directory outside
		"link.go":        "real.go",                            // a file inside
		"abslink.go":     filepath.Join(root, "real.go"),       // absolute, inside
		"sublink":        "sub",                                // a directory inside
		"dangling.go":    "missing.go",                         // nothing, inside
		"dangleout.go":   filepath.Join(outside, "missing.go"), // nothing, outside
		"loop1":          "loop2",
		"loop2":          "loop1",
		"sub/up.go":      "../../outside/secret.txt", // from a subdirectory, outside
		"sub/outsub":     "../../outside/deep",       // a directory outside, from a subdirectory
		"sub/backin.txt": "../real.go",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestBoundary(t *testing.T) {
	root, outside := boundaryTree(t)
	tests := []struct {
		name    string
		content string // what Open reads when it may
		outside bool   // ErrOutside
		missing bool   // fs.ErrNotExist
		failed  bool   // another error (a loop)
	}{
		{name: "real.go", content: "package real"},
		{name: filepath.Join(root, "real.go"), content: "package real"},
		{name: "sub/a.go", content: "package sub"},
		{name: "sub/../real.go", content: "package real"},
		{name: "link.go", content: "package real"},
		{name: "abslink.go", content: "package real"},
		{name: "sublink/a.go", content: "package sub"},
		{name: "sub/backin.txt", content: "package real"},
		{name: filepath.Join(root, "sublink", "a.go"), content: "package sub"},
		{name: "passwd.go", outside: true},
		{name: "relout.go", outside: true},
		{name: "outdir/secret.txt", outside: true},
		{name: "outdir/deep/key.go", outside: true},
		{name: "sub/up.go", outside: true},
		{name: "sub/outsub/key.go", outside: true},
		{name: "sublink/outsub/key.go", outside: true},
		{name: "../outside/secret.txt", outside: true},
		{name: "sub/../../outside/secret.txt", outside: true},
		{name: "sublink/../../outside/secret.txt", outside: true},
		{name: filepath.Join(outside, "secret.txt"), outside: true},
		{name: "dangleout.go", outside: true},
		{name: "outdir/new.go", outside: true},
		{name: "dangling.go", missing: true},
		{name: "sub/new.go", missing: true},
		{name: "loop1", failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantInside := !tt.outside && !tt.failed
			if got := Inside(root, tt.name); got != wantInside {
				t.Errorf("Inside = %v, want %v", got, wantInside)
			}
			data, err := ReadFile(root, tt.name)
			switch {
			case tt.outside:
				if !errors.Is(err, ErrOutside) {
					t.Errorf("ReadFile = %q, %v; want ErrOutside", data, err)
				}
			case tt.missing:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("ReadFile = %q, %v; want fs.ErrNotExist", data, err)
				}
			case tt.failed:
				if err == nil || errors.Is(err, ErrOutside) {
					t.Errorf("ReadFile = %q, %v; want an error other than ErrOutside", data, err)
				}
			default:
				if err != nil || string(data) != tt.content {
					t.Errorf("ReadFile = %q, %v; want %q", data, err, tt.content)
				}
			}
			f, err := Open(root, tt.name)
			if err == nil {
				f.Close()
			}
			if (err == nil) != (tt.content != "") {
				t.Errorf("Open error %v, want one: %v", err, tt.content == "")
			}
		})
	}
}

func TestResolve(t *testing.T) {
	root, outside := boundaryTree(t)
	tests := []struct {
		name, want string
	}{
		{"link.go", filepath.Join(root, "real.go")},
		{"sublink/a.go", filepath.Join(root, "sub", "a.go")},
		{"sublink/new.go", filepath.Join(root, "sub", "new.go")},
		{"sublink/../real.go", filepath.Join(root, "real.go")},
		{".", root},
	}
	for _, tt := range tests {
		if got, err := Resolve(root, tt.name); err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	// A root named through a link (an editor's folder) stands for its
	// real path, and answers are named under it.
	alias := filepath.Join(filepath.Dir(root), "alias")
	if err := os.Symlink("ws", alias); err != nil {
		t.Fatal(err)
	}
	if got, err := Resolve(alias, "sublink/a.go"); err != nil || got != filepath.Join(alias, "sub", "a.go") {
		t.Errorf("Resolve(alias, sublink/a.go) = %q, %v", got, err)
	}
	if data, err := ReadFile(alias, "abslink.go"); err != nil || string(data) != "package real" {
		t.Errorf("ReadFile(alias, abslink.go) = %q, %v", data, err)
	}
	if _, err := ReadFile(alias, "passwd.go"); !errors.Is(err, ErrOutside) {
		t.Errorf("ReadFile(alias, passwd.go) error %v, want ErrOutside", err)
	}
	if _, err := Resolve(root, "outdir"); !errors.Is(err, ErrOutside) {
		t.Errorf("Resolve(outdir) error %v, want ErrOutside", err)
	}
	if !Within(root, root) || !Within(root, filepath.Join(root, "x")) || Within(root, outside) || Within(root, root+"x") {
		t.Error("Within disagrees with the names")
	}
}

// A directory swapped for a link to the outside while files are opened
// through it: check-then-open would read the secret now and then.
func TestOpenNotFooledBySwap(t *testing.T) {
	root, outside := boundaryTree(t)
	dir := filepath.Join(root, "swap")
	aside := filepath.Join(root, "swap.real")
	if err := os.MkdirAll(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aside, "key.go"), []byte("package swap"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(dir)
			if i%2 == 0 {
				os.Symlink(filepath.Join(outside, "deep"), dir)
			} else {
				os.Symlink("swap.real", dir)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	read := 0
	for range 3000 {
		data, err := ReadFile(root, "swap/key.go")
		if err != nil {
			continue
		}
		read++
		if string(data) != "package swap" {
			t.Fatalf("read %q through a swapped link", data)
		}
	}
	t.Logf("%d of 3000 reads got the inside file", read)
}

// The boundary's cost per file read, against os.ReadFile, for a file four
// directories down: the index reads every changed file through it.
func BenchmarkReadFile(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	rel := filepath.Join("a", "b", "c", "d", "x.go")
	if err := os.MkdirAll(filepath.Join(root, "a", "b", "c", "d"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), make([]byte, 8<<10), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(filepath.Join(root, rel)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wspath.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadFile(root, rel); err != nil {
				b.Fatal(err)
			}
		}
	})
}
