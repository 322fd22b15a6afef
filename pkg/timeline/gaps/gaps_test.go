package gaps

import (
	"slices"
	"strconv"
	"testing"

	"flamekit/internal/testkit/night"
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

func meta(kv ...string) folded.Meta {
	var m folded.Meta
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// finder returns a Finder of n samples evenly from first to last.
func finder(first, last folded.Time, n int) *Finder {
	f := NewFinder()
	for i := 0; i < n; i++ {
		f.Add(first + (last-first)*folded.Time(i)/folded.Time(n-1))
	}
	return f
}

func TestRuleFor(t *testing.T) {
	const cmd = "/usr/bin/perf record -a -g -F 97 -- sleep 30"
	head := meta(folded.KeyCmdline, cmd, folded.KeyEvent, "cpu-clock:pppH", folded.KeyFirst, "100.000000", folded.KeyLast, "130.000000")
	tail := func(samples string) folded.Meta {
		return meta(folded.KeyEvent, "cpu-clock:pppH", folded.KeyFirst, "100.000000", folded.KeyLast, "130.000000", folded.KeySamples, samples)
	}
	all := finder(100*second, 130*second, 2911) // 97/s: one CPU sampled throughout
	p97 := second / 97
	tests := []struct {
		name  string
		metas []folded.Meta
		read  *Finder
		want  Rule
	}{
		{"system-wide cpu-clock", []folded.Meta{head, tail("2911")}, all, Rule{Min: 5 * p97, Samples: true, Period: p97}},
		{"a slice of it: its own line names no event", []folded.Meta{head, tail("2911"), meta(folded.KeyFirst, "100", folded.KeyLast, "130", "slice-from", "110")},
			finder(110*second, 115*second, 486), Rule{Min: 5 * p97, Samples: true, Period: p97}},
		{"idle samples dropped: fewer read than declared", []folded.Meta{head, tail("2911")}, finder(100*second, 130*second, 500),
			Rule{Min: DefaultMin, Period: p97}},
		{"a kernel that does not sample idle CPUs", []folded.Meta{head, tail("600")}, finder(100*second, 130*second, 600),
			Rule{Min: DefaultMin, Period: p97}},
		{"no line counts the samples", []folded.Meta{head}, all, Rule{Min: DefaultMin, Period: p97}},
		{"at 4000 Hz: the floor", []folded.Meta{meta(folded.KeyCmdline, "perf record -a", folded.KeyEvent, "cpu-clock"), tail("120001")},
			finder(100*second, 130*second, 120001), Rule{Min: MinFloor, Samples: true, Period: second / 4000}},
		{"cycles do not count in idle", []folded.Meta{meta(folded.KeyCmdline, "perf record -a -F 97", folded.KeyEvent, "cycles"), tail("2911")}, all,
			Rule{Min: DefaultMin}},
		{"one process", []folded.Meta{meta(folded.KeyCmdline, "perf record -F 97 -p 1", folded.KeyEvent, "cpu-clock"), tail("2911")}, all,
			Rule{Min: DefaultMin}},
		{"no metadata", nil, all, Rule{Min: DefaultMin}},
	}
	for _, tt := range tests {
		if got := RuleFor(tt.metas, tt.read); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestSpans(t *testing.T) {
	metas := []folded.Meta{
		meta(folded.KeyEvent, "cpu-clock", folded.KeyFirst, "1.5", folded.KeyLast, "3"),
		meta(folded.KeyEvent, "cpu-clock", folded.KeyFirst, "0.000000", folded.KeyLast, "0.000000"), // a --switch-output chunk's header
		meta(folded.KeyFirst, "0", folded.KeyLast, "9"),                                             // a slice's own line
		meta(folded.KeyEvent, "cpu-clock", folded.KeyFirst, "7", folded.KeyLast, "7", folded.KeySamples, "1"),
	}
	got := Spans(metas)
	want := []Span{{1500 * ms, 3 * second}, {7 * second, 7 * second}}
	if !slices.Equal(got, want) {
		t.Errorf("Spans = %v, want %v", got, want)
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

// TestRealCapturesWhole: the bundled system-wide captures, a mostly idle
// machine and a saturated one, have no gap under their own rule.
func TestRealCapturesWhole(t *testing.T) {
	for _, src := range []*night.Source{night.Idle, night.Saturated} {
		samples, m, err := src.Samples()
		if err != nil {
			t.Fatal(err)
		}
		f := NewFinder()
		for _, x := range samples {
			f.Add(x.Time)
		}
		m.Set(folded.KeySamples, strconv.Itoa(len(samples)))
		rule := RuleFor([]folded.Meta{m}, f)
		if g := f.Gaps(rule.Min); !rule.Samples || len(g) != 0 {
			t.Errorf("%s: rule %+v, gaps %v", src.File, rule, g)
		}
	}
}

// TestRealCapture: the bundled capture (30 s of perf record -a -g -F 97 on
// a mostly idle machine) has no gap under its own rule, whichever order
// its samples come in; cut into two windows with 1.5 s taken out between
// them, it has that one.
func TestRealCapture(t *testing.T) {
	samples, m, err := night.Idle.Samples()
	if err != nil {
		t.Fatal(err)
	}
	first := samples[0].Time
	f := NewFinder()
	for i := range samples {
		f.Add(samples[len(samples)-1-i].Time)
	}
	m.Set(folded.KeySamples, strconv.Itoa(len(samples)))
	rule := RuleFor([]folded.Meta{m}, f)
	if !rule.Samples || rule.Period != second/97 {
		t.Fatalf("rule %+v, want the samples rule at 97 Hz (metadata %v)", rule, m.Fields)
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

func TestDescribe(t *testing.T) {
	for _, tt := range []struct {
		r    Rule
		want string
	}{
		{Rule{Min: 5 * second / 97, Samples: true, Period: second / 97}, "no sample on any CPU for 51.5 ms or more (system-wide cpu-clock at 97 Hz), or between the inputs"},
		{Rule{Min: MinFloor, Samples: true, Period: second / 4000}, "no sample on any CPU for 50 ms or more (system-wide cpu-clock at 4000 Hz), or between the inputs"},
		{Rule{Min: DefaultMin}, "time between the inputs' samples of 1 s or more"},
	} {
		if got := tt.r.Describe(); got != tt.want {
			t.Errorf("Describe() = %q, want %q", got, tt.want)
		}
	}
}
