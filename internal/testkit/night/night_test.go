package night

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
)

type sample struct {
	stack string
	count float64
	t     folded.Time
}

func collect(t *testing.T, o Options) ([]sample, *Night) {
	t.Helper()
	var out []sample
	n, err := Each(o, func(stack []byte, count float64, tm folded.Time) error {
		out = append(out, sample{string(stack), count, tm})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, n
}

func root(stack string) string {
	r, _, _ := bytes.Cut([]byte(stack), []byte{';'})
	return string(r)
}

// A night is the capture repeated; its burst is in the planted copy only,
// where it was, and elsewhere its samples are replaced one for one: by
// idle samples on the mostly idle capture, by the capture's own busy
// samples on the saturated one, whose busy rate never moves.
func TestEach(t *testing.T) {
	for _, c := range []*Source{Idle, Saturated} {
		for _, noBurst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/noburst=%v", c.File, noBurst), func(t *testing.T) {
				capture, _, err := c.Samples()
				if err != nil {
					t.Fatal(err)
				}
				o := Options{Capture: c, Length: 5 * time.Minute, NoBurst: noBurst}
				got, n := collect(t, o)
				if int64(len(got)) != n.Samples || len(got) != 10*len(capture) {
					t.Fatalf("%d samples (Night says %d), want 10 copies of %d", len(got), n.Samples, len(capture))
				}
				var burst, busy int
				var first, last folded.Time
				for i, s := range got {
					if i > 0 && s.t < got[i-1].t {
						t.Fatalf("sample %d at %v before the one at %v", i, s.t, got[i-1].t)
					}
					if root(s.stack) == c.BurstComm {
						if burst == 0 {
							first = s.t
						}
						burst++
						last = s.t
					}
					if !idle.Is([]byte(s.stack)) {
						busy++
					}
				}
				if noBurst {
					if burst != 0 || n.BurstSamples != 0 {
						t.Errorf("%d samples of %s in a night without burst (Night says %d)", burst, c.BurstComm, n.BurstSamples)
					}
				} else if burst != n.BurstSamples || first != n.BurstFrom || last != n.BurstTo || n.BurstComm != c.BurstComm {
					t.Errorf("%d samples of %s from %v to %v; Night says %d from %v to %v", burst, c.BurstComm, first, last, n.BurstSamples, n.BurstFrom, n.BurstTo)
				}
				// Outside the planted copy, a saturated night is as busy as
				// its capture, every copy alike.
				var capBusy int
				for _, s := range capture {
					if !idle.Is(s.Stack) {
						capBusy++
					}
				}
				if c.Busy && busy != 10*capBusy {
					t.Errorf("%d busy samples, want 10 × %d", busy, capBusy)
				}
			})
		}
	}
}

// The files Generate writes hold the samples Each hands on, and EachIn
// hands on those of a window only.
func TestGenerateAndEachIn(t *testing.T) {
	o := Options{Capture: Saturated, Length: 5 * time.Minute, Dir: t.TempDir()}
	want, n := collect(t, o)
	gen, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Files) != 3 || gen.Samples != n.Samples || gen.BurstFrom != n.BurstFrom || gen.Last != n.Last {
		t.Errorf("Generate: %d files, %+v; Each: %+v", len(gen.Files), gen, n)
	}
	i := 0
	for r := range testcapture.Records(t, gen.Files...) {
		if r.Kind != folded.Timed {
			continue
		}
		if i >= len(want) || string(r.Stack) != want[i].stack || r.Count != want[i].count || r.Time != want[i].t {
			t.Fatalf("sample %d of the files differs from Each's", i)
		}
		i++
	}
	if i != len(want) {
		t.Errorf("the files hold %d samples, Each %d", i, len(want))
	}
	from, to := n.BurstFrom-folded.Time(time.Second), n.BurstTo+folded.Time(time.Second)
	var in []sample
	if _, err := EachIn(o, from, to, func(stack []byte, count float64, tm folded.Time) error {
		in = append(in, sample{string(stack), count, tm})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var inWant []sample
	for _, s := range want {
		if s.t >= from && s.t < to {
			inWant = append(inWant, s)
		}
	}
	if fmt.Sprint(in) != fmt.Sprint(inWant) || len(in) == 0 {
		t.Errorf("EachIn: %d samples, want %d", len(in), len(inWant))
	}
}
