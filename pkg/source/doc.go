// Package source is flamekit's one input layer: every command opens its
// inputs here, so that every command reads every format it can use, the
// same way.
//
// # Opening
//
// [Open] takes a name as a command line gives it: a path, or "-" for the
// command's standard input ([Options.Stdin]). What the name is decides how
// it is read:
//
//   - a regular file is read as often as a command wants, each read
//     opening it again;
//   - anything else (standard input, a pipe, a FIFO, bash's <(cmd), a
//     device) is a stream, read exactly once, from the bytes that were
//     sniffed: none is lost, nothing is opened twice. A command that must
//     read a stream twice (timeslice placing a relative window) calls
//     [Input.Keep] first: the stream is copied to a temporary file (in
//     [Options.TempDir], else $TMPDIR) as it is first read, and read again
//     from there.
//
// Gzip (one member or several) and zstd are decompressed transparently,
// told by their magic bytes, never by the name (package decompress).
// [Input.Open] returns the content from its start, decompressed;
// [Input.Path] gives a file holding it, for readers at offsets (perf.data),
// making a decompressed copy when the input is compressed or a stream.
// [Input.Close] removes the copies; [RemoveTemps] removes them all, for a
// program that exits on a signal.
//
// # Recognising
//
// Each input's kind is told by its first [PeekSize] bytes, decompressed,
// through one table of formats (see [Formats] and [Sniff]): perf.data
// files (and their pipe mode), pprof profiles (gzipped or not), perf
// script text, bpftrace map dumps and folded stacks (classic, differential
// or timed: stackcollapse's output, bcc's -f, async-profiler's collapsed).
// Binary formats are recognised by their first bytes, text formats by
// their lines. The table and its recognisers are the one place where
// flamekit tells formats apart; the packages that read each format
// (perfdata, pprof, perfscript, bpftrace, folded) are not needed for it,
// so that this package sits below them all. Adding a format is adding its
// entry to the table, and its package.
//
// A command given --format forces the kind ([Options.Format]); the
// content is sniffed all the same ([Input.Sniffed]), so that a mistake
// can be refused rather than read as garbage. An input of no known kind
// gets an error that says what it looks like ([Input.Check]).
//
// # Reading folded stacks
//
// [Files] reads the folded records of several inputs as one stream; its
// Fold hook turns inputs of other kinds into folded text (package capture
// does it the way stackcollapse does).
package source
