package symbols

import (
	"bytes"
	"testing"
)

func TestUnknownKotlin(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"fun interface Keyer<T> {", "    interface Keyer<T> {"},
		{"fun  interface X", "     interface X"},
		{"builder: ImageRequest.Builder.() -> Unit,", "builder:                      () -> Unit,"},
		{"block: Map<String, Int>.(Int) -> Unit", "block:                  (Int) -> Unit"},
		{"fun interfaces()", "fun interfaces()"},
		{"val x = foo.(bar)", "val x = foo.(bar)"},
		{"plain code", "plain code"},
	} {
		if got := string(unknownKotlin([]byte(tt.in))); got != tt.want {
			t.Errorf("unknownKotlin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzUnknownKotlin: the parser's copy keeps every byte's offset, and
// differs from the source only in bytes blanked to spaces, so that names
// and lines read from the source match the tree.
func FuzzUnknownKotlin(f *testing.F) {
	for _, s := range []string{"fun interface A {}", "x: A.B.() -> Unit", "é fun\tinterface Ω", "A<(>.("} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in := bytes.Clone(src)
		out := unknownKotlin(src)
		if !bytes.Equal(src, in) {
			t.Fatal("the source was modified")
		}
		if len(out) != len(src) {
			t.Fatalf("length %d, want %d", len(out), len(src))
		}
		for i := range out {
			if out[i] != src[i] && out[i] != ' ' {
				t.Fatalf("byte %d changed to %q", i, out[i])
			}
		}
	})
}
