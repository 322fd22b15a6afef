// Package source is flamekit's one input layer: every command opens its
// inputs here, so that every command reads every format it can use, the
// same way.
//
// [Open] (or [OpenAll]) takes names as a command line gives them: a path,
// or "-" for [Options.Stdin]. Each [Input] knows its [Kind], sniffed from
// its first bytes (decompressed: gzip and zstd are told by their magic,
// never by the name), and is read from its start with [Input.Open], or
// through a file with [Input.Path] for readers at offsets (perf.data):
//
//	ins, err := source.OpenAll(names, source.Options{Stdin: os.Stdin})
//	if err != nil { ... }
//	defer ins.Close() // removes the copies made
//	for _, in := range ins {
//		if err := in.Check(); err != nil { ... } // no known kind
//		capture.Scan(in, ...) // its records, as its kind reads
//	}
//
// The table of formats ([Formats], [Sniff]) is the one place where flamekit
// tells formats apart; the packages that read each format (perfdata, pprof,
// perfscript, bpftrace, folded) are not needed for it, so that this package
// sits below them all. What a tool does with each kind (how it is read as
// records, whether it is timed, how stackcollapse writes it) is the entry
// of its kind in package capture's table of readers: no tool switches on
// the kind. [RemoveTemps] removes the copies of every input, for
// a program that exits on a signal.
package source
