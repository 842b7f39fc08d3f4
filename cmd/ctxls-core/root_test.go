package main

import (
	"bytes"
	"testing"
)

// TestCommandNames checks that each entry of commands names the command it
// builds: newRootCmd builds only the one whose name is the first argument.
func TestCommandNames(t *testing.T) {
	for _, c := range commands {
		if got := c.new().Name(); got != c.name {
			t.Errorf("commands entry %q builds command %q", c.name, got)
		}
	}
}

// TestRootCmdForArgs checks which commands the tree holds: the named one
// alone, or all of them, with cobra's help and completion, for help and
// unknown names.
func TestRootCmdForArgs(t *testing.T) {
	full := len(commands) + 2
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"hook", "post-tool-use"}, 1},
		{[]string{"query", "--json", "x"}, 1},
		{nil, full},
		{[]string{"--help"}, full},
		{[]string{"help", "hook"}, full},
		{[]string{"hoook"}, full},
	}
	for _, tt := range tests {
		if got := len(newRootCmd(tt.args).Commands()); got != tt.want {
			t.Errorf("newRootCmd(%q) has %d commands, want %d", tt.args, got, tt.want)
		}
	}
	// Help for one command reads the same either way.
	var one, all bytes.Buffer
	c := newRootCmd([]string{"query"})
	c.SetArgs([]string{"query", "--help"})
	c.SetOut(&one)
	c.Execute()
	c = newRootCmd(nil)
	c.SetArgs([]string{"query", "--help"})
	c.SetOut(&all)
	c.Execute()
	if one.String() != all.String() || one.Len() == 0 {
		t.Errorf("help of query differs:\n%s\n---\n%s", one.String(), all.String())
	}
}
