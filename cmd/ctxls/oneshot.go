package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// oneRequestHeapLimit is the heap size at which a one-request process starts
// collecting garbage (see oneRequestRuntime). The largest hook input is
// 10 MB; a query's working set is a few megabytes.
const oneRequestHeapLimit = 256 << 20

// oneRequestRuntime tunes the Go runtime for a process that answers one
// request and exits (a hook, `ctxls query`, `ctxls context`), where every
// page of fresh memory costs a page fault and the garbage collector has
// nothing to give back before exit (docs/decisions/0080):
//
//   - one P: the scheduler stops spinning a second thread, and allocations
//     fill one set of per-P spans instead of two. SQLite work (cgo) still
//     overlaps on other threads; a hook's sources still run concurrently.
//   - no collection below oneRequestHeapLimit: a cycle started up mark
//     workers and work buffers that cost more pages than it freed.
//
// Settings in the environment (GOMAXPROCS, GOGC, GOMEMLIMIT) win.
func oneRequestRuntime() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(oneRequestHeapLimit)
	}
}
