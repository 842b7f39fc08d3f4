package main

import (
	"reflect"
	"testing"
)

func TestQueryArgs(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
	}{
		// Nothing to move: as given.
		{[]string{"query", "--json", "x", "y"}, []string{"query", "--json", "x", "y"}},
		{[]string{"query", "--no-such", "x"}, []string{"query", "--no-such", "x"}},
		{[]string{"query", "-x"}, []string{"query", "-x"}},
		{[]string{"index", "-v is ignored"}, []string{"index", "-v is ignored"}},
		// Text starting with "-": flags (with their values) first, then
		// the words in their order after "--".
		{[]string{"query", "--root", "/w", "-v is ignored", "--limit", "3"}, []string{"query", "--root", "/w", "--limit", "3", "--", "-v is ignored"}},
		{[]string{"query", "fix", "--color=auto breaks", "--json", "it"}, []string{"query", "--json", "--", "fix", "--color=auto breaks", "it"}},
		{[]string{"query", "- x", "--", "--json"}, []string{"query", "--", "- x", "--json"}},
		{[]string{"query", "--root=/a b", "-5%"}, []string{"query", "--root=/a b", "--", "-5%"}},
	} {
		root := newRootCmd(tc.args)
		if got := queryArgs(root, tc.args); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("queryArgs(%q) = %q; want %q", tc.args, got, tc.want)
		}
	}
}
