// Command colstats prints, for terms read from stdin (one a line), the
// documents of an index that hold each term in each full-text column.
// A scratch tool for fitting the relevance gate (scripts/gate).
package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE temp.v_col USING fts5vocab(main, fts, col)`); err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		rows, err := db.Query(`SELECT col, doc FROM temp.v_col WHERE term = ?`, sc.Text())
		if err != nil {
			panic(err)
		}
		fmt.Print(sc.Text())
		for rows.Next() {
			var col string
			var n int
			rows.Scan(&col, &n)
			fmt.Printf("\t%s=%d", col, n)
		}
		rows.Close()
		fmt.Println()
	}
}
