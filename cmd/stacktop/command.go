package main

import (
	"regexp"

	"flamekit/internal/cli"
	captures "flamekit/pkg/fold/capture" // "capture" names a test file of this package
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/source"
	"flamekit/pkg/view/top"
)

// command is the stacktop command line.
type command struct {
	By      string          `default:"function" enum:"function,module,comm" placeholder:"function|module|comm" help:"What the rows are: frame names, modules (kernel, JIT, the DSO of unresolved frames: see stacktop's docs), or root frames (comm)."`
	N       int             `name:"nodecount" short:"n" default:"10" placeholder:"N" help:"Print the first N rows (0: all); pprof's top prints 10."`
	Cum     bool            `help:"Sort by cum instead of flat (pprof -top -cum)."`
	Callers string          `placeholder:"RE" help:"For each function matching RE, print its callers and the calls' counts (pprof -peek)."`
	Callees string          `placeholder:"RE" help:"For each function matching RE, print its callees and the calls' counts (pprof -peek)."`
	Format  string          `default:"text" enum:"text,csv,json" placeholder:"text|csv|json" help:"Output: a table like pprof's (text), or CSV or JSON for scripts."`
	Version cli.VersionFlag `help:"Print the version and exit."`
	Files   []string        `arg:"" optional:"" help:"Folded stacks (classic, timed or differential; perf captures, pprof and bpftrace are folded as stackcollapse does), gzipped or not; - or nothing for standard input."`
}

// description is stacktop's --help text.
const description = `Rank the functions of folded stacks by self and total cost: the table
go tool pprof -top prints. flat is the count of the samples where a function
is the leaf (self time), cum of those where it is anywhere on the stack
(counted once per sample, however deep it recurses), sum% the running total
of flat%. Rows are sorted by flat (--cum: by cum), then by name.

--callers RE and --callees RE print pprof -peek's view instead: for each
function matching RE, the functions that call it and that it calls, with
the count of the samples through each call and its share of the function's
cum.

Differential input (difffolded output) is ranked by its second count, what
the flame graph draws; two more columns give the change from the first
count (Δflat, Δcum).

Examples:
  stacktop capture.folded
  stacktop -n 0 --format csv capture.folded.gz > functions.csv
  stacktop --cum -n 20 capture.folded
  stacktop --by comm capture.folded
  stackcollapse --all perf.data | stacktop --by module
  stacktop --callers '^do_syscall_64$' --callees '^do_syscall_64$' capture.folded
  stackfilter --focus burst_spin capture.folded | stacktop --format json
  difffolded before.folded after.folded | stacktop --cum`

// Run reads every input and prints the table.
func (c *command) Run(env *cli.Env) error {
	by, err := top.ParseBy(c.By)
	if err != nil {
		return cli.Usagef("--by: %v", err)
	}
	if c.N < 0 {
		return cli.Usagef("-n %d: want 0 (all rows) or more", c.N)
	}
	var callers, callees *regexp.Regexp
	if c.Callers != "" {
		if callers, err = regexp.Compile(c.Callers); err != nil {
			return cli.Usagef("--callers %q: %v", c.Callers, err)
		}
	}
	if c.Callees != "" {
		if callees, err = regexp.Compile(c.Callees); err != nil {
			return cli.Usagef("--callees %q: %v", c.Callees, err)
		}
	}
	if err := source.CheckNames(c.Files); err != nil {
		return cli.Usagef("%v", err)
	}
	ins, err := source.OpenAll(c.Files, source.Options{Stdin: env.Stdin})
	if err != nil {
		return err
	}
	defer ins.Close()

	var counter top.Counter
	fs := source.NewFiles(ins, true)
	// Perf captures, pprof and bpftrace are folded as stackcollapse folds
	// them.
	fs.Fold = captures.Fold(captures.Options{Collapse: collapse.Options{NoTime: true}, Perf: "perf", Warnf: env.Warnf})
	for fs.Next() {
		counter.Add(fs.Record())
	}
	if sk := fs.Skips(); sk.Count > 0 {
		env.Warnf("%s", sk)
	}
	if err := fs.Err(); err != nil {
		return err
	}
	if counter.Lines == 0 {
		env.Warnf("no stacks in the input")
	}

	t := counter.Table(by, c.Cum)
	if callers == nil && callees == nil {
		switch c.Format {
		case "csv":
			return top.WriteCSV(env.Stdout, t, c.N)
		case "json":
			return top.WriteJSON(env.Stdout, t, c.N)
		}
		return top.WriteText(env.Stdout, t, c.N)
	}
	entries := peek(&counter, by, callers, callees)
	if len(entries) == 0 {
		env.Warnf("no %s matches --callers or --callees", by)
	}
	if c.N > 0 && len(entries) > c.N {
		env.Warnf("%d %ss match; showing the first %d (-n 0 shows all)", len(entries), by, c.N)
		entries = entries[:c.N]
	}
	switch c.Format {
	case "csv":
		return top.WritePeekCSV(env.Stdout, t, entries)
	case "json":
		return top.WritePeekJSON(env.Stdout, t, entries)
	}
	return top.WritePeekText(env.Stdout, t, entries)
}

// peek returns the rows matching callers or callees, each with the side
// (or sides) asked for.
func peek(c *top.Counter, by top.By, callers, callees *regexp.Regexp) []top.Entry {
	any := callers
	switch {
	case callers == nil:
		any = callees
	case callees != nil && callers.String() != callees.String():
		any = regexp.MustCompile("(?:" + callers.String() + ")|(?:" + callees.String() + ")")
	}
	entries := c.Peek(by, any)
	for i := range entries {
		e := &entries[i]
		if callers == nil || !callers.MatchString(e.Name) {
			e.Callers = nil
		}
		if callees == nil || !callees.MatchString(e.Name) {
			e.Callees = nil
		}
	}
	return entries
}
