package stackcollapse

import (
	"strings"

	"flamekit/pkg/filter/idle"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/tool"
)

// perfOnly lists the flags set that only apply to perf script input.
func (c *Config) perfOnly() []string {
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
// come, or, with NoTime, summed into one classic profile; NoIdle drops
// idle stacks.
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
func (c *Config) runPprof(env *tool.Env, inputs source.Inputs) error {
	if set := c.perfOnly(); len(set) > 0 {
		return tool.Usagef("%s: only for perf script input; the input is pprof", strings.Join(set, ", "))
	}
	sink := &pprofSink{fw: folded.NewWriter(env.Stdout), noIdle: c.NoIdle}
	if c.NoTime {
		sink.agg = &folded.Profile{}
	}
	for _, in := range inputs {
		if err := capture.Pprof(in, c.SampleType, sink, env.Warnf); err != nil {
			return err
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
