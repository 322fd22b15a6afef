package collapse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"flamekit/pkg/perf/sample"
)

// smp builds a sample of comm, untimed, without event and period, whose
// frames are given leaf first as perf script prints them:
// "addr symbol (dso)".
func smp(comm string, frames ...string) sample.Sample {
	s := sample.Sample{Comm: []byte(comm), TID: []byte("1"), CPU: -1}
	for _, f := range frames {
		addr, rest, _ := strings.Cut(f, " ")
		i := strings.LastIndex(rest, " (")
		s.Frames = append(s.Frames, sample.Frame{
			Addr: []byte(addr), Symbol: []byte(rest[:i]), DSO: []byte(strings.TrimSuffix(rest[i+2:], ")")),
		})
	}
	return s
}

type result struct {
	out    string
	stderr string
	sum    Summary
	err    error
}

// run folds samples as one input, with one worker.
func run(t testing.TB, opt Options, samples ...sample.Sample) result {
	t.Helper()
	return runChunks(t, opt, 1, 0, samples)
}

// runChunks folds samples as one input cut into chunks of size samples,
// with workers workers.
func runChunks(t testing.TB, opt Options, workers, size int, samples []sample.Sample) result {
	t.Helper()
	var out, stderr bytes.Buffer
	d := &Driver{Options: opt, Workers: workers}
	d.Warnf = func(f string, a ...any) { fmt.Fprintf(&stderr, "stackcollapse: "+f+"\n", a...) }
	in := Input{Name: "samples", Open: func() (Producer, error) { return Samples(nil, samples, size), nil }}
	sum, err := d.Run(&out, []Input{in})
	return result{out.String(), stderr.String(), sum, err}
}
