package analyzer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"héllo", 2, "h"},  // é is 2 bytes: not split
		{"héllo", 3, "hé"}, // ends right after é
		{"日本語", 4, "日"},    // each 3 bytes
		{"日本語", 6, "日本"},
		{"a😀b", 4, "a"}, // the emoji is 4 bytes
		{"a😀b", 5, "a😀"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.s, tt.n); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// A message of multibyte text longer than the bound is cut to it, and the
// cut never splits a character, whatever the character's width.
func TestCutMessageMultibyte(t *testing.T) {
	for _, r := range []string{"a", "é", "語", "😀"} {
		for pad := range 4 {
			msg := strings.Repeat("x", pad) + strings.Repeat(r, MaxMessageBytes)
			got := CutMessage(msg)
			if !utf8.ValidString(got) {
				t.Errorf("rune %q, pad %d: the cut split a character", r, pad)
			}
			if len(got) > MaxMessageBytes || len(got) <= MaxMessageBytes-utf8.UTFMax {
				t.Errorf("rune %q, pad %d: cut to %d bytes, want just under %d", r, pad, len(got), MaxMessageBytes)
			}
			if !strings.HasPrefix(msg, got) {
				t.Errorf("rune %q, pad %d: the cut is not the message's head", r, pad)
			}
		}
	}
	if short := "why does 日本 fail?"; CutMessage(short) != short {
		t.Error("a short message was changed")
	}
}
