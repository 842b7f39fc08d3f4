package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/hookcall"
	"github.com/ctxls/ctxls/internal/wspath"
)

// indexWait bounds an index call to the daemon: it answers at once or
// refuses, and ctxls-core then walks.
const indexWait = 5 * time.Second

// parseIndex reads the arguments after `index` when they are only --root
// and --json, the run the workspace's daemon may answer without a walk
// (decision 0110); ok is false for anything else (--check, --workers,
// help, a malformed flag), which ctxls-core runs.
func parseIndex(args []string) (req *hookcall.Request, ok bool) {
	root, asJSON := ".", false
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") {
			return nil, false
		}
		switch name {
		case "json":
			asJSON = true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, false
				}
				asJSON = b
			}
		case "root":
			if !hasValue {
				if i+1 == len(args) {
					return nil, false
				}
				i++
				value = args[i]
			}
			root = value
		default:
			return nil, false
		}
	}
	abs, err := wspath.Root(root)
	if err != nil {
		return nil, false
	}
	return &hookcall.Request{Root: abs, Index: &hookcall.Index{JSON: asJSON}}, true
}
