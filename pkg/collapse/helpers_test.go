package collapse

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"flamekit/pkg/sample"
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

// run feeds samples to a Stage through Add, as one input.
func run(t testing.TB, opt Options, samples ...sample.Sample) result {
	t.Helper()
	var out, stderr bytes.Buffer
	st, err := New(&out, opt)
	if err != nil {
		return result{err: err}
	}
	st.Warnf = func(f string, a ...any) { fmt.Fprintf(&stderr, "stackcollapse: "+f+"\n", a...) }
	st.Begin(nil, "")
	for i := range samples {
		if err := st.Add(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.End(); err != nil {
		t.Fatal(err)
	}
	sum, err := st.Close()
	return result{out.String(), stderr.String(), sum, err}
}
