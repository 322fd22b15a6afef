package gaps

import (
	"slices"
	"testing"

	"flamekit/internal/night"
	"flamekit/pkg/folded"
)

const ms = folded.Time(1e6)

func TestPeriodOf(t *testing.T) {
	tests := []struct {
		cmdline string
		period  folded.Time
		all     bool
	}{
		{"/usr/bin/perf record -a -g -F 97 -- sleep 30", second / 97, true},
		{"/usr/bin/perf record -F 97 -g -a --switch-output -o tt/.x.data.partial -- cat", second / 97, true},
		{"perf record -ag -F97 -- sleep 1", second / 97, true},
		{"perf record --all-cpus --freq=99", second / 99, true},
		{"perf record --all-cpus --freq 99", second / 99, true},
		{"perf record -a -g", second / 4000, true}, // perf's default rate
		{"perf record -a -c 1000000", 1000000, true},
		{"perf record -g -F 97 -p 123", second / 97, false},
		{"perf record -F max -a", 0, false},
		{"perf record -F 97 -- sh -a", second / 97, false}, // -a of the workload
		{"perf record -Fa", 0, false},
		{"", second / 4000, false},
	}
	for _, tt := range tests {
		p, ok := periodOf(tt.cmdline)
		if ok != tt.all || ok && p != tt.period {
			t.Errorf("periodOf(%q) = %v, %v; want %v, %v", tt.cmdline, p, ok, tt.period, tt.all)
		}
	}
}

func meta(kv ...string) []folded.Meta {
	var m folded.Meta
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return []folded.Meta{m}
}

func span(first, last folded.Time) folded.Span {
	var s folded.Span
	s.Add(first)
	s.Add(last)
	return s
}

func TestRuleFor(t *testing.T) {
	sys := meta(folded.KeyCmdline, "/usr/bin/perf record -a -g -F 97 -- sleep 30", folded.KeyEvent, "cpu-clock:pppH")
	full := Capture{Metas: sys, Samples: 2910, Span: span(0, 30*second)} // 97/s: one CPU sampled throughout
	tests := []struct {
		name string
		caps []Capture
		want Rule
	}{
		{"system-wide cpu-clock", []Capture{full, full}, Rule{Min: 5 * (second / 97), Samples: true, Period: second / 97}},
		{"no-idle stream: too few samples", []Capture{full, {Metas: sys, Samples: 500, Span: span(0, 30*second)}},
			Rule{Min: DefaultMin, Period: second / 97}},
		{"at 4000 Hz: the floor", []Capture{{Metas: meta(folded.KeyCmdline, "perf record -a", folded.KeyEvent, "cpu-clock"), Samples: 200000, Span: span(0, 30*second)}},
			Rule{Min: MinFloor, Samples: true, Period: second / 4000}},
		{"cycles do not count in idle", []Capture{{Metas: meta(folded.KeyCmdline, "perf record -a -F 97", folded.KeyEvent, "cycles"), Samples: 5000, Span: span(0, 30*second)}},
			Rule{Min: DefaultMin}},
		{"one process", []Capture{{Metas: meta(folded.KeyCmdline, "perf record -F 97 -p 1", folded.KeyEvent, "cpu-clock"), Samples: 5000, Span: span(0, 30*second)}},
			Rule{Min: DefaultMin}},
		{"no metadata", []Capture{{Samples: 5000, Span: span(0, 30*second)}}, Rule{Min: DefaultMin}},
		{"no samples", nil, Rule{Min: DefaultMin}},
	}
	for _, tt := range tests {
		if got := RuleFor(tt.caps); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestBetweenMergeCovered(t *testing.T) {
	s := func(a, b int) Span { return Span{folded.Time(a) * ms, folded.Time(b) * ms} }
	spans := []Span{s(5000, 9000), s(0, 4000), s(1000, 2000), s(9010, 12000), s(13500, 14000)}
	got := Between(spans, 100*ms)
	want := []Span{s(4000, 5000), s(12000, 13500)} // 9000 to 9010 is too short
	if !slices.Equal(got, want) {
		t.Errorf("Between = %v, want %v", got, want)
	}
	m := Merge([]Span{s(30, 40), s(0, 10), s(10, 20), s(35, 50), s(60, 60)})
	if w := []Span{s(0, 20), s(30, 50)}; !slices.Equal(m, w) {
		t.Errorf("Merge = %v, want %v", m, w)
	}
	for _, tt := range []struct {
		from, to, want int
	}{{0, 100, 40}, {5, 35, 20}, {20, 30, 0}, {45, 60, 5}, {-10, 5, 5}, {49, 50, 1}, {50, 51, 0}} {
		if c := Covered(m, folded.Time(tt.from)*ms, folded.Time(tt.to)*ms); c != folded.Time(tt.want)*ms {
			t.Errorf("Covered(%d, %d) = %v, want %d ms", tt.from, tt.to, c, tt.want)
		}
	}
	for _, tt := range []struct {
		at   folded.Time
		want bool
	}{{0, true}, {20*ms - 1, true}, {20 * ms, false}, {30 * ms, true}, {50 * ms, false}, {-1, false}} {
		if c := Contains(m, tt.at); c != tt.want {
			t.Errorf("Contains(%v) = %v", tt.at, c)
		}
	}
}

func TestFinder(t *testing.T) {
	f := NewFinder()
	// Samples every 10.3 ms from 100 s to 102 s, none until 103.5 s, then
	// to 104 s; given out of order.
	var ts []folded.Time
	for t := 100 * second; t < 102*second; t += 10309278 {
		ts = append(ts, t)
	}
	for t := 103*second + 500*ms; t < 104*second; t += 10309278 {
		ts = append(ts, t)
	}
	for i := len(ts) - 1; i >= 0; i -= 2 {
		f.Add(ts[i])
	}
	for i := len(ts) - 2; i >= 0; i -= 2 {
		f.Add(ts[i])
	}
	g := f.Gaps(52 * ms)
	if len(g) != 1 || g[0].From < 101990*ms || g[0].From > 102010*ms || g[0].To != 103500*ms {
		t.Fatalf("Gaps = %v, want one from about 102 s to 103.5 s", g)
	}
	if g := f.Gaps(2 * second); len(g) != 0 {
		t.Errorf("Gaps(2 s) = %v, want none", g)
	}
}

// TestRealCapture: the bundled capture (30 s of perf record -a -g -F 97 on
// a mostly idle machine) has no gap under its own rule, whichever order
// its samples come in; cut into two windows with 1.5 s taken out between
// them, it has that one.
func TestRealCapture(t *testing.T) {
	samples, m, err := night.Capture()
	if err != nil {
		t.Fatal(err)
	}
	first, last := samples[0].Time, samples[len(samples)-1].Time
	rule := RuleFor([]Capture{{Metas: []folded.Meta{m}, Samples: int64(len(samples)), Span: span(first, last)}})
	if !rule.Samples || rule.Period != second/97 {
		t.Fatalf("rule %+v, want the samples rule at 97 Hz (metadata %v)", rule, m.Fields)
	}
	f := NewFinder()
	for i := range samples {
		f.Add(samples[len(samples)-1-i].Time)
	}
	if g := f.Gaps(rule.Min); len(g) != 0 {
		t.Errorf("gaps in a whole capture: %v", g)
	}

	cutFrom, cutTo := first+10*second, first+11500*ms
	f = NewFinder()
	var a, b folded.Span
	for _, s := range samples {
		switch {
		case s.Time < cutFrom:
			a.Add(s.Time)
		case s.Time >= cutTo:
			b.Add(s.Time)
		default:
			continue
		}
		f.Add(s.Time)
	}
	inFile := Between([]Span{{a.First, a.Last}, {b.First, b.Last}}, rule.Min)
	fromSamples := f.Gaps(rule.Min)
	for _, g := range [][]Span{inFile, fromSamples} {
		// Placed to the 10 ms bins of the samples either side of the cut.
		if len(g) != 1 || g[0].From < cutFrom-30*ms || g[0].From > cutFrom+Bin || g[0].To < cutTo-Bin || g[0].To > cutTo+30*ms {
			t.Errorf("gaps %v, want one of %v to %v", g, cutFrom, cutTo)
		}
	}
}
