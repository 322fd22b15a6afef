// Package collapse is flamekit's one collapse stage and its one fold
// driver: it turns perf samples (pkg/perf/sample, from whichever reader
// produced them) into folded stacks.
//
// It applies stackcollapse-perf.pl's naming rules (tidy, the _[k], _[j]
// and _[i] annotations, "comm-PID" roots, [unknown] frames, --addrs,
// --inline through addr2line, --srcline), the event filter, payload
// weights, the idle filter and the off-CPU state machine, and writes
// folded records: timed lines in input order framed by metadata lines, or
// classic lines summed per stack and sorted.
//
// A [Driver] reads any mix of inputs as one stream; each [Input] opens a
// [Producer] that cuts it into chunks of samples, folded by worker
// goroutines and merged in input order:
//
//	d := &collapse.Driver{Options: collapse.Options{NoTime: true}}
//	in := collapse.Input{Name: "perf.data", Source: "perf.data", Open: func() (collapse.Producer, error) {
//		return collapse.Samples(capture, samples, 0), nil // samples in memory
//	}}
//	sum, err := d.Run(os.Stdout, []collapse.Input{in})
package collapse
