// Package perfscript reads the text that `perf script` prints: it parses
// sample headers and frame lines into sample.Samples (the one sample model
// shared with the perf.data reader) and hands them to the fold driver
// (collapse.Driver), which folds them as FlameGraph's stackcollapse-perf.pl
// does, keeping each sample's time.
//
// [Text] is the driver's producer of one text: it cuts the text at sample
// boundaries into chunks that several goroutines parse and fold at once;
// the output does not depend on the cut. It numbers the distinct frame
// lines of the text (a table shared by the workers, by the lines' bytes)
// and hands a sample over as the numbers of its frame lines, which the
// driver folds through what each number gives once (collapse.Sink.AddChain);
// a frame line is mostly read by comparing it with the line that followed
// the frame before it last time. A [Collapser] runs the driver on texts
// alone.
package perfscript
