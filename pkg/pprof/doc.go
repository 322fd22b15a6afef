// Package pprof converts between folded stacks and pprof's profile.proto,
// the format go tool pprof, Grafana Pyroscope, Parca and speedscope read.
//
// # Folded to pprof
//
// A [Builder] is fed folded records (classic or timed) and the capture's
// metadata lines, and returns a *profile.Profile:
//
//   - Two sample types when every record is timed: samples/count (one per
//     timed line) and the weight, which says what the counts measure (see
//     [WeightFor]: cpu/nanoseconds for cpu-clock periods, the event's name
//     with unit count for other events, ...). The weight is last and the
//     default, so go tool pprof and Pyroscope show it. When classic lines
//     are added, the number of samples behind them is unknown and the
//     profile has the weight alone.
//   - Each distinct frame name is one Function and one Location; a stack is
//     its Locations leaf first. Memory for these tables grows with the
//     distinct stacks and frames.
//   - Each timed line is one pprof Sample carrying its time as the number
//     label timestamp_ns (wall-clock nanoseconds, unit "nanoseconds"; the
//     convention of Google's perf_data_converter), so that go tool pprof
//     -tagfocus=timestamp_ns=... cuts time windows. This is the only part
//     that grows with the number of samples; [Options.Aggregate] drops the
//     times and keeps one Sample per distinct stack.
//   - TimeNanos and DurationNanos are wall clock: exact when the capture
//     carries a clock reference (perf record -k), estimated from perf's
//     "captured on" otherwise (see folded.RefFromMeta and [Stats.Clock]).
//   - The metadata lines are kept as the profile's comments, with one more
//     line that records how perf's clock was mapped, so that [ToFolded]
//     gives back the exact perf-clock times.
//
// Folded counts are float64 and pprof values int64. Integer counts (all
// that stackcollapse writes) are copied exactly; fractions are rounded with
// the error carried to the next sample, so that every prefix of the
// samples, and the profile's total, equals the folded sum rounded to an
// integer, and no single sample is off by one or more.
//
// # pprof to folded
//
// [Read] parses profile.proto, gzipped or not; [Convert] and [ToFolded]
// turn one of its sample types (picked as go tool pprof does: the default
// type, else the last one) into folded records, frames root first,
// inlined functions expanded. Samples that carry timestamp_ns become timed
// lines; the others classic ones.
package pprof
