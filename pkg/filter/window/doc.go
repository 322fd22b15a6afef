// Package window cuts time windows out of timed folded stacks (lines
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
// Package flamekit/pkg/tool/timeslice is the whole timeslice tool as a
// call, built on this package: cmd/timeslice only turns flags into its
// Config.
package window
