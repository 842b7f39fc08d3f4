// Package damage does to files what tests of ctxls's recovery paths need:
// database pages overwritten as a failing disk or a stray write would leave
// them, and workspaces large enough for that damage to reach the tables a
// query reads.
package damage

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// pageSize is SQLite's default page size, which ctxls's files use.
const pageSize = 4096

// Pages overwrites the pages of the closed database file at path from the
// given fraction of its length to its end. The pages of the schema (the
// first page, with the header, and the rest of its b-tree, which a schema
// change can put anywhere) always stay, so that opening the file succeeds
// and only the queries that read the damaged pages fail: FirstPage is the
// damage that opening meets.
func Pages(path string, from float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	start := max(int(float64(len(data)/pageSize)*from)*pageSize, pageSize)
	if start >= len(data) {
		return fmt.Errorf("damage %s: no page after the first to damage (%d bytes)", path, len(data))
	}
	keep, err := schemaPages(data)
	if err != nil {
		return fmt.Errorf("damage %s: %w", path, err)
	}
	for i := start; i < len(data); i++ {
		if !keep[i/pageSize+1] {
			data[i] = byte(i*7 + 3)
		}
	}
	return os.WriteFile(path, data, 0o644)
}

// schemaPages are the numbers (from 1) of the pages of the schema's
// b-tree, rooted at page 1, in a database file's bytes (SQLite's file
// format: an interior table page, type 5, holds its cells' child page
// numbers and a right-most child; a leaf, type 13, none).
func schemaPages(data []byte) (map[int]bool, error) {
	pages := map[int]bool{}
	var walk func(page int) error
	walk = func(page int) error {
		if page < 1 || page*pageSize > len(data) || pages[page] {
			return fmt.Errorf("schema b-tree names page %d of %d", page, len(data)/pageSize)
		}
		pages[page] = true
		b := data[(page-1)*pageSize : page*pageSize]
		h := 0
		if page == 1 {
			h = 100 // the file header
		}
		switch b[h] {
		case 13:
			return nil
		case 5:
		default:
			return fmt.Errorf("schema page %d has type %d", page, b[h])
		}
		cells := int(binary.BigEndian.Uint16(b[h+3:]))
		for i := range cells {
			off := int(binary.BigEndian.Uint16(b[h+12+2*i:]))
			if off+4 > len(b) {
				return fmt.Errorf("schema page %d: cell %d at %d", page, i, off)
			}
			if err := walk(int(binary.BigEndian.Uint32(b[off:]))); err != nil {
				return err
			}
		}
		return walk(int(binary.BigEndian.Uint32(b[h+8:])))
	}
	return pages, walk(1)
}

// FirstPage overwrites the first page of the closed database file at path
// (its header and the start of its schema), as a stray write would: opening
// the file fails, and a writer moves it aside for a new one.
func FirstPage(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	page := make([]byte, pageSize)
	for i := range page {
		page[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(page, 0); err != nil {
		f.Close()
		return fmt.Errorf("damage %s: %w", path, err)
	}
	return f.Close()
}

// GoFiles writes n small Go files of package pkg into dir, each with a
// documented function (CheckN): indexed, they fill enough pages that damage
// to the last part of the index reaches its full-text tables.
func GoFiles(dir, pkg string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range n {
		src := fmt.Sprintf("package %s\n\n// Check%d validates login attempt %d.\nfunc Check%d(user string) bool { return user != \"\" }\n", pkg, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("check%d.go", i)), []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}
