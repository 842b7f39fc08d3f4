package index

import "unsafe"

// unsafeString views b as a string without copying. The analyzer only reads
// it and copies what it keeps.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
