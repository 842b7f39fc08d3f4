package symbols

import "testing"

func TestQueriesCompile(t *testing.T) {
	for _, l := range Languages() {
		if _, err := l.compiled(); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
	}
}

func TestLanguageFor(t *testing.T) {
	tests := map[string]string{
		"a/b.go": "go", "x.TS": "typescript", "c.tsx": "tsx", "d.mjs": "javascript", "e.py": "python",
		"f.rs": "rust", "G.java": "java", "h.h": "c", "i.hpp": "cpp", "j.cs": "csharp", "Rakefile": "ruby",
		"k.php": "php", "README.md": "markdown",
	}
	for p, want := range tests {
		l, ok := LanguageFor(p)
		if !ok || l.Name != want {
			t.Errorf("LanguageFor(%q) = %v, %v; want %s", p, l, ok, want)
		}
	}
	for _, p := range []string{"notes.txt", "Makefile", ".go", "image.png"} {
		if _, ok := LanguageFor(p); ok {
			t.Errorf("LanguageFor(%q) claimed a language", p)
		}
	}
}
