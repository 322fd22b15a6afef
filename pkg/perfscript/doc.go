// Package perfscript folds the text that `perf script` prints into folded
// stacks, as FlameGraph's stackcollapse-perf.pl does: the same frames,
// flags (--pid, --tid, --kernel, --jit, --addrs, --inline, --srcline,
// --event-filter) and weights (perf's periods), with the fixes listed in
// the README, and each sample's time kept as a timed folded line.
//
// A [Collapser] reads [Input]s as one stream, cut at sample boundaries into
// chunks that several goroutines parse at once; its output does not depend
// on the cut.
package perfscript
