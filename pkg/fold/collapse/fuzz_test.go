package collapse

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// fuzzSamples turns bytes into a sequence of scheduler and CPU samples, 6
// bytes each: kind, prev tid, next tid, state, time step, frames.
func fuzzSamples(data []byte) []sample.Sample {
	states := []string{"S", "D", "R", "R+", "I", "X", "D|K", "Z"}
	kinds := []string{"sched:sched_switch", "sched:sched_waking", "sched:sched_stat_sleep", "offcpu-time", "cpu-clock:pppH", "sched:sched_wakeup"}
	frames := []string{"1 __schedule ([kernel.kallsyms])", "2 read (/libc)", "3 main (/a)"}
	var out []sample.Sample
	t := folded.Time(1e9)
	for ; len(data) >= 6; data = data[6:] {
		kind := kinds[int(data[0])%len(kinds)]
		prev, next := int(data[1])%6, int(data[2])%6
		state := states[int(data[3])%len(states)]
		switch step := data[4]; {
		case step == 255:
			t -= 1000 // out of order by a microsecond
		default:
			t += folded.Time(step) * 7919 * 1000 // up to 2 s, in microseconds
		}
		s := smp(fmt.Sprintf("t%d", prev), frames[:int(data[5])%4]...)
		s.TID = []byte(fmt.Sprint(prev))
		s.Event = []byte(kind)
		s.Time, s.HasTime = t, data[5]&0x80 == 0 || kind != "offcpu-time"
		switch kind {
		case "sched:sched_switch":
			s.Payload = fmt.Appendf(nil, "prev_comm=t%d prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=t%d next_pid=%d next_prio=120",
				prev, prev, state, next, next)
		case "sched:sched_waking", "sched:sched_wakeup":
			s.Payload = fmt.Appendf(nil, "comm=t%d pid=%d prio=120 target_cpu=000", next, next)
		case "sched:sched_stat_sleep":
			s.Payload = fmt.Appendf(nil, "comm=t%d pid=%d delay=%d [ns]", next, next, int(data[3])*1000000)
		default:
			s.Period, s.HasPeriod = int64(data[3])*100000, true
		}
		out = append(out, s)
	}
	return out
}

// FuzzOffCPU drives the off-CPU state machine with arbitrary sequences of
// switches, wakeups, sched_stat and offcpu-time samples: it never panics,
// its timed output is in time order and sums to the classic output's total
// and to the summary's weight, and cutting the input into batches of any
// size changes nothing.
func FuzzOffCPU(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x00\x10\x03\x00\x02\x01\x02\x20\x01\x01\x03\x01\x00\x05\x02\x00\x01\x00\x02\x30\x00"))
	f.Add([]byte("\x00\x01\x00\x01\xff\x01\x00\x00\x01\x02\x01\x02\x03\x01\x01\x10\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples := fuzzSamples(data)
		for _, opt := range []Options{
			{OffCPU: true},
			{OffCPU: true, States: "all", ClipOpen: true, Wakers: true},
			{HotCold: true},
			{OffCPU: true, MinBlock: 50 * time.Millisecond, MaxBlock: time.Second, TID: true},
		} {
			timed := run(t, opt, samples...)
			opt.NoTime = true
			classic := run(t, opt, samples...)
			if (timed.err == nil) != (classic.err == nil) {
				t.Fatalf("%+v: errors %v and %v", opt, timed.err, classic.err)
			}
			if timed.err != nil && !strings.Contains(timed.err.Error(), "--off-cpu needs") {
				t.Fatal(timed.err)
			}
			tt, tc := checkFolded(t, timed.out), checkFolded(t, classic.out)
			if !near(tt, tc) || !near(tt, timed.sum.Weight) || !near(tc, classic.sum.Weight) {
				t.Fatalf("%+v: timed total %v (summary %v), classic total %v (summary %v)", opt, tt, timed.sum.Weight, tc, classic.sum.Weight)
			}
			opt.NoTime = false
			if got := runBatches(t, opt, samples); got != timed.out {
				t.Fatalf("%+v: one sample per batch differs:\n%s\nvs\n%s", opt, got, timed.out)
			}
		}
	})
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(a)) }

// checkFolded parses output, checks that timed lines are in time order,
// and returns the total.
func checkFolded(t *testing.T, out string) float64 {
	t.Helper()
	var sum float64
	var last folded.Time
	seen := false
	rd := folded.NewReader(strings.NewReader(out), "output")
	for rd.Next() {
		rec := rd.Record()
		sum += rec.Count
		if rec.Count <= 0 {
			t.Fatalf("count %v in %q", rec.Count, rec.Stack)
		}
		if rec.Kind == folded.Timed {
			if seen && rec.Time < last {
				t.Fatalf("time goes back: %v after %v", rec.Time, last)
			}
			last, seen = rec.Time, true
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// runBatches folds samples one sample per chunk, with two workers, as the
// parallel reader would with tiny chunks.
func runBatches(t *testing.T, opt Options, samples []sample.Sample) string {
	return runChunks(t, opt, 2, 1, samples).out
}

// fuzzChains turns bytes into a table of frames (arbitrary symbols) and
// samples of them given as chains: first the number of frames, then
// each frame (a length, that many bytes of symbol, a byte choosing its
// module), then samples of 4 bytes and their frames (comm, pid, frame
// count, period; then one byte per frame).
func fuzzChains(data []byte) (chainFrames, []chainSample) {
	if len(data) == 0 {
		return nil, nil
	}
	dsos := []string{"/bin/x", "[kernel.kallsyms]", "[unknown]", "/tmp/perf-1.map"}
	comms := []string{"x", "java", "swapper", "x y", ""}
	nf := int(data[0])%12 + 1
	data = data[1:]
	var fs chainFrames
	for i := range nf {
		var sym []byte
		var dso string
		if len(data) > 0 {
			n := min(int(data[0])%10, len(data)-1)
			sym = data[1 : 1+n]
			data = data[1+n:]
		}
		if len(data) > 0 {
			dso = dsos[int(data[0])%len(dsos)]
			data = data[1:]
		}
		fs = append(fs, sample.Frame{Addr: fmt.Appendf(nil, "%x", 0x1000+i), Symbol: sym, DSO: []byte(dso)})
	}
	var out []chainSample
	t := folded.Time(1e9)
	for len(data) >= 4 {
		s := sample.Sample{Comm: []byte(comms[int(data[0])%len(comms)]), PID: fmt.Appendf(nil, "%d", data[1]%4),
			TID: fmt.Appendf(nil, "%d", data[1]%8), CPU: int(data[1] % 2), Event: []byte("cpu-clock:ppp"),
			Period: int64(data[3]), HasPeriod: true, Time: t, HasTime: true}
		t += folded.Time(data[3]) * 1000
		n := int(data[2]) % 6
		data = data[4:]
		var chain []uint32
		for ; n > 0 && len(data) > 0; n-- {
			chain = append(chain, uint32(int(data[0])%nf))
			data = data[1:]
		}
		out = append(out, chainSample{s, chain})
	}
	return fs, out
}

// FuzzChains: samples given as chains of frame numbers of arbitrary
// frames (the perf.data reader's route: classic sums by key, timed lines
// through the numbers' memo) give what the same samples given as frames
// give, byte for byte, with any number of workers and any cut.
func FuzzChains(f *testing.F) {
	f.Add([]byte("\x04\x04a->b\x00\x01a\x00\x05b_[i]\x00\x06c+0x10\x00\x00\x00\x02\x05\x00\x01\x00\x01\x03\x07\x03\x02\x01"))
	f.Add([]byte("\x03\x07do_idle\x01\x0e__irq_exit_rcu\x01\x09[unknown]\x02\x02\x00\x03\x01\x00\x01\x02\x02\x00\x02\x10\x00"))
	f.Add([]byte("\x02\x08Lcom/x/Y\x03\x03(x)\x00\x01\x00\x02\x05\x00\x01\x00\x00\x02\x09\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, samples := fuzzChains(data)
		for _, opt := range []Options{
			{NoTime: true},
			{NoTime: true, PID: true, NoIdle: true},
			{NoTime: true, TID: true, Addrs: true, Kernel: true, JIT: true},
			{},
			{TID: true, NoIdle: true, Kernel: true},
		} {
			want := run(t, opt, withFrames(fs, samples)...)
			for _, size := range []int{1, 3} {
				got := runChain(t, opt, 2, size, fs, samples)
				if got.out != want.out || got.stderr != want.stderr || (got.err == nil) != (want.err == nil) {
					t.Fatalf("%+v, chunks of %d: chains give\n%s%s%v\nframes give\n%s%s%v", opt, size,
						got.out, got.stderr, got.err, want.out, want.stderr, want.err)
				}
			}
		}
	})
}
