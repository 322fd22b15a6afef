package main

import (
	"fmt"
	"io"
	"strings"

	"flamekit/internal/cli"
	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
	"flamekit/pkg/pprof"
)

// pprofFlags are the flags of pprof input (--format is the command's).
type pprofFlags struct {
	SampleType string `name:"sample-type" placeholder:"NAME|INDEX" help:"pprof input: the sample type to fold, by name (alloc_space) or index, as go tool pprof -sample_index. Default: the profile's default type, else the last."`
}

// opened is an input opened (and gunzipped) to look at its first bytes;
// standard input stays open for the reader that follows.
type opened struct {
	name  string
	pprof bool
	rc    io.ReadCloser // only for standard input
}

// perfOnly lists the flags that only apply to perf script input.
func (c *command) perfOnly() []string {
	var set []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{c.PID, "--pid"}, {c.TID, "--tid"}, {c.Kernel, "--kernel"}, {c.JIT, "--jit"},
		{c.All, "--all"}, {c.Addrs, "--addrs"}, {c.EventFilter != "", "--event-filter"},
		{c.Inline, "--inline"}, {c.Context, "--context"}, {c.Srcline, "--srcline"},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	return set
}

// pprofSink writes converted records: timed and classic lines as they
// come, or, with --no-time, summed into one classic profile; --no-idle
// drops idle stacks.
type pprofSink struct {
	fw      *folded.Writer
	agg     *folded.Profile
	noIdle  bool
	idle    idle.Filter
	dropped int64
}

func (s *pprofSink) WriteMeta(m *folded.Meta) error {
	if s.agg != nil {
		return nil
	}
	return s.fw.WriteMeta(m)
}

func (s *pprofSink) Write(rec *folded.Record) error {
	if s.noIdle && s.idle.Is(rec.Stack) {
		s.dropped++
		return nil
	}
	if s.agg != nil {
		s.agg.Add(rec)
		return nil
	}
	return s.fw.Write(rec)
}

// runPprof folds pprof inputs.
func (c *command) runPprof(env *cli.Env, inputs []opened) error {
	if set := c.perfOnly(); len(set) > 0 {
		return cli.Usagef("%s: only for perf script input; the input is pprof", strings.Join(set, ", "))
	}
	sink := &pprofSink{fw: folded.NewWriter(env.Stdout), noIdle: c.NoIdle}
	if c.NoTime {
		sink.agg = &folded.Profile{}
	}
	for _, in := range inputs {
		display := folded.DisplayName(in.name)
		rc := in.rc
		if rc == nil {
			var err error
			if rc, err = folded.OpenStdin(in.name, env.Stdin); err != nil {
				return err
			}
		}
		p, err := pprof.Read(rc, display)
		rc.Close()
		if err != nil {
			return err
		}
		source := in.name
		if in.name == "-" {
			source = ""
		}
		sum, err := pprof.Convert(p, pprof.ReadOptions{SampleType: c.SampleType, Name: source}, sink)
		if err != nil {
			return fmt.Errorf("%s: %w", display, err)
		}
		if len(p.SampleType) > 1 && c.SampleType == "" {
			var types []string
			for _, st := range p.SampleType {
				types = append(types, st.Type)
			}
			env.Warnf("%s: folding sample type %s of %s (--sample-type picks another)", display, sum.Type, strings.Join(types, ", "))
		}
		if sum.Big > 0 {
			env.Warnf("%s: skipped %d samples whose %s is beyond 2^53 and cannot be summed exactly", display, sum.Big, sum.Type.Type)
		}
		if sum.Zero > 0 || sum.Negative > 0 {
			env.Warnf("%s: skipped %d samples whose %s is 0 and %d negative ones", display, sum.Zero, sum.Type.Type, sum.Negative)
		}
	}
	if sink.dropped > 0 {
		env.Warnf("dropped %d idle samples (--no-idle)", sink.dropped)
	}
	if sink.agg != nil {
		_, err := sink.agg.WriteTo(env.Stdout)
		return err
	}
	return sink.fw.Flush()
}
