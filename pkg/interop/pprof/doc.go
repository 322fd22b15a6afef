// Package pprof converts between folded stacks and pprof's profile.proto,
// the format go tool pprof, Grafana Pyroscope, Parca and speedscope read.
//
// # Folded to pprof
//
// A [Builder] is fed folded records (classic or timed) and the capture's
// metadata lines, and returns a *profile.Profile:
//
//   - Two sample types when every record is timed: samples/count (how
//     many timed lines a sample holds) and the weight, which says what
//     the counts measure, from the capture's metadata (see [WeightFor]:
//     cpu/nanoseconds for cpu-clock periods, off_cpu/microseconds for
//     stackcollapse --off-cpu, malloc/bytes for --weight size of a malloc
//     probe, the event's name with unit count for other events, ...). The
//     weight is last and the default, so go tool pprof and Pyroscope show
//     it. When classic lines are added, the number of samples behind them
//     is unknown and the profile has the weight alone.
//   - Each distinct frame name is one Function and one Location; a stack is
//     its Locations leaf first.
//   - The timed lines of one stack at one time are one pprof Sample
//     carrying that time as the number label timestamp_ns (wall-clock
//     nanoseconds, unit "nanoseconds"; the convention of Google's
//     perf_data_converter), so that go tool pprof
//     -tagfocus=timestamp_ns=... cuts time windows. [Options.Resolution]
//     rounds the times down to a multiple of it on the wall clock first
//     (timeslice --format pprof: 100 ms), so that a profile grows with the
//     distinct stacks per interval, not with the samples;
//     [Options.Aggregate] drops the times and keeps one Sample per
//     distinct stack.
//   - A [Builder] given the wall clock's offset before the samples
//     ([Options.HasCut], as timeslice does) sums them into a timeline
//     (package timeline) of one entry per interval, stack, thread and
//     CPU; with [Options.Aggregate], one per stack. Otherwise it keeps
//     about 32 bytes per timed line until [Builder.Write] knows the clock.
//     It encodes profile.proto itself as it writes it, without a
//     *profile.Sample per sample.
//   - TimeNanos and DurationNanos are wall clock: exact when the capture
//     carries a clock reference (perf record -k), estimated from perf's
//     "captured on" otherwise (see folded.RefFromMeta and [Stats.Clock]).
//   - [Options.Mappings] (a perf.data file's build-id table, see
//     perfdata.BuildIDs) become the profile's mappings, each file with
//     its GNU build-id, as in Go's own profiles; no location points into
//     them, since folded frames are names without addresses.
//   - [Options.Addresses] keeps the addresses the records carry
//     (folded.Record.Addrs, from a perf.data file folded with
//     collapse.Options.Addresses), as perf_data_converter writes them:
//     one Mapping per file mapped into each process (its start, limit,
//     file offset, file and build-id; executables first, the main binary
//     of go tool pprof BINARY PROFILE), one Location per address, in its
//     mapping, with flamekit's names as its lines ([WithNames]) or, for
//     the files a symbolizer reads, none, their mappings without
//     functions, for go tool pprof or a server to name
//     ([AddressesOnly]); kernel, vdso and JIT frames keep their names.
//     The Builder keeps each stack as a stack of location numbers
//     (Header.Locations), so memory grows with the distinct addresses
//     and their stacks, not with the samples.
//   - The metadata lines are kept as the profile's comments, with one more
//     line that records how perf's clock was mapped, so that [ToFolded]
//     gives back the perf-clock times.
//
// Folded counts are float64, at most 2^53 (folded.MaxCount), and pprof
// values int64. The integer parts of the counts are summed as int64,
// exactly; their fractions are rounded with the error carried to the next
// sample, so that every prefix of the samples, and the profile's total,
// equals the folded sum rounded to an integer, and no single sample is off
// by one or more.
//
// # pprof to folded
//
// [Read] parses profile.proto, gzipped or not, into package profile's
// model (google/pprof's messages, decoded here: that package's start-up,
// its regular expressions for legacy formats, cost every flamekit tool 3
// ms a run, since every tool reads pprof input); [Convert] and [ToFolded]
// turn one of its sample types (picked as go tool pprof does: the default
// type, else the last one) into folded records, frames root first,
// inlined functions expanded. Samples that carry timestamp_ns become timed
// lines; the others classic ones. Values beyond 2^53, which no folded
// count holds exactly, are skipped and counted ([Summary.Big]).
package pprof
