package stackcollapse

import (
	"fmt"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/bpftrace"
	"flamekit/pkg/source"
	"flamekit/pkg/tool"
)

// openInputs opens the inputs through the one input layer, each
// recognised by its content or taken as Config.Format says, and refuses
// the ones stackcollapse cannot read before anything is written: binary
// data of no known kind, and a perf.data file given as perf script text.
// Text of no known kind is read as perf script text, which reports its
// unrecognised lines.
func openInputs(env *tool.Env, names []string, forced source.Kind) (source.Inputs, error) {
	if err := source.CheckNames(names); err != nil {
		return nil, tool.Usagef("%v", err)
	}
	ins, err := source.OpenAll(names, source.Options{Stdin: env.Stdin, Format: forced})
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		switch {
		case capture.IsPerf(in) && !in.Kind.IsPerfData() && in.Sniffed.IsPerfData():
			err = fmt.Errorf("%s is a perf.data file, not %s: leave out --format %s (stackcollapse reads perf.data files)", in.Display, in.Kind, in.Kind.Flag())
		case !in.Text:
			err = in.Check() // nil for a binary format it knows
		}
		if err != nil {
			ins.Close()
			return nil, err
		}
	}
	return ins, nil
}

// foldBpftrace writes the stacks of a bpftrace dump, summed and sorted.
func (c *Config) foldBpftrace(env *tool.Env, in *source.Input) error {
	opt := bpftrace.Options{Map: c.Map, Kernel: c.Kernel || c.All, Addrs: c.Addrs}
	return capture.Bpftrace(in, opt, env.Stdout, env.Warnf)
}

// passFolded copies already-folded input to the output, line by line:
// classic, differential and timed lines and metadata stay as they are
// (with NoTime, timed lines lose their time); malformed lines are skipped
// and counted.
func (c *Config) passFolded(env *tool.Env, in *source.Input) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	rd := folded.NewReader(rc, in.Display)
	rd.Lenient = true
	w := folded.NewWriter(env.Stdout)
	metas := 0
	writeMetas := func() error {
		for ; metas < len(rd.Meta()); metas++ {
			if c.NoTime {
				continue
			}
			m := rd.Meta()[metas]
			if err := w.WriteMeta(&m); err != nil {
				return err
			}
		}
		return nil
	}
	for rd.Next() {
		if err := writeMetas(); err != nil {
			return err
		}
		rec := rd.Record()
		if c.NoTime && rec.Kind == folded.Timed {
			rec.Kind, rec.Time = folded.Classic, 0
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if err := writeMetas(); err != nil {
		return err
	}
	if msg := rd.Skips().String(); msg != "" {
		env.Warnf("%s", msg)
	}
	return w.Flush()
}
