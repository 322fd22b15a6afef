// Package perfscript reads the text that `perf script` prints: it parses
// sample headers and frame lines into sample.Samples (the one sample model
// shared with the perf.data reader) and hands them to the collapse stage
// (package collapse), which folds them as FlameGraph's stackcollapse-perf.pl
// does, keeping each sample's time.
//
// A [Collapser] reads [Input]s as one stream, cut at sample boundaries into
// chunks that several goroutines parse and fold at once; its output does
// not depend on the cut. A [Reader] parses one input sequentially, for
// callers that want the samples themselves.
package perfscript
