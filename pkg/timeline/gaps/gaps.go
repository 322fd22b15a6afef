// Package gaps finds the parts of a capture's timeline that were not
// recorded, so that a heat map draws them as such and bursts do not count
// them as quiet seconds.
//
// Two rules tell a gap:
//
//   - Between inputs: time that no input's span (its first to its last
//     sample) covers, between the earliest first sample and the latest
//     last one, is not recorded when it lasts longer than the rule's
//     minimum (Rule.Min; 1 s unless the captures are system-wide timer
//     samples, below): two recorder windows with a hole between them, or
//     two captures of one night.
//   - Inside the inputs, for system-wide captures of a timer (perf record
//     -a with the cpu-clock event, the recorder's; see [RuleFor]): such a
//     capture samples every CPU at every period, idle or not, so that a
//     stretch with no sample at all on any CPU, longer than 5 sample
//     periods (and 50 ms), is a stretch perf did not record (stopped,
//     restarted, or lost the samples). The rule applies only when every
//     input holds at least 0.9 samples per period of its span: a stream
//     that lost its idle samples (stackcollapse --no-idle, or a filter) or
//     a kernel that does not sample idle CPUs would make idle time look
//     unrecorded.
//
// A [Finder] keeps which 10 ms bins hold a sample (two words per second
// that holds one), whatever the order the samples come in, so that gaps
// are placed to 10 ms.
package gaps

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

const second = folded.Time(1e9)

// Span is a stretch of perf time, [From, To).
type Span struct{ From, To folded.Time }

// Len returns the length of the span.
func (s Span) Len() folded.Time { return s.To - s.From }

// Rule says how gaps are told.
type Rule struct {
	// Min is the shortest gap reported.
	Min folded.Time
	// Samples says every stretch of Min or more without a sample is a gap
	// (system-wide timer sampling); otherwise only time between the
	// inputs' spans is.
	Samples bool
	// Period is the sample period of the captures, when known.
	Period folded.Time
}

// DefaultMin is the shortest gap between inputs when the captures are not
// system-wide timer samples.
const DefaultMin = second

// MinFloor is the shortest gap the samples rule reports, whatever the
// sample period.
const MinFloor = 50 * folded.Time(1e6)

// Periods is the number of sample periods without a sample that make a
// gap under the samples rule.
const Periods = 5

// Density is the samples per period of its span an input needs for the
// samples rule.
const Density = 0.9

// RuleFor returns the rule for the captures the metadata lines of all the
// inputs describe (every line that names the sampled event, or perf's
// command line; slices' own lines do not), whose samples read is the
// Finder:
//
//   - the samples rule when every command line is a system-wide record at
//     a known rate (-a; -F, -c or perf's default 4000 Hz) and every event
//     is cpu-clock, and every capture that declares its span and number of
//     samples holds at least Density samples per period of it, and about
//     as many were read (at least 90% of its rate, over the part of it the
//     samples read cover: a stream whose idle samples were dropped, or
//     filtered, does not qualify); the longest period sets Min;
//   - otherwise gaps are only the time between the captures' spans, of
//     DefaultMin or more.
//
// It depends on the lines, not on how they were split into inputs, so that
// captures concatenated into one stream have the gaps of the same files
// named one by one; input without metadata has no gaps.
func RuleFor(metas []folded.Meta, read *Finder) Rule {
	var period folded.Time
	dense := 0
	for i := range metas {
		m := &metas[i]
		if event, ok := m.Get(folded.KeyEvent); ok && event != "cpu-clock" && !strings.HasPrefix(event, "cpu-clock:") {
			return Rule{Min: DefaultMin}
		}
		if cmdline, ok := m.Get(folded.KeyCmdline); ok {
			p, ok := periodOf(cmdline)
			if !ok {
				return Rule{Min: DefaultMin}
			}
			period = max(period, p)
		}
	}
	if period == 0 {
		return Rule{Min: DefaultMin}
	}
	for i := range metas {
		m := &metas[i]
		first, last, ok := declaredSpan(m)
		n, err := strconv.ParseInt(get(m, folded.KeySamples), 10, 64)
		if !ok || err != nil || n < 2 || last-first < 10*period {
			continue
		}
		rate := float64(n-1) / float64(last-first) // per ns
		if rate*float64(period) < Density || read == nil {
			return Rule{Min: DefaultMin, Period: period}
		}
		if got, ok := read.rate(first, last); !ok || got < 0.9*rate {
			return Rule{Min: DefaultMin, Period: period}
		}
		dense++
	}
	if dense == 0 {
		return Rule{Min: DefaultMin, Period: period}
	}
	return Rule{Min: max(Periods*period, MinFloor), Samples: true, Period: period}
}

func get(m *folded.Meta, key string) string {
	v, _ := m.Get(key)
	return v
}

// declaredSpan returns the span a metadata line that names the sampled
// event declares (a capture's, not a slice's). A line whose first and last
// are equal declares no span unless it counts one sample: perf prints
// 0.000000 for both in --switch-output chunks.
func declaredSpan(m *folded.Meta) (first, last folded.Time, ok bool) {
	if _, named := m.Get(folded.KeyEvent); !named {
		return 0, 0, false
	}
	first, last, ok = m.Span()
	if ok && first == last && get(m, folded.KeySamples) != "1" {
		return 0, 0, false
	}
	return first, last, ok && last >= first
}

// Spans returns the spans (first to last sample) the captures' metadata
// lines declare.
func Spans(metas []folded.Meta) []Span {
	var out []Span
	for i := range metas {
		if first, last, ok := declaredSpan(&metas[i]); ok {
			out = append(out, Span{first, last})
		}
	}
	return out
}

// periodOf reads a perf record command line: whether it records every CPU
// (-a, --all-cpus, or -a among grouped flags) and at what period (-F HZ,
// --freq HZ, -c NS for cpu-clock; perf's default 4000 Hz).
func periodOf(cmdline string) (folded.Time, bool) {
	args := strings.Fields(cmdline)
	all := false
	period := second / 4000
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		val := func(short, long string) (string, bool) {
			switch {
			case a == short || a == long:
				if i+1 < len(args) {
					i++
					return args[i], true
				}
			case strings.HasPrefix(a, long+"="):
				return a[len(long)+1:], true
			case len(short) == 2 && strings.HasPrefix(a, short) && len(a) > 2:
				return a[2:], true
			}
			return "", false
		}
		if v, ok := val("-F", "--freq"); ok {
			hz, err := strconv.ParseUint(v, 10, 32)
			if err != nil || hz == 0 {
				return 0, false // max, or a rate we cannot read
			}
			period = second / folded.Time(hz)
			continue
		}
		if v, ok := val("-c", "--count"); ok {
			ns, err := strconv.ParseUint(v, 10, 63)
			if err != nil || ns == 0 {
				return 0, false
			}
			period = folded.Time(ns)
			continue
		}
		switch {
		case a == "-a" || a == "--all-cpus":
			all = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && groupedAll(a[1:]):
			all = true
		}
	}
	return period, all && period > 0
}

// groupedAll reports whether grouped short flags (-ag) hold -a before any
// flag that takes a value.
func groupedAll(flags string) bool {
	for _, c := range flags {
		switch {
		case c == 'a':
			return true
		case !strings.ContainsRune("gRisPdnNBTqvWbx", c):
			return false
		}
	}
	return false
}

// Describe says what the rule calls a gap, for a legend.
func (r Rule) Describe() string {
	if !r.Samples {
		return fmt.Sprintf("time between the inputs' samples of %s or more", formatDur(r.Min))
	}
	return fmt.Sprintf("no sample on any CPU for %s or more (system-wide cpu-clock at %s Hz), or between the inputs",
		formatDur(r.Min), strconv.FormatFloat(math.Round(float64(second)/float64(r.Period)*100)/100, 'f', -1, 64))
}

func formatDur(d folded.Time) string {
	if d >= second {
		return strconv.FormatFloat(float64(d)/float64(second), 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(float64(d/1e5)/10, 'f', -1, 64) + " ms"
}

// Between returns the time no span covers, between the earliest start and
// the latest end of the spans, in stretches of min or more.
func Between(spans []Span, min folded.Time) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return cmpTime(a.From, b.From) })
	var out []Span
	for i := 1; i < len(s); i++ {
		end := s[i-1].To // by now, the latest end of the spans before s[i]
		if s[i].From-end >= min {
			out = append(out, Span{end, s[i].From})
		}
		s[i].To = max(s[i].To, end)
	}
	return out
}

func cmpTime(a, b folded.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Merge sorts spans and joins those that overlap or touch.
func Merge(spans []Span) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return cmpTime(a.From, b.From) })
	var out []Span
	for _, x := range s {
		if x.To <= x.From {
			continue
		}
		if n := len(out); n > 0 && x.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, x.To)
			continue
		}
		out = append(out, x)
	}
	return out
}

// Covered returns how much of [from, to) the sorted, disjoint spans cover.
func Covered(spans []Span, from, to folded.Time) folded.Time {
	i, _ := slices.BinarySearchFunc(spans, from, func(s Span, t folded.Time) int { return cmpTime(s.To, t+1) })
	var n folded.Time
	for ; i < len(spans) && spans[i].From < to; i++ {
		n += min(spans[i].To, to) - max(spans[i].From, from)
	}
	return max(n, 0)
}

// Contains reports whether the sorted, disjoint spans contain t.
func Contains(spans []Span, t folded.Time) bool {
	i, _ := slices.BinarySearchFunc(spans, t, func(s Span, t folded.Time) int { return cmpTime(s.To, t+1) })
	return i < len(spans) && spans[i].From <= t && t < spans[i].To
}

// Bin is the width of the bins a Finder marks.
const Bin = 10 * folded.Time(1e6)

const binsPerSecond = int(second / Bin) // 100: two words

// Finder notes which bins of 10 ms hold a sample, and how many samples
// each second holds.
type Finder struct {
	slot   map[int64]int32 // second -> index of its words and count
	words  []uint64
	count  []uint32
	cur    int32
	curSec int64
	span   folded.Span
}

// NewFinder returns an empty Finder.
func NewFinder() *Finder {
	return &Finder{slot: make(map[int64]int32), cur: -1}
}

// Add notes a sample at t.
func (f *Finder) Add(t folded.Time) {
	sec := int64(t / second)
	if t < 0 && t%second != 0 {
		sec--
	}
	if f.cur < 0 || sec != f.curSec {
		i, ok := f.slot[sec]
		if !ok {
			i = int32(len(f.count))
			f.slot[sec] = i
			f.words = append(f.words, 0, 0)
			f.count = append(f.count, 0)
		}
		f.cur, f.curSec = i, sec
	}
	b := int((t - folded.Time(sec)*second) / Bin)
	f.words[int(f.cur)*2+b/64] |= 1 << (b % 64)
	f.count[f.cur]++
	f.span.Add(t)
}

// rate returns the samples per ns read in the part of [first, last] that
// the samples read span (counted in the whole seconds it touches), and
// false when they do not span a second of it.
func (f *Finder) rate(first, last folded.Time) (float64, bool) {
	if !f.span.OK {
		return 0, false
	}
	lo, hi := max(first, f.span.First), min(last, f.span.Last)
	if hi-lo < second {
		return 0, false
	}
	var n int64
	a, b := int64(lo/second), int64(hi/second)
	for sec := a; sec <= b; sec++ {
		if i, ok := f.slot[sec]; ok {
			n += int64(f.count[i])
		}
	}
	// The seconds at either end may hold samples of the captures next to
	// this one: at most a second more at each end, which only errs on the
	// side of a rate too high.
	return float64(n) / float64(hi-lo), true
}

// Gaps returns the stretches of min or more between bins holding a sample
// (placed to the bins: from the end of the bin of the last sample before
// to the start of the bin of the first sample after), sorted.
func (f *Finder) Gaps(min folded.Time) []Span {
	secs := make([]int64, 0, len(f.slot))
	for s := range f.slot {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	var out []Span
	var prev int64 // global index of the last bin holding a sample
	seen := false
	for _, s := range secs {
		i := int(f.slot[s])
		for w := 0; w < 2; w++ {
			for x := f.words[i*2+w]; x != 0; x &= x - 1 {
				k := s*int64(binsPerSecond) + int64(w*64+bits.TrailingZeros64(x))
				// The samples are between (k-prev-1) and (k-prev+1) bins
				// apart; the gap is the k-prev-1 bins between them.
				if seen && k-prev > 1 && folded.Time(k-prev-1)*Bin >= min {
					out = append(out, Span{folded.Time(prev+1) * Bin, folded.Time(k) * Bin})
				}
				prev, seen = k, true
			}
		}
	}
	return out
}
