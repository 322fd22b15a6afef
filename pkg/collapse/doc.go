// Package collapse is flamekit's one collapse stage: it turns perf samples
// (pkg/sample, from whichever reader produced them) into folded stacks.
//
// It applies stackcollapse-perf.pl's naming rules (tidy, the _[k], _[j]
// and _[i] annotations, "comm-PID" roots, [unknown] frames, --addrs,
// --inline through addr2line, --srcline), the event filter, payload
// weights, the idle filter and the off-CPU state machine, and writes
// folded records: timed lines in input order framed by metadata lines, or
// classic lines summed per stack and sorted.
//
// # Sequential use
//
// A reader that delivers samples one at a time, in time order (the perf.data
// reader), feeds a Stage directly:
//
//	st, err := collapse.New(w, opt, warnf)
//	st.Begin(&capture, "perf.data")
//	for each sample s {
//		st.Add(&s)
//	}
//	st.End()                // end of this input (a Stage may read several)
//	sum, err := st.Close()  // writes classic output, returns the counts
//
// # Parallel use
//
// The perf script text reader cuts its input into chunks that goroutines
// parse at once. Each goroutine owns a Worker, which applies the rules that
// need nothing but the sample itself (naming, filters, weights) and fills
// a Batch; the Batches go back through Stage.Merge in input order, where the
// stages that need order run (off-CPU intervals, waker stacks, hot/cold) and
// the output is written. Stage.Prescan must see the input's first samples
// before any Worker folds, so that the decisions that depend on them (the
// default event, timed or classic output) are the same however the input
// was cut. The output is byte-identical to a sequential run.
package collapse
