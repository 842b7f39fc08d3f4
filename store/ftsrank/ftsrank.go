// Package ftsrank adds to SQLite's FTS5 the rank function of ctxls's code
// full-text tables: bm25() over postings without positions
// (docs/decisions/0130, 0131); and to SQL the hash that keys the index of
// references and the entities by name (HashName, NameKey, decision 0132).
package ftsrank

/*
#cgo LDFLAGS: -lm
#include "fts5abi.h"
int ctxRegister(sqlite3 *db);
int ctxRegisterHash(sqlite3 *db);
*/
import "C"

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// Name is the rank function's name in an FTS5 query: "ctxrank(w1, w2, …)"
// with one weight per column, as bm25() takes them.
const Name = "ctxrank"

// HashName is the SQL function "ctxhash(text)": a 23-bit hash of the
// text, for an index whose key is a hash of a column; NameKey,
// "ctxnamekey(text)", hashes the text's part before its first dot, ASCII
// letters folded as COLLATE NOCASE folds them, so that one key finds a
// name without case and a file's name by its stem. Every connection that
// writes a table indexed so must have them, as every one the store opens
// does.
const (
	HashName = "ctxhash"
	NameKey  = "ctxnamekey"
)

// handleOffset is where a *sqlite3.SQLiteConn keeps its C handle. The
// driver does not export it; its type says where it is, so that another
// layout of the driver fails here with an error, never reads a wrong word.
var handleOffset = sync.OnceValues(func() (uintptr, error) {
	f, ok := reflect.TypeFor[sqlite3.SQLiteConn]().FieldByName("db")
	if !ok || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "sqlite3") {
		return 0, fmt.Errorf("register %s: the SQLite driver keeps its connection's handle elsewhere", Name)
	}
	return f.Offset, nil
})

// Register adds Name to the connection's FTS5, and HashName and NameKey
// to its SQL functions (in C like Name, so that building an index on them
// calls no Go for each row). Call it from the driver's
// ConnectHook, which runs after the connection's busy timeout is set: the
// registration reads the schema and may wait for a lock.
func Register(c *sqlite3.SQLiteConn) error {
	off, err := handleOffset()
	if err != nil {
		return err
	}
	db := *(**C.sqlite3)(unsafe.Add(unsafe.Pointer(c), off))
	if db == nil {
		return fmt.Errorf("register %s: the connection is closed", Name)
	}
	if rc := C.ctxRegister(db); rc != 0 {
		return fmt.Errorf("register %s: %s (%s)", Name, C.GoString(C.sqlite3_errstr(rc)), C.GoString(C.sqlite3_errmsg(db)))
	}
	if rc := C.ctxRegisterHash(db); rc != 0 {
		return fmt.Errorf("register %s, %s: %s (%s)", HashName, NameKey, C.GoString(C.sqlite3_errstr(rc)), C.GoString(C.sqlite3_errmsg(db)))
	}
	return nil
}
