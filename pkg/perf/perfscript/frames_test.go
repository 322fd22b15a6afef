package perfscript

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestFrameTable: equal lines get equal numbers and distinct lines
// distinct ones, from several goroutines at once, across the table's
// growth; a number's frame is the line's, as parseFrame reads it.
func TestFrameTable(t *testing.T) {
	tab := newFrameTable()
	lines := make([][]byte, 5000)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, "\t    %12x fn%d+0x%x (/usr/lib/lib%d.so)", 0x401000+i, i%700, i%61, i%7)
	}
	nums := make([][]uint32, 4)
	var wg sync.WaitGroup
	for g := range nums {
		wg.Go(func() {
			for k := range 3 * len(lines) {
				i := (k*7919 + g*104729) % len(lines)
				n, ok := tab.number(lines[i])
				if !ok {
					t.Errorf("line %q not numbered", lines[i])
					return
				}
				if nums[g] == nil {
					nums[g] = make([]uint32, len(lines))
					for j := range nums[g] {
						nums[g][j] = ^uint32(0)
					}
				}
				if m := nums[g][i]; m != ^uint32(0) && m != n {
					t.Errorf("line %d: numbers %d then %d", i, m, n)
				}
				nums[g][i] = n
			}
		})
	}
	wg.Wait()
	seen := map[uint32]int{}
	for i, line := range lines {
		n := nums[0][i]
		for g := range nums {
			if nums[g][i] != n {
				t.Fatalf("line %d: goroutine %d numbered it %d, goroutine 0 %d", i, g, nums[g][i], n)
			}
		}
		if j, dup := seen[n]; dup {
			t.Fatalf("lines %d and %d share number %d", j, i, n)
		}
		seen[n] = i
		want, _ := parseFrame(line)
		got := tab.Frame(n)
		if string(got.Addr) != string(want.pc) || string(got.Symbol) != string(want.rawfunc) || string(got.DSO) != string(want.module) {
			t.Fatalf("frame %d of %q: %q %q %q", n, line, got.Addr, got.Symbol, got.DSO)
		}
		if string(tab.lineOf(n)) != string(line) {
			t.Fatalf("line %d kept as %q", n, tab.lineOf(n))
		}
	}
	if _, ok := tab.number([]byte("not a frame")); ok {
		t.Error("a line that is not a frame line was numbered")
	}
}

// TestFrameTableFull: when the table of frame lines is full, samples with
// lines not in it are folded from their frames, with the same output.
func TestFrameTableFull(t *testing.T) {
	inputs, _ := filepath.Glob("../../../testdata/perf/*.txt.gz")
	samples, _ := filepath.Glob("testdata/samples/*.txt")
	inputs = append(inputs, samples...)
	defer func(n uint32) { frameLinesMax = n }(frameLinesMax)
	for _, path := range inputs {
		data := readFile(t, path)
		for _, opt := range []Options{{}, {NoTime: true, Kernel: true}} {
			frameLinesMax = maxFrameLines
			want := sequential(t, data, opt)
			for _, limit := range []uint32{0, 3, 100} {
				frameLinesMax = limit
				for _, cfg := range [][2]int{{1, 1 << 40}, {2, 700}} {
					got := collapseText(t, data, opt, cfg[0], cfg[1])
					if got.out != want.out || got.stderr != want.stderr || !sameSummary(got.sum, want.sum) {
						t.Fatalf("%s %+v, %d frame lines at most, workers %d chunk %d: differs:\n%s\nstderr %q vs %q",
							path, opt, limit, cfg[0], cfg[1], golden.Diff([]byte(want.out), []byte(got.out)), want.stderr, got.stderr)
					}
				}
			}
		}
	}
}

// BenchmarkFrameTable numbers the frame lines of a system-wide capture
// through the frame table alone (hash and lookup; no guesses): the cost
// of a line the parser cannot guess.
func BenchmarkFrameTable(b *testing.B) {
	data := readFile(b, "../../../testdata/perf/syswide.txt.gz")
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) > 0 && isSpace(l[0]) {
			lines = append(lines, l)
		}
	}
	tab := newFrameTable()
	for b.Loop() {
		for _, l := range lines {
			if _, ok := tab.number(l); !ok {
				b.Fatalf("%q not numbered", l)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}
