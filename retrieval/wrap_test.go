package retrieval

import "testing"

func TestWrapContext(t *testing.T) {
	for _, tc := range []struct{ body, want, unwrapped string }{
		{"", "<auto-context>\n</auto-context>\n", ""},
		{"## Symbol\n\n### x\n\n", "<auto-context>\n\n## Symbol\n\n### x\n\n</auto-context>\n", "## Symbol\n\n### x"},
		{"\n## Symbol\n", "<auto-context>\n\n## Symbol\n\n</auto-context>\n", "## Symbol"},
	} {
		got := WrapContext(tc.body)
		if got != tc.want {
			t.Errorf("WrapContext(%q) = %q, want %q", tc.body, got, tc.want)
		}
		if back := UnwrapContext(got); back != tc.unwrapped {
			t.Errorf("UnwrapContext(%q) = %q, want %q", got, back, tc.unwrapped)
		}
	}
	if got := UnwrapContext("plain"); got != "plain" {
		t.Errorf("UnwrapContext of unwrapped text = %q", got)
	}
}
