//go:build !unix

package think

import "os/exec"

// killGroup: elsewhere the tool alone is killed on cancel.
func killGroup(*exec.Cmd) {}
