// Command testreport reads `go test -json` on stdin and prints what a
// person needs from a long run: each package's result line, the output of
// every failing test, and at the end every skipped test with the reason it
// gave, which plain `go test` does not show. It writes the skipped tests to
// -skips as well, for .ci/run to repeat at the very end of its run, and
// exits 1 when any test or package failed (or nothing was read), and with
// -strict (make test-go passes it when CI=true) when a test was skipped for
// a missing prerequisite:
//
//	go test -json ./... | go run ./scripts/testreport -skips .cache/skipped-tests.txt
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	skips := flag.String("skips", "", "also write the skipped tests to this file")
	strict := flag.Bool("strict", false, "fail when a test was skipped for a missing prerequisite (CI=true)")
	flag.Parse()
	rep, err := read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	summary := rep.skipSummary()
	fmt.Print(summary)
	if *skips != "" {
		if err := os.WriteFile(*skips, []byte(summary), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(1)
		}
	}
	if missing := rep.missing(); *strict && len(missing) > 0 {
		fmt.Printf("FAIL: %d tests skipped for a missing prerequisite, which a CI machine must have (CI=true):\n  %s\n",
			len(missing), strings.Join(missing, "\n  "))
		os.Exit(1)
	}
	if rep.failed || rep.events == 0 {
		os.Exit(1)
	}
}

// prerequisite matches the reasons of tests skipped for want of something
// the machine should have: a tool, a fixture, an environment variable that
// make test sets. Other skips (a helper process, -short) are by design.
var prerequisite = regexp.MustCompile(`(?i)\b(not set|not installed|not available|not found|no such file|go env GOROOT)\b`)

// outsideRepo matches the reasons of tests skipped for want of the sibling
// shared/ directory (design fixtures, the fake model API): it is beside a
// checkout, not something .ci/run can install, so a clean clone without it
// lists those skips but does not fail.
var outsideRepo = regexp.MustCompile(`\bshared/`)

// missing lists the tests skipped for a missing prerequisite, sorted.
func (r *report) missing() []string {
	var out []string
	for k, why := range r.skipped {
		if prerequisite.MatchString(why) && !outsideRepo.MatchString(why) {
			out = append(out, k+": "+why)
		}
	}
	sort.Strings(out)
	return out
}

// report is what read gathered.
type report struct {
	events int
	failed bool
	// skipped maps "package TestName" to the reason the test gave.
	skipped map[string]string
}

// read copies the package results and failing tests' output to w as the
// events arrive, and gathers the skipped tests.
func read(r io.Reader, w io.Writer) (*report, error) {
	rep := &report{skipped: map[string]string{}}
	output := map[string][]string{} // test → its output lines so far
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event (a build error printed as text): show it.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		rep.events++
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output", "build-output":
			if e.Test != "" {
				output[key] = append(output[key], e.Output)
			} else if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "PASS\n") && !strings.HasPrefix(e.Output, "FAIL\n") {
				fmt.Fprint(w, e.Output) // ok/FAIL lines, build errors, package-level prints
			}
		case "skip":
			if e.Test != "" {
				rep.skipped[key] = reason(output[key])
			}
			delete(output, key)
		case "fail", "build-fail":
			rep.failed = true
			if e.Test != "" {
				fmt.Fprint(w, strings.Join(output[key], ""))
			}
			delete(output, key)
		case "pass":
			delete(output, key)
		}
	}
	return rep, sc.Err()
}

// reason is a skipped test's message: its output without the RUN, CONT,
// PAUSE and SKIP lines, each line trimmed, joined.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// skipSummary lists the skipped tests, one a line, sorted.
func (r *report) skipSummary() string {
	if len(r.skipped) == 0 {
		return "skipped tests: none\n"
	}
	keys := make([]string, 0, len(r.skipped))
	for k := range r.skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "skipped tests: %d\n", len(keys))
	for _, k := range keys {
		fmt.Fprintf(&b, "  SKIP %s: %s\n", k, r.skipped[k])
	}
	return b.String()
}
