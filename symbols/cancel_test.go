package symbols

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// bigGoSource returns a Go file of n functions, large enough that parsing it
// takes far longer than a millisecond.
func bigGoSource(n int) []byte {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := range n {
		fmt.Fprintf(&b, "// f%d adds.\nfunc f%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a + b + %d\n}\n\n", i, i, i)
	}
	return []byte(b.String())
}

// A parse stopped by its context's deadline must leave the extractor's
// parser ready for the next file. Tree-sitter resumes a halted parse on the
// parser's next call unless it is reset, reading the new text from where
// the old one stopped: the next file came out as a mixture of both, with
// syntax errors and declarations at the wrong lines, and the index stored
// it so (hooks.TestCheckoutWalkOfARealHistory under load).
func TestParseAfterADeadline(t *testing.T) {
	small := []byte("package small\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\ntype T struct{ n int }\n\n// Get returns n.\nfunc (t T) Get() int { return t.n }\n")
	want, err := Extract(context.Background(), "small.go", small)
	if err != nil {
		t.Fatal(err)
	}
	big := bigGoSource(40000)
	x := NewExtractor()
	defer x.Close()
	halted := 0
	for round := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(round%5)*200*time.Microsecond+100*time.Microsecond)
		_, err := x.Extract(ctx, "big.go", big)
		cancel()
		if err != nil {
			halted++
		}
		got, err := x.Extract(context.Background(), "small.go", small)
		if err != nil {
			t.Fatalf("round %d: the parse after a halted one failed: %v", round, err)
		}
		if got.HasErrors || !reflect.DeepEqual(got.Entities, want.Entities) {
			t.Fatalf("round %d: the parse after a halted one differs from a parse by a new parser:\ngot  %+v (errors %v)\nwant %+v", round, got.Entities, got.HasErrors, want.Entities)
		}
	}
	if halted == 0 {
		t.Fatal("no parse of the large file was halted by its deadline: the test checks nothing")
	}
}
