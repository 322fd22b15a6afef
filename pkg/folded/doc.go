// Package folded reads, writes and aggregates folded stacks, the one format
// every flamekit tool speaks.
//
// # Line kinds
//
// A folded stream is a sequence of independent lines. Each line is one of:
//
//	main;work;leaf 12              classic: stack, one blank, count
//	main;work;leaf 10 20           differential: stack, count before, count after
//	main;work;leaf 1003009 @696.885404
//	                               timed: stack, count, one blank, '@' and the
//	                               sample's time in seconds on perf's clock
//	# flamekit v1 timed host="vm" first="696.885404" ...
//	                               metadata: capture facts, see [Meta]
//
// Classic and differential lines follow flamegraph.pl exactly: the stack is
// everything before the last blank (so a frame may contain blanks), counts are
// digits with an optional fraction ("12", "12.", "12.5"), and frames are
// separated by ';'.
//
// A timed line is told apart by its last field alone: it starts with '@',
// which no count can. The frame names never decide how a line is read, so
// classic, differential and timed lines may be freely mixed, concatenated
// (cat a b), filtered (grep) and sorted (sort): every line stands alone.
//
// Metadata lines start with "# flamekit v1 timed" (or "# flamekit v1
// classic", a classic stream's) and end with a quote, so flamegraph.pl,
// which ignores lines that do not end in a number, skips them. They say
// the kind of the lines after them: a line without a time that follows
// one is classic, even when its stack ends in a blank and a number (the
// one case where guessing from the last fields goes wrong, which every
// writer also escapes: see AppendStack); without one, two counts make a
// differential line, as in flamegraph.pl.
// Any other line is read as flamegraph.pl reads it, so "#x;y 5" is a stack
// whose root frame is "#x", and a comment such as "# made by me" is a
// malformed line (skipped and counted by a lenient Reader).
// A trailing CR (CRLF files) is removed before a line is parsed.
//
// Timed lines carry one sample each; a [Profile] sums them into classic
// stacks, and a classic stream is what flamegraph.pl and difffolded.pl read.
package folded
