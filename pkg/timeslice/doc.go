// Package timeslice cuts time windows out of timed folded stacks (lines
// "stack count @seconds", as stackcollapse writes them).
//
// A window is written by a person ([ParseAt], [ParseRange]): relative to
// the capture's first sample ("70s±2.5"), on perf's clock, which is
// dmesg's ("@43521.274±2.5"), or on the wall clock
// ("2026-04-15T10:33:10Z±2.5"). A [Clock] built from what the [Inputs]
// hold places it on perf's clock ([Clock.Resolve]); a [Slicer] then reads
// the inputs and gives the samples in the [Window] to a [Sink].
//
// Every line of every input is read: a sample is kept or dropped by its
// own time, so captures concatenated in any order, with or without their
// metadata lines, give the same samples as the same captures read one by
// one. Relative and wall-clock windows need the whole input to be placed;
// [Inputs.Heads] guesses from the start of re-readable inputs and
// [Inputs.Survey] reads everything first (streams through a temporary
// copy).
//
// [Run] is the whole timeslice tool as a call: a [Config] (the window, the
// output: summed or timed folded stacks, pprof, a Pyroscope push, the heat
// map, the explorer page or the bursts) and an [Env] (standard input and
// output, warnings). It places the window, reads the inputs again in the
// rare case their heads were wrong, and finds the bursts with a second,
// exact reading of the inputs that hold them. cmd/timeslice only turns
// flags into a Config.
package timeslice
