package analyzer

import (
	"slices"
	"testing"
)

func TestPhrases(t *testing.T) {
	tests := []struct {
		text  string
		limit int
		want  []string
	}{
		{"how does the scheduler pick the next task", 10,
			[]string{"schedul pick", "pick next", "schedul pick next", "next task", "pick next task"}},
		// Punctuation ends a run; an identifier is matched as written, so
		// it ends one too.
		{"fix(parser): value parser, once. Use ArgMatches types here", 10,
			[]string{"valu parser"}},
		{"loading a kernel module", 10, []string{"load kernel", "kernel modul", "load kernel modul"}},
		// A line break ends a run; a repeated phrase comes once.
		{"user space\nuser space memory", 10, []string{"user space", "space memori", "user space memori"}},
		{"user space and kernel space and more", 2, []string{"user space", "space kernel"}},
		{"UDP sendmsg builds", 10, []string{"udp sendmsg", "sendmsg build", "udp sendmsg build"}},
		{"ok", 10, nil},
		{"données récentes", 10, nil},
	}
	for _, tc := range tests {
		var got []string
		for _, p := range Phrases(tc.text, tc.limit) {
			got = append(got, p.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Phrases(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
