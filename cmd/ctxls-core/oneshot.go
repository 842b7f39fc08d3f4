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

// daemonHeapLimit is the heap at which the hook daemon collects garbage
// (see daemonRuntime).
const daemonHeapLimit = 32 << 20

// daemonRuntime tunes the Go runtime for the hook daemon: its live heap is
// ~1 MB and each call allocates a few MB, so the default GOGC collected
// about every other call (30 collections, 89 ms of GC CPU in 56 prompts on
// GOROOT/src); collecting only near daemonHeapLimit took 3 collections and
// 6 ms, for ~100 MB of resident memory instead of ~70. GOGC or GOMEMLIMIT
// in the environment win.
func daemonRuntime() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(daemonHeapLimit)
	}
}
