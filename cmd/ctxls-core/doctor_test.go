package main

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/hookcall"
)

// TestDoctorFollowing checks what doctor says of each way the daemon
// follows the files: a watch that misses directories, or no watcher at all
// (a filesystem without inotify), is a note that names the cause and what
// still keeps shown code current, not a failure.
func TestDoctorFollowing(t *testing.T) {
	tests := []struct {
		name string
		f    hookcall.Following
		want []string
	}{
		{"current", hookcall.Following{Dirs: 12, Current: true}, []string{"ok    file watching: 12 directories watched; every change reaches the index"}},
		{"before the first walk", hookcall.Following{Dirs: 12}, []string{"waiting for the first whole index walk"}},
		{"catching up", hookcall.Following{Dirs: 12, Lost: "4000 files changed on disk"}, []string{"catching up after 4000 files changed on disk"}},
		{"bound reached", hookcall.Following{Dirs: 8000, Partial: "the bound of 8000 watched directories was reached"},
			[]string{"ok    file watching: 8000 directories watched, not all: the bound of 8000", "checked against the disk"}},
		{"no watcher", hookcall.Following{NoWatcher: "function not implemented"},
			[]string{"ok    file watching: no directory is watched (function not implemented)", "checked against the disk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			d := &doctor{w: &out}
			d.following(&tt.f)
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("doctor says %q, want it to contain %q", out.String(), w)
				}
			}
			if d.failed != 0 {
				t.Errorf("counted as a failure: %q", out.String())
			}
		})
	}
}
