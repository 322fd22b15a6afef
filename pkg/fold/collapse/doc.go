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
// # The driver
//
// A [Driver] reads any mix of inputs as one stream. Each input format
// plugs in a [Producer], which cuts its input into [Chunk]s of consecutive
// samples on the reading goroutine: the perf script text reader
// (perfscript.Text) cuts text at sample boundaries, the perf.data reader
// (through pkg/fold/capture) hands over runs of samples whose frames it has
// resolved, and [Samples] serves samples already in memory. Worker
// goroutines fold the chunks at once, applying the rules that need nothing
// but the sample itself (naming, filters, weights); their results are
// merged in input order, where the stages that need order run (off-CPU
// intervals, waker stacks, hot/cold) and the output is written.
//
// The first samples decide what does not depend on one sample alone (the
// default event, timed or classic output): producers show them to the
// driver ([Prescan]) before their chunk is folded, and end a chunk before
// a sample that changes a decision, so that the output does not depend on
// where the inputs were cut. The output is byte-identical to a run with
// one worker.
//
// Frames that carry an ID (sample.Frame.ID, set by the perf.data reader)
// are named once per ID and worker; a sample given as frame numbers
// (Sink.AddChain, the perf.data reader's deferred frames) is folded
// without a frame copied, each number named once per worker as the
// number of a piece of text shared by the workers. The classic sums of
// such samples go by key, the numbers of their root and pieces: the text
// of each distinct stack is made once, as it is written (see keysums.go).
// The classic sums of other samples hash each stack from the hashes of
// its frames' names, and a worker adds the weights of nearby equal
// stacks before the shared table.
package collapse
