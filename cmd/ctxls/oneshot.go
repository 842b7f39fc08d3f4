package main

import (
	"os"
	"runtime/debug"
)

// oneRequestHeapLimit is the heap size at which a one-request process starts
// collecting garbage (see oneRequestRuntime). The largest hook input is
// 10 MB; a query's working set is a few megabytes.
const oneRequestHeapLimit = 256 << 20

// oneRequestRuntime tunes the Go runtime for a process that answers one
// request and exits (a hook, `ctxls query`, `ctxls context`): no garbage
// collection below oneRequestHeapLimit. Such a process allocates 1–3 MB and
// rarely reaches the first collection, but when it did, the cycle's mark
// workers and work buffers cost ~200 page faults more than the memory it
// freed saved (docs/decisions/0080). GOGC or GOMEMLIMIT in the environment
// win.
func oneRequestRuntime() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(oneRequestHeapLimit)
	}
}
