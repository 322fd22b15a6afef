// Package stacktop is the whole stacktop tool as a call: [Run] takes a
// [Config] (the table asked for, the inputs) and a tool.Env, reads the
// inputs of any kind through capture.Reader (perf captures, pprof and
// bpftrace folded as stackcollapse folds them) and prints go tool pprof's
// -top or -peek table (package top). cmd/stacktop only parses flags into
// a Config.
package stacktop

import (
	"regexp"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/tool"
	"flamekit/pkg/view/top"
)

// Config is the stacktop command line, typed; its tags are the flags.
type Config struct {
	By      string   `default:"function" enum:"function,module,comm" placeholder:"function|module|comm" help:"What the rows are: frame names, modules (kernel, JIT, the DSO of unresolved frames: see stacktop's docs), or root frames (comm)."`
	N       int      `name:"nodecount" short:"n" default:"10" placeholder:"N" help:"Print the first N rows (0: all); pprof's top prints 10."`
	Cum     bool     `help:"Sort by cum instead of flat (pprof -top -cum)."`
	Callers string   `placeholder:"RE" help:"For each function matching RE, print its callers and the calls' counts (pprof -peek)."`
	Callees string   `placeholder:"RE" help:"For each function matching RE, print its callees and the calls' counts (pprof -peek)."`
	Format  Format   `default:"text" enum:"text,csv,json" placeholder:"text|csv|json" help:"Output: a table like pprof's (text), or CSV or JSON for scripts."`
	Unit    string   `default:"minimum" placeholder:"UNIT" help:"The unit of the text table's values, as pprof -unit: minimum (the unit that suits the smallest value shown: 26.96s, 51.55ms), a unit (ns, us, ms, s, hrs; B, kB, MB, GB), or raw (the counts as the input has them). The unit of the counts comes from the input's metadata (a perf capture's event, a pprof sample type); without it, counts are raw. CSV and JSON give raw counts, JSON with their unit."`
	Files   []string `arg:"" optional:"" help:"Folded stacks (classic, timed or differential; perf captures, pprof and bpftrace are folded as stackcollapse does), gzipped or not; - or nothing for standard input."`
}

// Format is how the table is printed.
type Format string

// The formats of the table.
const (
	Text Format = "text" // a table like pprof's
	CSV  Format = "csv"
	JSON Format = "json"
)

// Run reads every input of c and prints the table to env.Stdout.
func Run(c Config, env *tool.Env) error {
	by, err := top.ParseBy(c.By)
	if err != nil {
		return tool.Usagef("--by: %v", err)
	}
	if c.N < 0 {
		return tool.Usagef("-n %d: want 0 (all rows) or more", c.N)
	}
	var callers, callees *regexp.Regexp
	if c.Callers != "" {
		if callers, err = regexp.Compile(c.Callers); err != nil {
			return tool.Usagef("--callers %q: %v", c.Callers, err)
		}
	}
	if c.Callees != "" {
		if callees, err = regexp.Compile(c.Callees); err != nil {
			return tool.Usagef("--callees %q: %v", c.Callees, err)
		}
	}
	ins, err := tool.Open(c.Files, env)
	if err != nil {
		return err
	}
	defer ins.Close()

	var counter top.Counter
	rd := capture.NewReader(ins, capture.Options{Collapse: collapse.Options{NoTime: true}, Perf: "perf", Warnf: env.Warnf})
	for rec := range rd.All() {
		counter.Add(rec)
	}
	if sk := rd.Skips(); sk.Count > 0 {
		env.Warnf("%s", sk)
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if counter.Lines == 0 {
		env.Warnf("no stacks in the input")
	}

	t := counter.Table(by, c.Cum)
	if m, ok := rd.Units.Measure(); ok {
		t.Unit = m.Unit
	}
	t.Show = c.Unit
	if callers == nil && callees == nil {
		switch c.Format {
		case CSV:
			return top.WriteCSV(env.Stdout, t, c.N)
		case JSON:
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
	case CSV:
		return top.WritePeekCSV(env.Stdout, t, entries)
	case JSON:
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
