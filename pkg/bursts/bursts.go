// Package bursts finds the windows of a timed profile whose busy rate
// stands out from the rest of the capture: the few seconds a person
// would otherwise look for by eye on a night-long heat map.
//
// A [Series] counts the busy samples (or sums their weights: off-CPU
// time, periods) of every second after an origin, in bins of a tenth of a
// second. [Series.Find] then compares every second with the capture's
// typical second:
//
//   - the baseline is the median second of the capture's span (seconds
//     without a busy sample count as zero), and the scale the larger of
//     1.4826 times the median absolute deviation (the standard deviation,
//     for normal noise, that outliers do not inflate) and the counting
//     noise at the median rate (√median samples; in weight units
//     √(median × mean weight)), so that a mostly idle capture, whose MAD is
//     0, does not make every stray sample a burst;
//   - a second is hot when its robust z-score, (value − median) / scale,
//     is at least the threshold (5 by default), and warm at half that; a
//     burst is a run of warm seconds in a row that holds a hot one (the
//     hysteresis of edge detectors: a long burst that dips stays one,
//     two bursts with a quiet second between them stay two);
//   - a burst's edges are refined to the bins whose own z-score (against
//     the bin's larger noise, scale × √bins) is hot, then widened by one
//     bin either side, so that it starts and ends within 100 ms of the
//     busy samples it holds;
//   - a burst's score is the robust z-score of its mean rate over the
//     refined window; bursts come best first.
//
// What a burst is made of is named by a second look at its samples: a
// [Tally] sums the stacks of the chosen windows exactly, so that a caller
// keeps one pass's series in memory, never the samples themselves (the
// timeslice command reads the inputs that hold a burst again; a stream
// from the copy it kept of it).
//
// Memory is constant per second of the capture that holds a busy sample
// (bins × 12 bytes, plus a map entry), whatever the number of samples.
package bursts

import (
	"cmp"
	"math"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/gaps"
)

// Measure is what a second's value is.
type Measure uint8

// The measures.
const (
	// Auto is Weight when the busy samples' counts differ from line to
	// line (off-CPU time, periods of frequency-adapted events), else
	// Samples (cpu-clock's periods are all equal).
	Auto Measure = iota
	// Samples counts busy sample lines.
	Samples
	// Weight sums their counts.
	Weight
)

func (m Measure) String() string {
	switch m {
	case Samples:
		return "samples"
	case Weight:
		return "weight"
	}
	return "auto"
}

// DefaultBins is the number of bins per second: bursts are placed to
// 100 ms.
const DefaultBins = 10

const second = int64(1e9)

// Series holds the busy samples of a capture per bin.
type Series struct {
	origin folded.Time
	bins   int
	slot   map[int64]int32 // second -> index of its bins
	secs   []int64
	n      []uint32  // samples per bin
	w      []float64 // weight per bin
	// The span of the seconds covered (Add or Cover).
	lo, hi  int64
	covered bool
	cur     int32
	curSec  int64
	// Whether every busy sample had the same count (for Auto).
	count0  float64
	uniform bool
	samples int64
	weight  float64
}

// NewSeries returns an empty series whose seconds count from origin, the
// capture's first sample, with bins bins per second (DefaultBins when
// bins < 1).
func NewSeries(origin folded.Time, bins int) *Series {
	if bins < 1 {
		bins = DefaultBins
	}
	return &Series{origin: origin, bins: bins, slot: make(map[int64]int32), cur: -1, uniform: true}
}

// Origin returns the time second 0 starts at.
func (s *Series) Origin() folded.Time { return s.origin }

// Bins returns the number of bins per second.
func (s *Series) Bins() int { return s.bins }

func (s *Series) cell(t folded.Time) (sec int64, bin int) {
	r := int64(t - s.origin)
	sec = r / second
	if r%second != 0 && r < 0 {
		sec--
	}
	return sec, int((r - sec*second) * int64(s.bins) / second)
}

// Add adds a busy sample at time t with the given count (its weight).
func (s *Series) Add(t folded.Time, count float64) {
	sec, bin := s.cell(t)
	if s.cur < 0 || sec != s.curSec {
		s.cover(sec)
		i, ok := s.slot[sec]
		if !ok {
			i = int32(len(s.secs))
			s.slot[sec] = i
			s.secs = append(s.secs, sec)
			s.n = append(s.n, make([]uint32, s.bins)...)
			s.w = append(s.w, make([]float64, s.bins)...)
		}
		s.cur, s.curSec = i, sec
	}
	k := int(s.cur)*s.bins + bin
	if s.n[k] < math.MaxUint32 {
		s.n[k]++
	}
	s.w[k] += count
	if s.samples == 0 {
		s.count0 = count
	} else if count != s.count0 {
		s.uniform = false
	}
	s.samples++
	s.weight += count
}

// Cover widens the series to the second of t without adding a sample
// (an idle sample): seconds of the span without busy samples are quiet
// seconds of the baseline.
func (s *Series) Cover(t folded.Time) {
	sec, _ := s.cell(t)
	s.cover(sec)
}

func (s *Series) cover(sec int64) {
	if !s.covered {
		s.lo, s.hi, s.covered = sec, sec, true
		return
	}
	s.lo, s.hi = min(s.lo, sec), max(s.hi, sec)
}

// Samples returns the number of busy samples added, Weight their summed
// counts.
func (s *Series) Samples() int64 { return s.samples }

// Weight returns the summed counts of the busy samples.
func (s *Series) Weight() float64 { return s.weight }

// Resolve returns the measure Auto stands for in this series (or m
// itself).
func (s *Series) Resolve(m Measure) Measure {
	if m != Auto {
		return m
	}
	if s.uniform {
		return Samples
	}
	return Weight
}

// Options tune Find.
type Options struct {
	// Measure is what a second's value is (Auto by default).
	Measure Measure
	// Threshold is the robust z-score a second needs to be hot
	// (DefaultThreshold when 0).
	Threshold float64
	// Max is the number of bursts returned at most (DefaultMax when 0;
	// negative: all).
	Max int
	// Low is the robust z-score that extends a burst: a burst is a run
	// of seconds in a row at Low or more that holds a second at Threshold
	// or more (Threshold/2 when 0), so that a long burst whose seconds
	// dip below the threshold stays one, and two bursts with a quiet
	// second between them stay two.
	Low float64
	// Unrecorded are the parts of the capture's time that were not
	// recorded (see package gaps): a second less than half recorded is
	// left out (neither a quiet second of the baseline nor a hot one); a
	// second partly recorded, and a burst, are measured per second
	// recorded.
	Unrecorded []gaps.Span
}

// Defaults of Options.
const (
	DefaultThreshold = 5
	DefaultMax       = 10
)

// Burst is a window whose rate stands out.
type Burst struct {
	// From and To are the window on perf's clock, [From, To).
	From, To folded.Time
	// Score is the robust z-score of the window's rate:
	// (Rate − Result.Median) / Result.Scale.
	Score float64
	// Rate is the window's measure per second.
	Rate float64
	// Samples and Weight are the busy samples in the window and the sum
	// of their counts.
	Samples int64
	Weight  float64
	// Peak is the highest robust z-score of its seconds.
	Peak float64
}

// Ratio returns how many times the median second the burst's rate is
// (+Inf when the median is 0).
func (b *Burst) Ratio(median float64) float64 {
	if median <= 0 {
		return math.Inf(1)
	}
	return b.Rate / median
}

// Result is what Find found.
type Result struct {
	// Bursts, best first.
	Bursts []Burst
	// Measure is the measure used (Auto resolved).
	Measure Measure
	// Median and Scale are the baseline: the median second's value and
	// the scale of z-scores, per second.
	Median, Scale float64
	// MAD is the median absolute deviation of the seconds.
	MAD float64
	// Seconds is the number of seconds of the span recorded (Unrecorded
	// more were left out: less than half recorded); Hot how many of them
	// were hot (in bursts); Threshold the z-score a hot second reached.
	Seconds    int64
	Unrecorded int64
	Hot        int
	Threshold  float64
}

// value returns the measure of second index i (into secs) and of its
// bins.
func (s *Series) value(m Measure, i int) float64 {
	var v float64
	for b := 0; b < s.bins; b++ {
		v += s.binValue(m, i*s.bins+b)
	}
	return v
}

func (s *Series) binValue(m Measure, k int) float64 {
	if m == Weight {
		return s.w[k]
	}
	return float64(s.n[k])
}

// Find finds the bursts of the series.
func (s *Series) Find(o Options) Result {
	m := s.Resolve(o.Measure)
	res := Result{Measure: m, Threshold: o.Threshold}
	if res.Threshold <= 0 {
		res.Threshold = DefaultThreshold
	}
	if !s.covered {
		return res
	}
	rec := newRecorded(s.origin, o.Unrecorded)
	out := rec.mostlyUnrecorded(s.lo, s.hi)
	res.Unrecorded = int64(len(out))
	res.Seconds = s.hi - s.lo + 1 - res.Unrecorded
	vals := make([]float64, 0, len(s.secs))
	val := make([]float64, len(s.secs)) // per second recorded; -1: left out
	for i, sec := range s.secs {
		if out[sec] {
			val[i] = -1
			continue
		}
		val[i] = s.value(m, i) / rec.fraction(sec)
		vals = append(vals, val[i])
	}
	zeros := res.Seconds - int64(len(vals))
	res.Median = medianWith(slices.Clone(vals), zeros, 0)
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(v - res.Median)
	}
	res.MAD = medianWith(dev, zeros, math.Abs(res.Median))
	unit := 1.0
	if m == Weight && s.samples > 0 {
		unit = s.weight / float64(s.samples)
	}
	res.Scale = max(1.4826*res.MAD, math.Sqrt(max(res.Median, unit)*unit))
	if res.Scale <= 0 || math.IsNaN(res.Scale) {
		return res
	}
	z := func(v float64) float64 { return (v - res.Median) / res.Scale }

	// Runs of warm seconds in a row that hold a hot one, in time order.
	low := o.Low
	if low <= 0 {
		low = res.Threshold / 2
	}
	low = min(low, res.Threshold)
	order := make([]int, len(s.secs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(s.secs[a], s.secs[b]) })
	var bursts []Burst
	var run []int // indexes into secs of the current run
	hot := false
	flush := func() {
		if hot {
			bursts = append(bursts, s.burst(m, run, &res, z, val, rec))
		}
		run, hot = run[:0], false
	}
	for _, i := range order {
		if val[i] < 0 {
			flush()
			continue
		}
		zi := z(val[i])
		if zi < low {
			flush()
			continue
		}
		if len(run) > 0 && s.secs[i] != s.secs[run[len(run)-1]]+1 {
			flush()
		}
		run = append(run, i)
		if zi >= res.Threshold {
			res.Hot++
			hot = true
		}
	}
	flush()
	slices.SortStableFunc(bursts, func(a, b Burst) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.From, b.From)
	})
	limit := o.Max
	if limit == 0 {
		limit = DefaultMax
	}
	if limit > 0 && len(bursts) > limit {
		bursts = bursts[:limit]
	}
	res.Bursts = bursts
	return res
}

// burst builds the burst of a run of warm seconds: its edges refined to
// the hot bins of its first and last seconds (and of the seconds around
// them), widened by a bin, and its score.
func (s *Series) burst(m Measure, run []int, res *Result, z func(float64) float64, val []float64, rec recorded) Burst {
	bins := int64(s.bins)
	binZ := func(sec int64, b int) float64 {
		i, ok := s.slot[sec]
		if !ok {
			return math.Inf(-1)
		}
		v := s.binValue(m, int(i)*s.bins+b) * float64(s.bins)
		return (v - res.Median) / (res.Scale * math.Sqrt(float64(s.bins)))
	}
	hot := func(k int64) bool { // k: bin index from the origin
		sec := floorDiv(k, bins)
		return binZ(sec, int(k-sec*bins)) >= res.Threshold
	}
	first, last := s.secs[run[0]], s.secs[run[len(run)-1]]
	// Start: the first hot bin of the first second, moved back through
	// the hot bins just before it; the second's start when none is hot.
	start := first * bins
	for k := first * bins; k < (first+1)*bins; k++ {
		if hot(k) {
			start = k
			break
		}
	}
	for start > (first-1)*bins && hot(start-1) {
		start--
	}
	end := (last + 1) * bins // one past the last bin
	for k := (last+1)*bins - 1; k >= last*bins; k-- {
		if hot(k) {
			end = k + 1
			break
		}
	}
	for end < (last+2)*bins && hot(end) {
		end++
	}
	// One bin more either side, within the span.
	start = max(start-1, s.lo*bins)
	end = min(end+1, (s.hi+1)*bins)
	b := Burst{
		From: s.origin + folded.Time(floorDiv(start*second, bins)),
		To:   s.origin + folded.Time(floorDiv(end*second, bins)),
	}
	for k := start; k < end; k++ {
		sec := floorDiv(k, bins)
		if i, ok := s.slot[sec]; ok {
			j := int(i)*s.bins + int(k-sec*bins)
			b.Samples += int64(s.n[j])
			b.Weight += s.w[j]
		}
	}
	dur := rec.seconds(b.From, b.To)
	if dur <= 0 {
		dur = float64(end-start) / float64(bins)
	}
	v := float64(b.Samples)
	if m == Weight {
		v = b.Weight
	}
	b.Rate = v / dur
	b.Score = z(b.Rate)
	for _, i := range run {
		b.Peak = max(b.Peak, z(val[i]))
	}
	return b
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// medianWith returns the median of vals and extra more copies of x.
// vals is sorted in place.
func medianWith(vals []float64, extra int64, x float64) float64 {
	n := int64(len(vals)) + extra
	if n == 0 {
		return 0
	}
	slices.Sort(vals)
	i, _ := slices.BinarySearch(vals, x)
	pos := int64(i) // the copies of x go before vals[pos]
	kth := func(k int64) float64 {
		switch {
		case k < pos:
			return vals[k]
		case k < pos+extra:
			return x
		}
		return vals[k-extra]
	}
	if n%2 == 1 {
		return kth(n / 2)
	}
	return (kth(n/2-1) + kth(n/2)) / 2
}
