package perfdata

import "testing"

func TestIsJitdump(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/jit-123.dump":          true,
		"jit-1.dump":                 true,
		"/home/u/.debug/jit-42.dump": true,
		"/tmp/jit-.dump":             false,
		"/tmp/jit-12a.dump":          false,
		"/tmp/jit-12.dump.gz":        false,
		"/tmp/perf-12.map":           false,
		"/tmp/xjit-12.dump":          false,
		"/tmp/jit-12.dump/x":         false,
	} {
		if got := isJitdump(path); got != want {
			t.Errorf("isJitdump(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestJitClock: JIT code is named by its time only in captures whose
// samples all have a time in the jitdumps' clock, CLOCK_MONOTONIC.
func TestJitClock(t *testing.T) {
	mono := attr{flags: flagUseClockID, clockID: clockMonotonic, sampleType: sampleTime}
	raw := mono
	raw.clockID = 4 // CLOCK_MONOTONIC_RAW
	noClock := mono
	noClock.flags = 0
	noTime := mono
	noTime.sampleType = sampleIP
	for _, c := range []struct {
		name  string
		attrs []attr
		want  bool
	}{
		{"-k mono", []attr{mono, mono}, true},
		{"perf's clock", []attr{noClock}, false},
		{"another clock", []attr{raw}, false},
		{"one event without -k", []attr{mono, noClock}, false},
		{"no time", []attr{noTime}, false},
		{"no event", nil, false},
	} {
		fi := &fileInfo{attrs: c.attrs}
		if got := fi.jitClock(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestJitSpans: a process whose JIT reused memory changes its JIT DSO at
// each reuse time, for one with the span's end, in its maps and the DSO
// table; other processes keep theirs.
func TestJitSpans(t *testing.T) {
	m := newMachine(map[string]buildID{})
	const jit, other = 10, 20
	m.comm(jit, jit, []byte("node"))
	m.comm(jit, jit+1, []byte("worker"))
	m.mmap(jit, jit, 0x1000, 0x1000, 0, protExec, 0, "//anon", nil)
	m.mmap(other, other, 0x1000, 0x1000, 0, protExec, 0, "//anon", nil)
	otherDSO := m.threads[other].maps.find(0x1000).dso
	type state struct {
		end  uint64
		next uint64
	}
	check := func(when string, want state) *dso {
		t.Helper()
		d := m.threads[jit].maps.find(0x1800).dso
		if d.kind != dsoJIT || d.pid != jit || d.jitEnd != want.end {
			t.Fatalf("%s: JIT DSO %+v, want its span to end at %d", when, d, want.end)
		}
		if m.dsos[jitName(jit)] != d || m.threads[jit+1].maps.find(0x1800).dso != d {
			t.Fatalf("%s: the DSO table or a thread has another JIT DSO", when)
		}
		if m.jitNext != want.next {
			t.Fatalf("%s: next span at %d, want %d", when, m.jitNext, want.next)
		}
		if m.threads[other].maps.find(0x1000).dso != otherDSO {
			t.Fatalf("%s: another process's JIT DSO changed", when)
		}
		return d
	}
	first := check("before", state{0, ^uint64(0)})
	first.locs = map[uint64]uint32{0x1800: 1}
	m.addJIT(jit, []uint64{0, 100, 200})
	d := check("jitdump mapped", state{100, 100})
	if d == first || d.key == first.key || d.locs != nil {
		t.Fatalf("the first span's DSO is the old one: %+v", d)
	}
	m.addJIT(jit, []uint64{50}) // a second answer for the process: ignored
	check("mapped again", state{100, 100})
	m.advanceJIT(99)
	check("at 99", state{100, 100})
	m.advanceJIT(150)
	second := check("at 150", state{200, 200})
	if second == d || second.key == d.key {
		t.Fatal("one DSO for two spans")
	}
	// A new JIT map of the process takes the span's DSO.
	m.mmap(jit, jit, 0x5000, 0x1000, 0, protExec, 0, "//anon", nil)
	if got := m.threads[jit].maps.find(0x5000).dso; got != second {
		t.Fatalf("new map: %+v, not the span's DSO", got)
	}
	m.advanceJIT(1000)
	last := check("at 1000", state{0, ^uint64(0)})
	if got := m.threads[jit].maps.find(0x5000).dso; got != last {
		t.Fatalf("second map: %+v, not the span's DSO", got)
	}

	// A process whose jitdump is mapped before its JIT code.
	const late = 30
	m.addJIT(late, []uint64{500})
	if m.jitNext != 500 {
		t.Fatalf("next span at %d, want 500", m.jitNext)
	}
	m.mmap(late, late, 0x1000, 0x1000, 0, protExec, 0, "//anon", nil)
	if d := m.threads[late].maps.find(0x1000).dso; d.jitEnd != 500 {
		t.Fatalf("late JIT DSO: %+v, want its span to end at 500", d)
	}
	m.advanceJIT(500)
	if d := m.threads[late].maps.find(0x1000).dso; d.jitEnd != 0 || m.jitNext != ^uint64(0) {
		t.Fatalf("late JIT DSO at 500: %+v, next %d", d, m.jitNext)
	}
}
