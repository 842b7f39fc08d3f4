package symbols

import (
	"bytes"
	"regexp"
)

// Kotlin syntax that smacker's Kotlin grammar predates, and that made it
// misread the rest of a file (decision 0128): a functional interface,
// `fun interface Keyer<T> {`, and a function type with a receiver,
// `builder: ImageRequest.Builder.() -> Unit`.
var (
	kotlinFunInterface = regexp.MustCompile(`\bfun\s+interface\b`)
	kotlinReceiverType = regexp.MustCompile(`\b[A-Z][\w.]*(?:<[^<>()\n]*>)?\.\(`)
)

// unknownKotlin blanks out what the grammar does not know: the `fun` of a
// functional interface, which then parses as an interface, and the
// receiver of a function type, which then parses as a plain function
// type. It returns src itself when there is neither.
func unknownKotlin(src []byte) []byte {
	funIface := kotlinFunInterface.FindAllIndex(src, -1)
	receivers := kotlinReceiverType.FindAllIndex(src, -1)
	if len(funIface) == 0 && len(receivers) == 0 {
		return src
	}
	out := bytes.Clone(src)
	for _, m := range funIface {
		blank(out[m[0] : m[0]+len("fun")])
	}
	for _, m := range receivers {
		blank(out[m[0] : m[1]-1]) // keep the "("
	}
	return out
}

func blank(b []byte) {
	for i := range b {
		b[i] = ' '
	}
}
