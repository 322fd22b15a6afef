package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountsBeyond2e53: counts up to 2^53 and their sums up to 2^53 are
// written exactly; a count beyond is refused, naming its file and line;
// a sum beyond is refused (exit 1), never written rounded: no reader
// would accept it.
func TestCountsBeyond2e53(t *testing.T) {
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.folded"), filepath.Join(dir, "after.folded")
	os.WriteFile(before, []byte("a;b 9007199254740990\na;b 1\na;b 1\na;c 99999999999999999999999\n"), 0o644)
	os.WriteFile(after, []byte("a;b 18446744073709551615\na;c 3\n"), 0o644)
	out, errs, code := run(t, "", before, after)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errs)
	}
	if want := "a;b 9007199254740992 0\na;c 0 3\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	for _, want := range []string{
		before + ":4: count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly",
		after + ":1: count 18446744073709551615 is beyond 2^53 and cannot be summed exactly",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	if strings.Contains(errs, "warning") {
		t.Errorf("a warning for sums within 2^53: %q", errs)
	}

	os.WriteFile(after, []byte("a;b 9007199254740992\na;b 3\n"), 0o644)
	out, errs, code = run(t, "", before, after)
	if code != 1 || out != "" || !strings.Contains(errs, `the counts of "a;b" sum to about 9007199254740996, beyond 2^53, the largest count a folded reader accepts`) {
		t.Errorf("a sum beyond 2^53: exit %d, stderr %q", code, errs)
	}
}
