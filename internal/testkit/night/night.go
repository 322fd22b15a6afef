// Package night makes night-sized timed folded input for tests and
// benchmarks from a real 30-second capture, collapsed: the capture is
// repeated end to end, 30 s after 30 s, for a night, and the 2-second
// burst it holds is kept in one copy only (the planted burst); in every
// other copy the burst's samples are replaced by what the CPUs would have
// done without it. Two captures (see testdata/perf/README.md):
//
//   - [Idle], testdata/perf/burst.txt.gz: a mostly idle 2-CPU machine with
//     a burst of flamekit_burst; elsewhere its samples become idle
//     samples (the most common idle stack) of the same times;
//   - [Saturated], testdata/perf/saturated.folded.gz: both CPUs kept busy by
//     trainer, with a burst of kubelet_burst that takes three quarters of
//     them from it; elsewhere its samples become the samples the capture
//     took 3 s earlier (the trainer's), so the busy rate never moves.
//
// [Generate] writes the night as the recorder writes it
// (scripts/perf-timetravel --convert): one gzipped timed folded file per
// window, or one stream. [Each] hands the same samples to a function
// without writing them, for tests that need the samples, not files.
//
// A 12-hour night of the idle capture is 4.6 million samples, 770 MB of
// folded text, about 45 MB gzipped; generating its files takes some
// seconds, so tests make them once, in a temporary directory, and never
// commit them.
package night

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/pgzip"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
)

// BurstComm is the process of the idle capture's burst.
const BurstComm = "flamekit_burst"

// Source is a real capture a night is made of.
type Source struct {
	// File is its name under testdata/perf: perf script text, or timed
	// folded stacks (.folded.gz) when committed collapsed.
	File string
	// BurstComm is the process of its burst (the root frame of its
	// stacks).
	BurstComm string
	// Busy says what the burst's samples become in the copies without
	// it: false, idle samples; true, the samples the capture took
	// FillShift earlier (the CPUs were busy anyway).
	Busy bool
}

// FillShift is how much earlier the samples that replace a busy capture's
// burst were taken: more than the burst lasts, so that none is the
// burst's.
const FillShift = 3 * time.Second

// The captures.
var (
	// Idle is 30 s of a mostly idle 2-CPU machine with a 2-second burst
	// of flamekit_burst on both CPUs 13.8 s in.
	Idle = &Source{File: "burst.txt.gz", BurstComm: BurstComm}
	// Saturated is 30 s of a 2-CPU machine kept busy by trainer, with a
	// 2-second burst of kubelet_burst (both CPUs, nice -5) about 14 s in:
	// the busy rate does not move, the composition does.
	Saturated = &Source{File: "saturated.folded.gz", BurstComm: "kubelet_burst", Busy: true}
)

// Sample is one timed sample of the capture.
type Sample struct {
	Stack []byte
	Count float64
	Time  folded.Time
}

// Path returns the path of the capture in this checkout.
func (c *Source) Path() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("night: cannot find the source directory")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "perf", c.File)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("night: the real capture: %w", err)
	}
	return p, nil
}

var collapsed struct {
	sync.Mutex
	m map[string]*collapsedCapture
}

type collapsedCapture struct {
	samples []Sample
	meta    folded.Meta
	err     error
}

// Samples returns the samples of the capture, in time order, and the
// metadata stackcollapse wrote for it. It collapses the capture once per
// process; callers share the result and must not modify it.
func (c *Source) Samples() ([]Sample, folded.Meta, error) {
	collapsed.Lock()
	defer collapsed.Unlock()
	if cc, ok := collapsed.m[c.File]; ok {
		return cc.samples, cc.meta, cc.err
	}
	cc := &collapsedCapture{}
	cc.samples, cc.meta, cc.err = c.collapse()
	if collapsed.m == nil {
		collapsed.m = make(map[string]*collapsedCapture)
	}
	collapsed.m[c.File] = cc
	return cc.samples, cc.meta, cc.err
}

func (c *Source) collapse() ([]Sample, folded.Meta, error) {
	path, err := c.Path()
	if err != nil {
		return nil, folded.Meta{}, err
	}
	var out bytes.Buffer
	if strings.HasSuffix(c.File, ".folded.gz") {
		f, err := decompress.Open(path)
		if err != nil {
			return nil, folded.Meta{}, err
		}
		_, err = io.Copy(&out, f)
		f.Close()
		if err != nil {
			return nil, folded.Meta{}, fmt.Errorf("night: %s: %w", path, err)
		}
	} else {
		f, err := testcapture.FoldFile(path, c.File, collapse.Options{}, nil)
		if err != nil {
			return nil, folded.Meta{}, err
		}
		out.Write(f.Text)
	}
	rd := folded.NewReader(&out, path)
	var samples []Sample
	for rd.Next() {
		r := rd.Record()
		if r.Kind != folded.Timed {
			continue
		}
		samples = append(samples, Sample{bytes.Clone(r.Stack), r.Count, r.Time})
	}
	if err := rd.Err(); err != nil {
		return nil, folded.Meta{}, err
	}
	var meta folded.Meta
	if ms := rd.Meta(); len(ms) > 0 {
		meta = ms[0]
	}
	if len(samples) == 0 {
		return nil, meta, errors.New("night: the capture has no timed samples")
	}
	slices.SortStableFunc(samples, func(a, b Sample) int { return cmp.Compare(a.Time, b.Time) })
	return samples, meta, nil
}

// Options shape a night.
type Options struct {
	// Capture is the capture repeated (Idle when nil).
	Capture *Source
	// Dir is where the files are written.
	Dir string
	// Length of the night (default 12 h).
	Length time.Duration
	// Window is the length of one file (default 2 min); Single writes
	// one file, night.folded.gz, instead.
	Window time.Duration
	Single bool
	// BurstAt is about when the planted burst starts, after the first
	// sample: the copy that keeps its burst is the one whose burst starts
	// nearest (default 7h13m17.4s, or 60% of a shorter night).
	BurstAt time.Duration
	// NoBurst keeps the burst in no copy: a night with nothing planted.
	NoBurst bool
	// Plain writes uncompressed .folded files.
	Plain bool
	// from and to restrict the samples handed on to [from, to) (EachIn).
	from, to folded.Time
}

// Night describes what Generate wrote.
type Night struct {
	Files       []string
	First, Last folded.Time // the first and last sample
	// BurstComm is the process of the planted burst.
	BurstComm string
	// BurstFrom and BurstTo are the times of the first and last sample of
	// the planted burst (BurstTo included); BurstSamples its samples (0,
	// and the times 0, with NoBurst).
	BurstFrom, BurstTo folded.Time
	BurstSamples       int
	Samples            int64
	Bytes              int64 // uncompressed folded text written
}

// Wall is the wall-clock time of the night's first sample; the files'
// "captured-on" metadata (perf's estimate of the last sample's time) are
// derived from it.
var Wall = time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)

// Generate writes a night into o.Dir.
func Generate(o Options) (*Night, error) {
	o.defaults()
	_, meta, err := o.capture().Samples()
	if err != nil {
		return nil, err
	}
	var n *Night
	w := &writer{o: o, meta: meta}
	defer w.close()
	var line []byte
	n, err = each(o, func(nn *Night) { w.n = nn }, func(stack []byte, count float64, t folded.Time) error {
		return w.write(&line, stack, count, t)
	})
	if err != nil {
		return nil, err
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	return n, nil
}

// Each calls fn with every sample of the night o describes (o.Dir, Window,
// Single and Plain aside), in time order, and writes nothing: the night of
// Generate without its files. The stacks are shared: fn must not keep or
// modify them.
func Each(o Options, fn func(stack []byte, count float64, t folded.Time) error) (*Night, error) {
	return each(o, nil, fn)
}

// EachIn is Each for the samples in [from, to) only, reached without
// going through the copies of the capture before them.
func EachIn(o Options, from, to folded.Time, fn func(stack []byte, count float64, t folded.Time) error) (*Night, error) {
	o.from, o.to = from, to
	return each(o, nil, fn)
}

// defaults fills in the defaults of the options left zero.
func (o *Options) defaults() {
	if o.Length <= 0 {
		o.Length = 12 * time.Hour
	}
	if o.Window <= 0 {
		o.Window = 2 * time.Minute
	}
	if o.BurstAt <= 0 {
		o.BurstAt = 7*time.Hour + 13*time.Minute + 17400*time.Millisecond
		if o.BurstAt > o.Length*9/10 {
			o.BurstAt = o.Length*6/10 + 400*time.Millisecond
		}
	}
}

func (o *Options) capture() *Source {
	if o.Capture == nil {
		return Idle
	}
	return o.Capture
}

// each makes the night: start is called with the Night before the first
// sample, fn with every sample.
func each(o Options, start func(*Night), fn func(stack []byte, count float64, t folded.Time) error) (*Night, error) {
	o.defaults()
	c := o.capture()
	samples, _, err := c.Samples()
	if err != nil {
		return nil, err
	}
	fill, nb, err := c.fill(samples)
	if err != nil {
		return nil, err
	}
	first := samples[0].Time
	period := folded.Time((int64(samples[len(samples)-1].Time-first) + 1e9) / 1e9 * 1e9)
	end := first + folded.Time(o.Length)
	burstFrom, burstTo := samples[nb[0]].Time, samples[nb[len(nb)-1]].Time
	// The copy that keeps its burst: the one whose burst starts nearest
	// BurstAt, among those that hold all of it.
	copies := int64(o.Length) / int64(period)
	if int64(o.Length)%int64(period) > int64(burstTo-first) {
		copies++
	}
	planted := int64(-1)
	if !o.NoBurst {
		if copies == 0 {
			return nil, fmt.Errorf("night: a night of %v holds no whole copy of the capture's burst", o.Length)
		}
		want := float64(first+folded.Time(o.BurstAt)-burstFrom) / float64(period)
		planted = min(max(int64(want+0.5), 0), copies-1)
	}
	n := &Night{First: first, BurstComm: c.BurstComm}
	if planted >= 0 {
		shift := folded.Time(planted) * period
		n.BurstFrom, n.BurstTo, n.BurstSamples = burstFrom+shift, burstTo+shift, len(nb)
	}
	if start != nil {
		start(n)
	}
	k0 := int64(0)
	if o.to > o.from {
		end = min(end, o.to)
		k0 = max(int64(o.from-samples[len(samples)-1].Time)/int64(period), 0)
	}
	for k := k0; first+folded.Time(k)*period < end; k++ {
		shift := folded.Time(k) * period
		for i := range samples {
			s := &samples[i]
			t := s.Time + shift
			if t >= end {
				break
			}
			if t < o.from {
				continue
			}
			stack := s.Stack
			if k != planted && fill[i] != nil {
				stack = fill[i]
			}
			if err := fn(stack, s.Count, t); err != nil {
				return nil, err
			}
			n.Samples++
			n.Last = t
		}
	}
	return n, nil
}

// fill returns, for every sample of the burst, the stack it becomes in the
// copies without the burst (nil for the other samples), and the indexes of
// the burst's samples.
func (c *Source) fill(samples []Sample) ([][]byte, []int, error) {
	fill := make([][]byte, len(samples))
	var burst []int
	for i, s := range samples {
		root, _, _ := bytes.Cut(s.Stack, []byte{';'})
		if string(root) == c.BurstComm {
			burst = append(burst, i)
		}
	}
	if len(burst) == 0 {
		return nil, nil, fmt.Errorf("night: the capture %s has no sample of %s", c.File, c.BurstComm)
	}
	if !c.Busy {
		// The most common idle stack.
		var idleStack []byte
		counts := map[string]int{}
		for _, s := range samples {
			if idle.Is(s.Stack) {
				counts[string(s.Stack)]++
				if idleStack == nil || counts[string(s.Stack)] > counts[string(idleStack)] {
					idleStack = s.Stack
				}
			}
		}
		if idleStack == nil {
			return nil, nil, fmt.Errorf("night: the capture %s has no idle sample", c.File)
		}
		for _, i := range burst {
			fill[i] = idleStack
		}
		return fill, burst, nil
	}
	// The sample FillShift earlier that is not the burst's, nearest in
	// time (or later, when the capture starts less than that before).
	isBurst := make([]bool, len(samples))
	for _, i := range burst {
		isBurst[i] = true
	}
	for _, i := range burst {
		t := samples[i].Time - folded.Time(FillShift)
		if t < samples[0].Time {
			t = samples[i].Time + folded.Time(FillShift)
		}
		j, _ := slices.BinarySearchFunc(samples, t, func(s Sample, t folded.Time) int { return cmp.Compare(s.Time, t) })
		best := -1
		for lo, hi := j-1, j; (lo >= 0 || hi < len(samples)) && best < 0; lo, hi = lo-1, hi+1 {
			dlo, dhi := folded.Time(-1), folded.Time(-1)
			if lo >= 0 && !isBurst[lo] {
				dlo = t - samples[lo].Time
			}
			if hi < len(samples) && !isBurst[hi] {
				dhi = samples[hi].Time - t
			}
			switch {
			case dlo >= 0 && (dhi < 0 || dlo <= dhi):
				best = lo
			case dhi >= 0:
				best = hi
			}
		}
		if best < 0 {
			return nil, nil, fmt.Errorf("night: the capture %s is all burst", c.File)
		}
		fill[i] = samples[best].Stack
	}
	return fill, burst, nil
}

// writer writes the samples into window files.
type writer struct {
	o        Options
	n        *Night
	meta     folded.Meta
	f        *os.File
	zw       *pgzip.Writer
	out      io.Writer
	buf      []byte // the samples of the current file
	name     string
	head     folded.Meta // the first metadata line
	headDone bool
	winEnd   folded.Time
	first    folded.Time
	last     folded.Time
	samples  int64
}

func (w *writer) write(line *[]byte, stack []byte, count float64, t folded.Time) error {
	if w.f == nil || !w.o.Single && t >= w.winEnd {
		if err := w.close(); err != nil {
			return err
		}
		if err := w.open(t); err != nil {
			return err
		}
	}
	rec := folded.Record{Stack: stack, Count: count, Time: t, Kind: folded.Timed}
	*line = folded.AppendRecord((*line)[:0], &rec)
	w.buf = append(w.buf, *line...)
	if w.o.Single && len(w.buf) >= 1<<20 {
		// One stream: its span is not known before its end, and it is
		// too long to hold; the first line declares its start only.
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.samples == 0 {
		w.first = t
	}
	w.last = t
	w.samples++
	w.n.Bytes += int64(len(*line))
	return nil
}

func (w *writer) open(t folded.Time) error {
	win := folded.Time(w.o.Window)
	idx := (t - w.n.First) / win
	start := w.n.First + idx*win
	w.winEnd = start + win
	wall := Wall.Add(time.Duration(start - w.n.First))
	name := fmt.Sprintf("perf-vm-%s-%ds.folded", wall.Format("20060102-150405"), int(w.o.Window/time.Second))
	if w.o.Single {
		name = "night.folded"
	}
	if !w.o.Plain {
		name += ".gz"
	}
	path := filepath.Join(w.o.Dir, name)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w.f, w.out = f, f
	if !w.o.Plain {
		w.zw, _ = pgzip.NewWriterLevel(f, pgzip.BestSpeed)
		w.zw.SetConcurrency(512<<10, 4)
		w.out = w.zw
	}
	w.n.Files = append(w.n.Files, path)
	w.samples = 0
	w.head, w.headDone = folded.Meta{}, false
	w.name = name
	w.buf = w.buf[:0]
	return nil
}

// flush writes the head metadata line, when it has not been written
// yet, and the samples held.
func (w *writer) flush() error {
	if !w.headDone {
		if w.head.Fields == nil {
			for _, fl := range w.meta.Fields {
				switch fl.Key {
				case folded.KeyHost, folded.KeyOSRelease, folded.KeyPerfVersion, folded.KeyEvent:
					w.head.Set(fl.Key, fl.Value)
				}
			}
			w.head.Set(folded.KeyFirst, w.first.String())
			w.head.Set(folded.KeySource, w.name)
		}
		if _, err := w.out.Write(folded.AppendMeta(nil, &w.head)); err != nil {
			return err
		}
		w.headDone = true
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// close writes the current file, its samples between the two metadata
// lines stackcollapse writes: first the capture's facts, with perf's
// "captured on" (the wall time of the last sample, to the second, as perf
// prints it) and the span; last the span and the sample count.
func (w *writer) close() error {
	if w.f == nil {
		return nil
	}
	var head, tail folded.Meta
	for _, fl := range w.meta.Fields {
		switch fl.Key {
		case folded.KeyHost, folded.KeyOSRelease, folded.KeyPerfVersion, folded.KeyEvent:
			head.Set(fl.Key, fl.Value)
		}
	}
	wall := Wall.Add(time.Duration(w.last - w.n.First)).In(time.Local)
	head.Set(folded.KeyCapturedOn, wall.Format("Mon Jan _2 15:04:05 2006"))
	for _, m := range []*folded.Meta{&head, &tail} {
		m.Set(folded.KeyFirst, w.first.String())
		m.Set(folded.KeyLast, w.last.String())
	}
	head.Set(folded.KeySource, w.name)
	tail.Set(folded.KeySamples, fmt.Sprint(w.samples))
	tail.Set(folded.KeySource, w.name)
	var err error
	if !w.headDone {
		w.head = head
		err = w.flush()
	} else {
		_, err = w.out.Write(w.buf)
	}
	if err == nil {
		_, err = w.out.Write(folded.AppendMeta(nil, &tail))
	}
	w.buf = w.buf[:0]
	w.headDone = false
	if w.zw != nil {
		err = errors.Join(err, w.zw.Close())
		w.zw = nil
	}
	err = errors.Join(err, w.f.Close())
	w.f = nil
	return err
}
