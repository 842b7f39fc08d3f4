// Command declfiles prints, for terms read from stdin (one a line), the
// files of an index that declare each term: the files of the entities whose
// name, qualified name or signature holds it. A scratch tool for fitting
// the prompt gate (scripts/gate).
package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		t := sc.Text()
		rows, err := db.Query(`SELECT f.path, count(*) FROM fts JOIN entities e ON e.seq = fts.rowid
			JOIN files f ON f.id = e.file_id WHERE fts MATCH ? GROUP BY f.path`,
			// A signature's terms are in one column per bit of their
			// frequency (store.textLayout, decisions 0130 and 0131).
			`{name qname signature signature_2 signature_4 signature_8 signature_16} : "`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		if err != nil {
			fmt.Fprintln(os.Stderr, t, err)
			fmt.Println(t)
			continue
		}
		fmt.Print(t)
		for rows.Next() {
			var p string
			var n int
			if err := rows.Scan(&p, &n); err != nil {
				panic(err)
			}
			fmt.Printf("\t%s=%d", p, n)
		}
		rows.Close()
		fmt.Println()
	}
}
