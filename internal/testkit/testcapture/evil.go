package testcapture

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// Evil is the burst capture with its busy leaf, burst_spin, renamed "Evil
// 5" (a perf-map symbol that ends in a blank and a number, which a
// classic line can mistake for a differential one), written to files in
// three forms, for the tests of issue 34 item 6.
type Evil struct {
	// Timed is stackcollapse's timed output, its header first.
	Timed string
	// Classic is the same samples summed into classic lines under a
	// "# flamekit v1 classic" header, the frame written as it is (not
	// escaped, as a writer other than flamekit's may write it).
	Classic string
	// Bare is Classic without its header, as stackcollapse-perf.pl
	// writes it: nothing says how its lines are read.
	Bare string
}

// EvilFrame is the name burst_spin is renamed to.
const EvilFrame = "Evil 5"

// EvilFiles writes the Evil files to a temporary directory.
func EvilFiles(t testing.TB) Evil {
	t.Helper()
	timed := bytes.ReplaceAll(Fold(t, "burst"), []byte(";burst_spin "), []byte(";"+EvilFrame+" "))
	rd := folded.NewReader(bytes.NewReader(timed), "burst")
	var p folded.Profile
	for rd.Next() {
		p.Add(rd.Record())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	var bare strings.Builder
	for _, e := range p.Sorted() {
		bare.WriteString(e.Stack + " " + folded.FormatCount(e.Count) + "\n")
	}
	if !strings.Contains(bare.String(), ";"+EvilFrame+" ") {
		t.Fatal("no burst_spin frame in the burst capture")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return Evil{
		Timed:   write("evil.timed.folded", string(timed)),
		Classic: write("evil.classic.folded", folded.ClassicPrefix+` event="cpu-clock:pppH" source="burst.txt.gz"`+"\n"+bare.String()),
		Bare:    write("evil.bare.folded", bare.String()),
	}
}
