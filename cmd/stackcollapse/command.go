package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/stackcollapse"
)

// description is the stackcollapse --help text.
const description = `Fold perf captures into stacks, one line per stack, for flamegraph.

Reads perf.data files themselves (perf record's output, several times
faster than perf script | stackcollapse, with the same output), the text of
"perf script" (with or without --header) from FILEs, FIFOs or standard
input ("-"), gzip or zstd or not; also pprof profiles, bpftrace map dumps and already-folded
stacks (bcc's -f output, async-profiler's collapsed), each input recognised
by its content (see --format). A perf.data file that cannot be read as perf
would (--call-graph dwarf, LBR, pipe mode, another host's capture without
its binaries) is read through perf script, with a note (--no-perf: an
error instead). Stacks are folded as
stackcollapse-perf.pl folds them (same frames, same flags, weights = perf's
periods). When the samples have timestamps, the output keeps them: one
timed line "stack weight @seconds" per sample, in input order, after a
"# flamekit v1 timed ..." line with the capture's facts, so that timeslice
can cut a time window; --no-time prints the classic sorted, summed lines
instead, as stackcollapse-perf.pl prints them (but for a few documented
fixes, listed in docs/stackcollapse.md).

Examples:
  perf record -F 99 -a -g -- sleep 30
  stackcollapse perf.data | flamegraph > cpu.svg
  stackcollapse perf.data | timeslice --at 14s±2.5 | flamegraph > spike.svg
  perf script --header > out.perf
  stackcollapse out.perf | flamegraph > cpu.svg
  stackcollapse out.perf | timeslice --at 70s±2.5 | flamegraph > spike.svg
  perf script | stackcollapse --no-time --all > out.folded
  stackcollapse --pid --no-idle out.perf.gz | flamegraph > busy.svg
  stackcollapse -event-filter=page-faults out.perf > faults.folded
  bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
  stackcollapse --kernel out.bt | flamegraph > bpf.svg

Exit status: 0 when the input was read (malformed lines are counted on
standard error), 1 when an input could not be read, 2 for usage errors.`

// command is the stackcollapse command line (a kong grammar).
type command struct {
	PID         bool            `name:"pid" help:"Include the PID in the root frame: comm-PID (perf script must print pid, e.g. -F +pid)."`
	TID         bool            `name:"tid" help:"Include PID and TID in the root frame: comm-PID/TID."`
	Kernel      bool            `help:"Annotate kernel frames with _[k]."`
	JIT         bool            `name:"jit" help:"Annotate JIT frames (perf-PID.map) with _[j]."`
	All         bool            `help:"All annotations (--kernel --jit)."`
	Addrs       bool            `help:"Include the raw address of frames without a symbol: [module <addr>]."`
	EventFilter string          `name:"event-filter" placeholder:"EVENT" help:"Keep only samples of EVENT: its name (cpu-clock:pppH, sched:sched_switch) or a part of it between colons (sched_switch). Default: the first event in the input."`
	Weight      string          `name:"weight" placeholder:"FIELD" help:"Weight each sample by its numeric payload field FIELD (size of a malloc probe, bytes_alloc of kmem events, nr_sector of block requests) instead of perf's period."`
	OffCPU      bool            `name:"off-cpu" help:"Write the time threads spent off CPU, in microseconds, by the stack where they blocked (from sched:sched_switch samples: perf record -e sched:sched_switch -a -g)."`
	States      string          `name:"states" placeholder:"LETTERS" help:"With --off-cpu: the prev_state letters that count (default SD: sleeping and disk waits; all: every state, as bcc's offcputime)."`
	MinBlock    string          `name:"min-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals shorter than TIME (microseconds, or with a unit: 500us, 2ms, 1s). Default 1us."`
	MaxBlock    string          `name:"max-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals longer than TIME."`
	ClipOpen    bool            `name:"clip-open" help:"With --off-cpu: count the intervals still open at the capture's end up to its last sample, rather than leaving them out."`
	Wakers      bool            `name:"wakers" help:"Off-CPU stacks followed by the waker's stack after a -- frame, as bcc's offwaketime (needs sched:sched_waking or sched_wakeup samples; flamegraph --colors chain)."`
	HotCold     bool            `name:"hot-cold" help:"On-CPU samples (cpu-clock) and off-CPU time of one capture in one graph, in microseconds; off-CPU frames end in _[i] (flamegraph --colors java draws them aqua)."`
	Inline      bool            `help:"Expand inlined functions with addr2line (slow)."`
	Context     bool            `help:"With --inline, add :file:line to each frame."`
	Srcline     bool            `help:"The input was made with perf script -F+srcline: add the source line to each frame."`
	NoIdle      bool            `name:"no-idle" help:"Drop the samples of idle CPUs (swapper in the idle loop)."`
	NoTime      bool            `name:"no-time" help:"Write classic folded output (sorted, summed) even when samples have timestamps."`
	RefWall     string          `name:"ref-wall" placeholder:"TIME" help:"With --ref-perf: a wall-clock time (RFC 3339, or epoch seconds) known to have happened at perf time --ref-perf, e.g. from a marker written to /dev/kmsg; put in the metadata so that timeslice maps perf time to the wall clock exactly."`
	RefPerf     string          `name:"ref-perf" placeholder:"SECONDS" help:"The perf-clock (dmesg) time of --ref-wall, e.g. 2404.748841."`
	Jobs        int             `name:"jobs" short:"j" default:"0" help:"Use this many CPUs (default: all): -j 1 leaves the others to perf record."`
	Format      string          `name:"format" enum:"auto,perf,bpftrace,pprof,perf-data,folded" default:"auto" help:"Input format: auto (recognise each input by its content), perf (perf script text), pprof (profile.proto, gzipped or not: Go's -cpuprofile/-memprofile, perf_data_converter, timeslice --format pprof), bpftrace (map dump), folded (passed through), perf-data (perf record's file, read directly)."`
	NoPerf      bool            `name:"no-perf" help:"Never run perf script: a perf.data file that stackcollapse cannot read as perf does (--call-graph dwarf, LBR, pipe mode, another host's capture without perf archive) is an error instead."`
	Map         string          `name:"map" placeholder:"@NAME" help:"bpftrace input: the map to fold (default: the first map with a stack in its key)."`
	Version     cli.VersionFlag `help:"Print the version and exit."`
	Files       []string        `arg:"" optional:"" name:"FILE" help:"Input files: perf script text, pprof, bpftrace dumps, folded stacks (.gz read transparently); '-' or none for standard input."`

	SampleType string `name:"sample-type" placeholder:"NAME|INDEX" help:"pprof input: the sample type to fold, by name (alloc_space) or index, as go tool pprof -sample_index. Default: the profile's default type, else the last."`

	cli.SymbolFlags `embed:""`
}

// Run runs the command: the flags are the Config of stackcollapse.Run.
func (c *command) Run(env *cli.Env) error {
	cfg := stackcollapse.Config{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel, JIT: c.JIT, All: c.All, Addrs: c.Addrs,
		EventFilter: c.EventFilter, Weight: c.Weight, OffCPU: c.OffCPU, States: c.States,
		MinBlock: c.MinBlock, MaxBlock: c.MaxBlock, ClipOpen: c.ClipOpen, Wakers: c.Wakers,
		HotCold: c.HotCold, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		NoIdle: c.NoIdle, NoTime: c.NoTime, RefWall: c.RefWall, RefPerf: c.RefPerf,
		Jobs: c.Jobs, Format: c.Format, NoPerf: c.NoPerf, Map: c.Map,
		SampleType: c.SampleType, Files: c.Files,
		NoDebuginfod: c.NoDebuginfod, Force: c.Force,
	}
	return stackcollapse.Run(cfg, env.Tool())
}
