package main

import "testing"

// TestSumEscapesTrailingNumber: timed lines of a perf-map symbol "Evil 5"
// summed into classic lines: the blank is escaped, so that the sum does
// not read as a differential line (before 5, after 3).
func TestSumEscapesTrailingNumber(t *testing.T) {
	code, out, stderr := run(t, "java;Evil 5 3 @1.0\njava;Good 2 @1.5\n")
	if code != 0 {
		t.Fatal(stderr)
	}
	if out != "java;Evil_5 3\njava;Good 2\n" {
		t.Errorf("got %q", out)
	}
}
