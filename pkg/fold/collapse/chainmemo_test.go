package collapse

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/pkg/perf/sample"
)

// spreadFrames is chainTestFrames under frame numbers far apart: frame n
// is chainTestFrames[n%13], so that a chain reaches several blocks of a
// chainMemo, and numbers past what it keeps.
type spreadFrames struct{}

func (spreadFrames) Frame(n uint32) *sample.Frame {
	return &chainTestFrames[n%uint32(len(chainTestFrames))]
}

// TestChainMemoShared: the workers of an input share one memo of what its
// frame numbers give; whichever worker makes an entry, and in whatever
// order, each worker folds every chain to the text a lone worker gives,
// takes the text of a piece another worker found from the pieceTable,
// and reads the entry's class as a lone worker does.
func TestChainMemoShared(t *testing.T) {
	far := uint32(13 * 40000)    // a few blocks further
	huge := uint32(13 * 5200000) // past 2^26: not kept
	chains := [][]uint32{
		{3, 0}, {3, 2, 1}, {4, 2, 5, 1}, {9, 1}, {10, 1}, {12, 1}, {11, 1},
		{3 + far, 0 + far}, {4 + huge, 1}, {7, 6}, {8, 7, 6}, {}, {5},
	}
	tests := []struct {
		name       string
		workers    int
		concurrent bool // the workers fold at once, else one after the other
		comm       string
	}{
		{"one worker", 1, false, "x"},
		{"two in turn", 2, false, "x"},
		{"three in turn", 3, false, "x"},
		{"two at once", 2, true, "x"},
		{"three at once", 3, true, "x"},
		{"java rules in turn", 3, false, "java"},
		{"java rules at once", 3, true, "java"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &sample.Sample{Comm: []byte(tc.comm), PID: []byte("1"), TID: []byte("1")}
			lone, err := newStage(io.Discard, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := lone.newWorker()
			ref.startInput(0, new(chainMemo))
			var want []string
			var wantClass [][]frameClass
			for _, c := range chains {
				want = append(want, string(ref.fold.foldChain(nil, s, c, spreadFrames{})))
				var cl []frameClass
				for _, n := range c {
					cl = append(cl, ref.fold.chainClass(n, spreadFrames{}))
				}
				wantClass = append(wantClass, cl)
			}

			st, err := newStage(io.Discard, Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := new(chainMemo) // the input's, shared
			got := make([][]string, tc.workers)
			gotClass := make([][][]frameClass, tc.workers)
			fold := func(k int) {
				w := st.newWorker()
				w.startInput(0, m)
				for i := range chains {
					c := chains[(i+k*5)%len(chains)] // each worker its own order
					got[k] = append(got[k], string(w.fold.foldChain(nil, s, c, spreadFrames{})))
					var cl []frameClass
					for _, n := range c {
						cl = append(cl, w.fold.chainClass(n, spreadFrames{}))
					}
					gotClass[k] = append(gotClass[k], cl)
				}
			}
			var wg sync.WaitGroup
			for k := range tc.workers {
				if !tc.concurrent {
					fold(k)
					continue
				}
				wg.Add(1)
				go func() { defer wg.Done(); fold(k) }()
			}
			wg.Wait()
			for k := range tc.workers {
				for i := range chains {
					c := (i + k*5) % len(chains)
					if got[k][i] != want[c] {
						t.Errorf("worker %d folds %v to %q, a lone worker to %q", k, chains[c], got[k][i], want[c])
					}
					if fmt.Sprint(gotClass[k][i]) != fmt.Sprint(wantClass[c]) {
						t.Errorf("worker %d: classes of %v %v, a lone worker's %v", k, chains[c], gotClass[k][i], wantClass[c])
					}
				}
			}
			for _, c := range chains {
				for _, n := range c {
					j := 0
					if tc.comm == "java" {
						j = 1
					}
					if v := m.load(j, n); (v == pieceUnknown) != (n >= 1<<26) {
						t.Errorf("memo entry of frame %d: %#x", n, v)
					}
				}
			}
		})
	}
}

// warnOnClose is a Producer whose Close warns, as the perf.data reader's
// does (what it skipped), after a while.
type warnOnClose struct {
	Producer
	warn func()
}

func (p warnOnClose) Close() error {
	time.Sleep(10 * time.Millisecond) // the merger reaches the end first
	p.warn()
	return p.Producer.Close()
}

// TestCloseWarningsFirst: what closing an input's producer says comes
// before what the end of the input says (the symbol check), whichever
// goroutine gets there first: stderr does not depend on timing.
func TestCloseWarningsFirst(t *testing.T) {
	var samples []sample.Sample
	for range 40 {
		samples = append(samples, smp("p", "12829 [unknown] (/usr/bin/dash)", "1 main (/usr/bin/p)"))
	}
	for _, workers := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			var stderr strings.Builder
			d := &Driver{Options: Options{NoTime: true}, Workers: workers}
			d.Warnf = func(f string, a ...any) { fmt.Fprintf(&stderr, f+"\n", a...) }
			in := Input{Name: "samples", Open: func() (Producer, error) {
				return warnOnClose{Samples(nil, samples, 8), func() { d.Warnf("closed") }}, nil
			}}
			if _, err := d.Run(io.Discard, []Input{in}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if len(lines) != 2 || lines[0] != "closed" || !strings.Contains(lines[1], "have no symbol") {
				t.Errorf("stderr %q, want the producer's warning, then the symbol check's", stderr.String())
			}
		})
	}
}
