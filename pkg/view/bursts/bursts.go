// Package bursts finds the windows of a timed profile whose busy rate, or
// where one process's, thread's or function's share, stands out from the
// rest of the capture: the few seconds a person would otherwise look for
// by eye on a night-long heat map. Both kinds come on one list, ranked by
// their z-scores; a window that stands out both ways is one burst.
//
// # Rate
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
// [Tally] sums the stacks of the chosen windows exactly, read from a
// timeline that keeps stacks ([TallyOf]: the explorer page's) or from a
// second reading of the
// windows (the timeslice command reads the inputs that hold a burst
// again; a stream from the copy it kept of it), so that a caller never
// keeps the samples themselves.
//
// A Series is a timeline (package timeline) of 100 ms cells keyed by the
// samples' processes: memory is one entry (32 bytes) per cell and process
// with busy samples, whatever the number of samples; a search lays it out
// per second (timeline.Counts, bins × 12 bytes per second that holds a
// busy sample) and per second and process.
//
// # Share: a burst on a busy host
//
// On a host whose CPUs are all busy, a process that spikes takes CPU from
// the others and the busy rate does not move; on a host whose mix of
// processes changes all the time, every second's mix is far from the
// average one. What stands out is one key whose share of the busy samples
// is far above its own typical share: a process (the stack's root frame),
// a thread (tid=) or a function (inclusive: a frame anywhere below the
// root, counted once per stack however often it recurs). Find scores
// every key in every window of 0.5, 1, 2 and 5 s (stepping by half a
// window), from the series' timeline in two passes over its entries:
//
//   - a key's baseline at a window length is read from the windows that
//     tile the capture, less the key's heaviest windows (6 s of them,
//     plus one: a burst does not inflate its own baseline): its typical
//     share p (the key's measure over the measure of those windows; half
//     a sample at least, so that a key never seen has a small share, not
//     none), and its dispersion φ, Pearson's statistic of its counts
//     against the binomial ones (Σ(x − np)² / Σ np(1−p), at least 1): a
//     key that comes and goes (a compressor run every minute) varies far
//     more than the binomial, and its usual swings are no burst;
//   - a window of n samples in which the key has the share q > p scores
//     the signed root of its binomial likelihood ratio, shrunk by the
//     dispersion: z = √(2 n KL(q‖p) / φ), KL the Kullback–Leibler
//     divergence of the shares (about (q−p)/√(p(1−p)/n) for small
//     differences; a new key with many samples scores high);
//   - the false alarms of testing every key in every window are
//     controlled by a Bonferroni correction: z is turned into its normal
//     tail probability, multiplied by the number of tests (keys × windows,
//     KeyBaseline.Tests) and turned back into a z-score, the score
//     compared with the threshold;
//   - a window where the key has fewer than MinExcess samples beyond its
//     typical share is not scored (a few samples of an idle host);
//   - a key's windows at half the threshold that overlap make a run, a
//     run holding a window at the threshold is a burst; runs of different
//     keys that overlap are one burst (a new process's functions rise with
//     it), which names its best keys (Burst.Rises), a process or thread
//     first when it scores nearly as well as the best; its edges are the
//     100 ms bins where the leading key's share is at least half-way from
//     its typical share to its share of the run, one bin more either side.
//   - with Weight as the measure, shares are shares of the weight
//     (off-CPU time), and counts are in samples of the mean weight.
//
// Samples added with Add (no stack) count for the rate only.
//
// The search's memory is the series' timeline (one entry per 100 ms bin,
// stack and thread with busy samples) and, per window length, a few sums
// per key. A series of processes ([NewProcessSeries]: the heat map's
// marks) keeps no stacks, and its shares are processes' and threads'.
package bursts

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/timeline/gaps"
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

// ParseMeasure reads a Measure as String writes it ("auto", "samples",
// "weight"; "" is Auto).
func ParseMeasure(s string) (Measure, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "samples":
		return Samples, nil
	case "weight":
		return Weight, nil
	}
	return Auto, fmt.Errorf("measure %q: want auto, samples or weight", s)
}

// DefaultBins is the number of bins per second: bursts are placed to
// 100 ms.
const DefaultBins = 10

const second = int64(1e9)

// Series holds the busy samples of a capture: a timeline (package
// timeline) of Bins cells per second, keyed by the samples' processes,
// read per second and bin when bursts are searched.
type Series struct {
	origin folded.Time
	bins   int
	b      *timeline.Builder
	// c is the timeline laid out per second and bin, read from the
	// timeline when a search needs it (read); full is the timeline, of
	// which keep accepts the busy entries (nil: all).
	c    *timeline.Counts
	full *timeline.Timeline
	keep func(*timeline.Entry) bool
	// Whether every busy sample had the same count (for Auto).
	count0  float64
	uniform bool
	samples int64
	weight  float64
	// rec is the time recorded, set by Find (Options.Unrecorded).
	rec recorded
	err error
}

// NewSeries returns an empty series whose seconds count from origin, the
// capture's first sample, with bins bins per second (DefaultBins when
// bins < 1, at most timeline.MaxRows; an even number for share bursts).
// It keeps the stacks and threads of the samples: one timeline entry per
// bin, stack and thread.
func NewSeries(origin folded.Time, bins int) *Series {
	return newSeries(origin, bins, timeline.MergeCPUs)
}

// NewProcessSeries returns an empty series as NewSeries does, that keeps
// the samples' processes (their stacks' root frames) and threads rather
// than their stacks: its share bursts are processes' and threads' only
// (no function keys, so fewer tests to correct for), and its Tally names
// processes. Memory is one timeline entry per bin, process and thread. A
// heat map's marks need no more, and folding their stacks would cost
// about as much as reading the capture.
func NewProcessSeries(origin folded.Time, bins int) *Series {
	return newSeries(origin, bins, timeline.MergeCPUs|timeline.MergeFrames)
}

func newSeries(origin folded.Time, bins int, merge timeline.Merge) *Series {
	if bins < 1 {
		bins = DefaultBins
	}
	bins = min(bins, timeline.MaxRows)
	b := timeline.NewBuilder(timeline.Options{Rows: bins, Origin: origin, HasOrigin: true, Merge: merge})
	return &Series{origin: origin, bins: bins, b: b, uniform: true}
}

// SeriesOf returns the series of a timeline's samples that keep accepts
// (nil: all; a timeline that holds idle samples leaves them out so, and
// they count as covered): the bursts of a timeline built anyway (the
// explorer page's) without a second model beside it: its rate is read
// from the timeline with every key merged and its cells widened to bins
// of 100 ms (timeline.MergeKeys, Coarsen), its shares from the timeline
// itself. A series made so holds what the timeline
// did: adding to it is an error (Err). ok is false when the timeline's
// cells do not make bins of 100 ms (its cells per second are not a
// multiple of DefaultBins, or a cell is a second or more): the caller
// feeds a series instead, whose bursts are placed to 100 ms. Whether every
// sample had the same count (Auto) is read from the entries: an entry of
// n samples whose weight is not n times the first sample's count says
// they did not.
func SeriesOf(tl *timeline.Timeline, keep func(*timeline.Entry) bool) (s *Series, ok bool) {
	if tl.Seconds > 1 || tl.Rows%DefaultBins != 0 {
		return nil, false
	}
	bins := DefaultBins
	s = &Series{origin: tl.Origin, bins: bins, uniform: true}
	for i := range tl.Entries {
		e := &tl.Entries[i]
		if e.Samples == 0 || keep != nil && !keep(e) {
			continue
		}
		w := tl.WeightOf(i)
		if s.samples == 0 {
			s.count0 = w / float64(e.Samples)
		}
		if w != s.count0*float64(e.Samples) {
			s.uniform = false
		}
		s.samples += int64(e.Samples)
		s.weight += w
	}
	s.c = tl.MergeKeys(timeline.MergeAll, keep).Coarsen(tl.Rows / bins).Counts(nil)
	s.full, s.keep = tl, keep
	return s, true
}

// Origin returns the time second 0 starts at.
func (s *Series) Origin() folded.Time { return s.origin }

// Bins returns the number of bins per second.
func (s *Series) Bins() int { return s.bins }

// read lays the series' timeline out (once after each change).
func (s *Series) read() {
	if s.c != nil {
		return
	}
	s.full = s.b.Snapshot()
	s.c = s.full.Counts(nil)
}

// Add adds a busy sample at time t with the given count (its weight).
func (s *Series) Add(t folded.Time, count float64) { s.add(t, count, nil) }

// AddStack adds a busy sample at time t with the given count (its
// weight), as Add does, with its stack, so that Find also finds the
// windows where its process's or a function's share stands out.
func (s *Series) AddStack(t folded.Time, count float64, stack []byte) {
	if stack == nil {
		stack = []byte{}
	}
	s.add(t, count, stack)
}

// AddRecord adds a busy timed sample with its stack and thread (tid=), so
// that Find also finds the windows where its process's, thread's or a
// function's share stands out.
func (s *Series) AddRecord(rec *folded.Record) {
	s.addWith(rec.Time, rec.Count, func() error { return s.b.Add(rec) })
}

func (s *Series) add(t folded.Time, count float64, stack []byte) {
	s.addWith(t, count, func() error { return s.b.AddAt(t, count, stack) })
}

func (s *Series) addWith(t folded.Time, count float64, add func() error) {
	if s.b == nil {
		s.err = errDerived
		return
	}
	s.c = nil
	if err := add(); err != nil {
		s.err = err
		return
	}
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
	if s.b == nil {
		s.err = errDerived
		return
	}
	s.c = nil
	if err := s.b.Cover(t); err != nil {
		s.err = err
	}
}

var errDerived = errors.New("bursts: a series made of a timeline (SeriesOf) takes no more samples")

// Err returns the error of a time too far from the origin (see
// timeline.ErrSpan: years), after which nothing more is added.
func (s *Series) Err() error { return s.err }

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
	// left out of the rate baseline (neither a quiet second nor a hot
	// one); a second partly recorded, and a burst, are measured per
	// second recorded.
	Unrecorded []gaps.Span
}

// Defaults of Options.
const (
	DefaultThreshold = 5
	DefaultMax       = 10
)

// Kind says how a burst stands out.
type Kind uint8

// The kinds, bits of a Kind: a window can stand out both ways.
const (
	// Rate: its busy rate is far above the capture's median second.
	Rate Kind = 1 << iota
	// KeyShare: a process's, thread's or function's share of its busy
	// samples is far above the key's typical share, whatever the rate.
	KeyShare
)

func (k Kind) String() string {
	switch k {
	case Rate:
		return "rate"
	case KeyShare:
		return "share"
	case Rate | KeyShare:
		return "rate+share"
	}
	return "none"
}

// MarshalText names the kind in JSON ("rate", "share", "rate+share").
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Burst is a window whose rate or a key's share stands out: plain data,
// for the command line and the explorer page alike.
type Burst struct {
	// From and To are the window on perf's clock, [From, To).
	From, To folded.Time
	// Kind says how it stands out.
	Kind Kind
	// Score ranks the bursts: the larger of RateScore (when Kind holds
	// Rate) and ShareScore (when Kind holds KeyShare).
	Score float64
	// RateScore is the robust z-score of the window's rate:
	// (Rate − Result.Median) / Result.Scale.
	RateScore float64
	// Rate is the window's measure per second.
	Rate float64
	// Samples and Weight are the busy samples in the window and the sum
	// of their counts.
	Samples int64
	Weight  float64
	// Peak is the highest z-score of its seconds by rate, or of its
	// windows by share.
	Peak float64
	// ShareScore is the best corrected z-score of a key's share in the
	// window (KeyShare bursts), and Rises the keys that rose, best first
	// (at most 5): Rises[0] is what the burst is named by.
	ShareScore float64
	Rises      []Rise
	// Command is the command that slices the window (set by the caller
	// that knows the inputs: package timeslice).
	Command string
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
	// were hot by rate (in bursts); Threshold the z-score a hot second
	// reached.
	Seconds    int64
	Unrecorded int64
	Hot        int
	Threshold  float64
	// Keys says how the shares were scored (zero when no sample was
	// added with its stack).
	Keys KeyBaseline
}

// value returns the measure of second index i (into secs) and of its
// bins.
func (s *Series) value(m Measure, i int) float64 {
	var v float64
	for b := 0; b < s.c.Bins(); b++ {
		v += s.binValue(m, i*s.c.Bins()+b)
	}
	return v
}

func (s *Series) binValue(m Measure, k int) float64 {
	if m == Weight {
		return s.c.W()[k]
	}
	return float64(s.c.N()[k])
}

// Find finds the bursts of the series: windows whose rate stands out, and
// (for samples added with their stacks) windows where a key's share does,
// on one list; windows of both kinds that overlap are one burst.
func (s *Series) Find(o Options) Result {
	m := s.Resolve(o.Measure)
	res := Result{Measure: m, Threshold: o.Threshold}
	if res.Threshold <= 0 {
		res.Threshold = DefaultThreshold
	}
	s.read()
	if !s.c.Covered() {
		return res
	}
	low := o.Low
	if low <= 0 {
		low = res.Threshold / 2
	}
	low = min(low, res.Threshold)
	s.rec = newRecorded(s.origin, o.Unrecorded)
	bursts := s.rateBursts(m, &res, low)
	bursts = append(bursts, s.shareBursts(m, &res, low)...)
	bursts = merge(bursts)
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

// rateBursts sets the rate baseline of res and returns the bursts of rate,
// in time order.
func (s *Series) rateBursts(m Measure, res *Result, low float64) []Burst {
	out := s.rec.mostlyUnrecorded(s.c.Lo(), s.c.Hi())
	res.Unrecorded = int64(len(out))
	res.Seconds = s.c.Hi() - s.c.Lo() + 1 - res.Unrecorded
	vals := make([]float64, 0, len(s.c.Secs()))
	val := make([]float64, len(s.c.Secs())) // per second recorded; -1: left out
	for i, sec := range s.c.Secs() {
		if out[sec] {
			val[i] = -1
			continue
		}
		val[i] = s.value(m, i) / s.rec.fraction(sec)
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
	noise := max(1.4826*res.MAD, math.Sqrt(max(res.Median, unit)*unit))
	res.Scale = max(noise, tailScale(val, s.order(), res.Seconds, res.Median, noise))
	if res.Scale <= 0 || math.IsNaN(res.Scale) {
		return nil
	}
	z := func(v float64) float64 { return (v - res.Median) / res.Scale }

	// Runs of warm seconds in a row that hold a hot one, in time order.
	var bursts []Burst
	res.Hot += s.hotRuns(low, res.Threshold, func(i int) (float64, bool) { return z(val[i]), val[i] >= 0 },
		func(run []int) { bursts = append(bursts, s.burst(m, run, res, z, val, noise)) })
	return bursts
}

// tailRuns is how many separate runs of busy seconds a long capture's
// rate tail scale leaves above it: what a capture does that often (a
// night made of a capture repeated does its busiest second again and
// again) is typical, not a burst.
const tailRuns = 30

// tailScale returns the scale at which the tailRuns-th highest peak of
// the runs of seconds above median + 3 base (val in the time order of
// order, -1 for seconds left out) is as far from the median as the normal
// tail of tailRuns seconds of the n. It is 0 for a capture of fewer than
// 10 × tailRuns seconds, or fewer such runs.
func tailScale(val []float64, order []int, n int64, median, base float64) float64 {
	if n < 10*tailRuns {
		return 0
	}
	var peaks []float64
	in := false
	for _, i := range order {
		v := val[i]
		if v < 0 || v <= median+3*base {
			in = false
			continue
		}
		if !in {
			peaks = append(peaks, v)
			in = true
		}
		peaks[len(peaks)-1] = max(peaks[len(peaks)-1], v)
	}
	if len(peaks) < tailRuns {
		return 0
	}
	slices.Sort(peaks)
	v := peaks[len(peaks)-tailRuns]
	return max(v-median, 0) / zOfLogQ(math.Log(float64(tailRuns)/float64(n)))
}

// hotRuns calls found with each run of seconds in a row (indexes into
// secs, in time order) whose scores are low or more and that holds one
// at threshold or more, and returns how many seconds are at threshold or
// more. score gives a second's z-score, or false for a second not scored,
// which ends a run.
func (s *Series) hotRuns(low, threshold float64, score func(i int) (float64, bool), found func(run []int)) (hot int) {
	var run []int
	inHot := false
	flush := func() {
		if inHot {
			found(run)
		}
		run, inHot = run[:0], false
	}
	for _, i := range s.order() {
		zi, ok := score(i)
		if !ok || zi < low {
			flush()
			continue
		}
		if len(run) > 0 && s.c.Secs()[i] != s.c.Secs()[run[len(run)-1]]+1 {
			flush()
		}
		run = append(run, i)
		if zi >= threshold {
			hot++
			inHot = true
		}
	}
	flush()
	return hot
}

// order returns the indexes of secs in time order.
func (s *Series) order() []int {
	order := make([]int, len(s.c.Secs()))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(s.c.Secs()[a], s.c.Secs()[b]) })
	return order
}

// merge makes the bursts that overlap one: their union, of the kinds of
// all, its rate taken from the best of rate and its keys from the best of
// share. The result is in time order.
func merge(bursts []Burst) []Burst {
	slices.SortStableFunc(bursts, func(a, b Burst) int { return cmp.Compare(a.From, b.From) })
	var out []Burst
	for _, b := range bursts {
		if n := len(out); n > 0 && b.From < out[n-1].To {
			out[n-1] = union(out[n-1], b)
			continue
		}
		out = append(out, b)
	}
	return out
}

func union(a, b Burst) Burst {
	u := a
	if b.Kind&Rate != 0 && (a.Kind&Rate == 0 || b.RateScore > a.RateScore) {
		u.RateScore, u.Rate, u.Samples, u.Weight = b.RateScore, b.Rate, b.Samples, b.Weight
	}
	if b.Kind&KeyShare != 0 && (a.Kind&KeyShare == 0 || b.ShareScore > a.ShareScore) {
		u.ShareScore, u.Rises = b.ShareScore, b.Rises
	}
	u.From, u.To = min(a.From, b.From), max(a.To, b.To)
	u.Kind = a.Kind | b.Kind
	u.Peak = max(a.Peak, b.Peak)
	u.Score = max(a.Score, b.Score)
	return u
}

// burst builds the burst of a run of warm seconds: its edges refined to
// the hot bins of its first and last seconds (and of the seconds around
// them: a bin is hot at the threshold against the noise scale, without
// the tail's), widened by a bin, and its score.
func (s *Series) burst(m Measure, run []int, res *Result, z func(float64) float64, val []float64, noise float64) Burst {
	binZ := func(sec int64, b int) float64 {
		i, ok := s.c.Block(sec)
		if !ok {
			return math.Inf(-1)
		}
		v := s.binValue(m, int(i)*s.c.Bins()+b) * float64(s.c.Bins())
		return (v - res.Median) / (noise * math.Sqrt(float64(s.c.Bins())))
	}
	start, end := s.edges(s.c.Secs()[run[0]], s.c.Secs()[run[len(run)-1]], func(sec int64, b int) bool {
		return binZ(sec, b) >= res.Threshold
	})
	b := s.window(m, start, end)
	b.Kind = Rate
	b.RateScore = z(b.Rate)
	b.Score = b.RateScore
	for _, i := range run {
		b.Peak = max(b.Peak, z(val[i]))
	}
	return b
}

// edges places a burst whose seconds run from first to last: it starts at
// the first hot bin of the first second, moved back through the hot bins
// just before it (the second's start when none is hot), and ends after the
// last hot bin of the last second, moved on through the hot bins just after
// it; then one bin more either side, within the span. It returns the bins
// from the origin, [start, end).
func (s *Series) edges(first, last int64, hotBin func(sec int64, b int) bool) (start, end int64) {
	bins := int64(s.c.Bins())
	hot := func(k int64) bool { // k: bin index from the origin
		sec := floorDiv(k, bins)
		return hotBin(sec, int(k-sec*bins))
	}
	start = first * bins
	for k := first * bins; k < (first+1)*bins; k++ {
		if hot(k) {
			start = k
			break
		}
	}
	for start > (first-1)*bins && hot(start-1) {
		start--
	}
	end = (last + 1) * bins // one past the last bin
	for k := (last+1)*bins - 1; k >= last*bins; k-- {
		if hot(k) {
			end = k + 1
			break
		}
	}
	for end < (last+2)*bins && hot(end) {
		end++
	}
	return max(start-1, s.c.Lo()*bins), min(end+1, (s.c.Hi()+1)*bins)
}

// window returns the burst of bins [start, end) from the origin with its
// time, samples, weight and rate.
func (s *Series) window(m Measure, start, end int64) Burst {
	bins := int64(s.c.Bins())
	b := Burst{
		From: s.origin + folded.Time(floorDiv(start*second, bins)),
		To:   s.origin + folded.Time(floorDiv(end*second, bins)),
	}
	for k := start; k < end; k++ {
		sec := floorDiv(k, bins)
		if i, ok := s.c.Block(sec); ok {
			j := int(i)*s.c.Bins() + int(k-sec*bins)
			b.Samples += int64(s.c.N()[j])
			b.Weight += s.c.W()[j]
		}
	}
	dur := s.rec.seconds(b.From, b.To) // per second recorded
	if dur <= 0 {
		dur = float64(end-start) / float64(bins)
	}
	v := float64(b.Samples)
	if m == Weight {
		v = b.Weight
	}
	b.Rate = v / dur
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
