// Command dumpindex prints the code-derived content of a ctxls index, one
// line per row or full-text posting (see internal/indexdump), for comparing
// two indexes of the same tree:
//
//	go run -tags sqlite_fts5 ./scripts/dumpindex A/.ctxls/index.db | sort > a.txt
//	go run -tags sqlite_fts5 ./scripts/dumpindex B/.ctxls/index.db | sort > b.txt
//	cmp a.txt b.txt
package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"

	_ "github.com/mattn/go-sqlite3"

	"github.com/ctxls/ctxls/internal/indexdump"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dumpindex INDEX.DB")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite3", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		fmt.Fprintln(os.Stderr, "dumpindex:", err)
		os.Exit(1)
	}
	defer db.Close()
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	err = indexdump.Dump(context.Background(), db, func(line string) {
		out.WriteString(line)
		out.WriteByte('\n')
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dumpindex:", err)
		os.Exit(1)
	}
}
