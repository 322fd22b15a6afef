package main

import (
	"os"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// TestFrameEndingInNumber: a frame that ends in a blank and a number (the
// perf-map symbol "Evil 5", in the burst capture) stays a frame through
// stackfilter (issue 34 item 6): the classic stream's header is copied, a
// line kept as it was is copied as it was (its header says how it reads),
// a line whose stack changed is escaped by the one rule of every writer
// ("Evil_5"), and every line reads back as classic, none as differential.
func TestFrameEndingInNumber(t *testing.T) {
	e := testcapture.EvilFiles(t)
	in, err := os.ReadFile(e.Classic)
	if err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := run(t, "", e.Classic); code != 0 || out != string(in) {
		t.Errorf("copy: exit %d, %s: the output differs from the input", code, stderr)
	}
	out, stderr, code := run(t, "", "--hide", "^start_thread$", e.Classic)
	if code != 0 || !strings.HasPrefix(out, folded.ClassicPrefix+` event="cpu-clock:pppH" source="burst.txt.gz"`+"\n") ||
		!strings.Contains(out, "\nflamekit_burst;run;Evil_5 1979381376\n") ||
		!strings.Contains(out, "\nflamekit_burst;__libc_start_call_main;main;run;Evil 5 1969072098\n") ||
		stderr != "stackfilter: 1 classic lines would have read as differential (their new stack ends in a blank and a number): that blank was written '_'\n" {
		t.Errorf("--hide: exit %d, %s\n%.300s", code, stderr, out)
	}
	rd := folded.NewReader(strings.NewReader(out), "out")
	n := 0
	for rd.Next() {
		if rd.Record().Kind != folded.Classic {
			t.Errorf("read back as %v: %q", rd.Record().Kind, rd.Text())
		}
		n++
	}
	if rd.Err() != nil || n != strings.Count(out, "\n")-1 {
		t.Errorf("read back %d lines: %v", n, rd.Err())
	}
}
