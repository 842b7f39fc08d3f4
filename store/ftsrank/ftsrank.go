// Package ftsrank adds to SQLite's FTS5 the rank function of ctxls's entity
// full-text table: bm25() over postings without positions
// (docs/decisions/0130).
package ftsrank

/*
#cgo LDFLAGS: -lm
#include "fts5abi.h"
int ctxRegister(sqlite3 *db, char **err, const void *routines);
static int ctxAutoRegister(void) { return sqlite3_auto_extension((void (*)(void))ctxRegister); }
*/
import "C"

import (
	"fmt"
	"sync"

	// The SQLite whose functions rank.c calls.
	_ "github.com/mattn/go-sqlite3"
)

// Name is the rank function's name in an FTS5 query: "ctxrank(w1, w2, …)"
// with one weight per column, as bm25() takes them.
const Name = "ctxrank"

// register installs the function in every SQLite connection the process
// opens from then on. SQLite keeps its automatic extensions per process,
// so it runs once.
var register = sync.OnceValue(func() error {
	if rc := C.ctxAutoRegister(); rc != 0 {
		return fmt.Errorf("register the FTS5 function %s: SQLite error %d", Name, int(rc))
	}
	return nil
})

// Register makes Name available to every SQLite connection opened after it
// returns. It must be called before the connections that use it are
// opened; calling it again does nothing.
func Register() error { return register() }
