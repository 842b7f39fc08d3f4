package store

import (
	"context"
	"os"
)

// Repaired names where Repair moved a workspace's damaged files ("" for a
// file that was sound or absent).
type Repaired struct {
	Index string
	State string
}

// Check reads every page of root's index and state databases (PRAGMA
// quick_check) and returns the paths of those that are damaged. Open reads
// only a file's header, so damaged pages surface only in the queries that
// meet them. The check reads the whole index: ~0.4 s for the 110 MB index
// of GOROOT/src.
func Check(ctx context.Context, root string) ([]string, error) {
	var damaged []string
	for _, path := range []string{Path(root), StatePath(root)} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		sound, err := quickCheck(ctx, path)
		if err != nil && !IsCorrupt(err) {
			return damaged, err
		}
		if !sound {
			damaged = append(damaged, path)
		}
	}
	return damaged, nil
}

// Repair checks root's index and state databases (Check) and moves a
// damaged one aside, so that the next Open starts a new file instead of
// every query failing on the old one. A caller whose query failed with
// ErrCorrupt calls it: the error does not say which file it came from.
// Processes that have the old file open keep reading it until they notice
// it was replaced (the language server, the hook daemon and the MCP server
// watch for that).
func Repair(ctx context.Context, root string) (Repaired, error) {
	var r Repaired
	damaged, err := Check(ctx, root)
	if err != nil {
		return r, err
	}
	for _, path := range damaged {
		aside, err := moveAside(path)
		if err != nil {
			return r, err
		}
		if path == StatePath(root) {
			r.State = aside
		} else {
			r.Index = aside
		}
	}
	return r, nil
}
