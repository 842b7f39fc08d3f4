package index

import "testing"

func TestSamePackageDir(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"src/main/java/a/b", "src/main/java/a/b", true},
		{"src/main/java/a/b", "src/main/kotlin/a/b", true},
		{"app/src/main/kotlin/a", "app/src/main/java/a", true},
		{"java/a", "kotlin/a", true},
		{"src/main/java/a/b", "src/main/kotlin/a/c", false},
		{"src/main/java/a", "src/test/kotlin/a", false},
		{"src/main/java/a", "src/main/java/b", false},
		{"src/main/kotlin/a", "src/main/kotlin/b", false},
		{"lib/a", "lib/b", false},
		{"", "java", false},
	} {
		if got := samePackageDir(tt.a, tt.b); got != tt.want {
			t.Errorf("samePackageDir(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := samePackageDir(tt.b, tt.a); got != tt.want {
			t.Errorf("samePackageDir(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { samePackageDir("src/main/java/a/b", "src/main/kotlin/a/b") }); n != 0 {
		t.Errorf("samePackageDir allocates %v times", n)
	}
}
