// Package night makes night-sized timed folded input for tests and
// benchmarks, from a real capture: testdata/perf/burst.txt.gz (30 s of a
// mostly idle 2-CPU machine, perf record -a -g -F 97, with a 2-second
// burst of a process called flamekit_burst) is collapsed, its burst is
// taken out (the burst's samples become idle samples of the same times,
// as the CPUs would have been idle), and the rest is repeated end to end,
// 30 s after 30 s, for a night; the burst's own samples are then planted
// once, at a chosen time, in place of the idle samples there. The night is
// written as the recorder writes it (scripts/perf-timetravel --convert):
// one gzipped timed folded file per window, or one stream.
//
// A 12-hour night is 4.6 million samples, 770 MB of folded text, about
// 45 MB gzipped; generating it takes some seconds, so tests make it once,
// in a temporary directory, and never commit it.
package night

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/klauspost/pgzip"

	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
	"flamekit/pkg/perfscript"
)

// BurstComm is the process of the planted burst.
const BurstComm = "flamekit_burst"

// Sample is one timed sample of the capture.
type Sample struct {
	Stack []byte
	Count float64
	Time  folded.Time
}

// CapturePath returns the path of the real capture in this checkout.
func CapturePath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("night: cannot find the source directory")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "perf", "burst.txt.gz")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("night: the real capture: %w", err)
	}
	return p, nil
}

// Capture returns the samples of the real capture, in time order, and the
// metadata stackcollapse wrote for it.
func Capture() ([]Sample, folded.Meta, error) {
	path, err := CapturePath()
	if err != nil {
		return nil, folded.Meta{}, err
	}
	var out bytes.Buffer
	c := perfscript.Collapser{}
	in := perfscript.Input{Name: path, Source: "burst.txt.gz", Open: func() (io.ReadCloser, error) { return folded.Open(path) }}
	if _, err := c.Run(&out, []perfscript.Input{in}); err != nil {
		return nil, folded.Meta{}, err
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
	return samples, meta, nil
}

// Options shape a night.
type Options struct {
	// Dir is where the files are written.
	Dir string
	// Length of the night (default 12 h).
	Length time.Duration
	// Window is the length of one file (default 2 min); Single writes
	// one file, night.folded.gz, instead.
	Window time.Duration
	Single bool
	// BurstAt is when the planted burst starts, after the first sample
	// (default 7h13m17.4s, or 60% of a shorter night).
	BurstAt time.Duration
	// Plain writes uncompressed .folded files.
	Plain bool
}

// Night describes what Generate wrote.
type Night struct {
	Files       []string
	First, Last folded.Time // the first and last sample
	// BurstFrom and BurstTo are the times of the first and last sample of
	// the planted burst (BurstTo included).
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
	samples, meta, err := Capture()
	if err != nil {
		return nil, err
	}
	// The background: the capture without its burst, whose samples become
	// idle samples (the most common idle stack) at the same times.
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
	var background, burst []Sample
	for _, s := range samples {
		if isBurst(s.Stack) {
			burst = append(burst, s)
			s.Stack = idleStack
		}
		background = append(background, s)
	}
	if len(burst) == 0 || idleStack == nil {
		return nil, errors.New("night: the capture has no burst or no idle samples")
	}
	first := samples[0].Time
	period := folded.Time((int64(samples[len(samples)-1].Time-first) + 1e9) / 1e9 * 1e9)
	n := &Night{First: first, BurstFrom: first + folded.Time(o.BurstAt)}
	shift := n.BurstFrom - burst[0].Time
	n.BurstTo = burst[len(burst)-1].Time + shift
	n.BurstSamples = len(burst)
	end := first + folded.Time(o.Length)

	w := &writer{o: o, n: n, meta: meta}
	defer w.close()
	bi := 0
	var line []byte
	for copyStart := folded.Time(0); first+copyStart < end; copyStart += period {
		for _, s := range background {
			t := s.Time + copyStart
			if t >= end {
				break
			}
			// The planted burst's samples go in time order among the
			// others; idle samples during it are dropped (its CPUs were
			// busy).
			for bi < len(burst) && burst[bi].Time+shift <= t {
				b := burst[bi]
				if err := w.write(&line, b.Stack, b.Count, b.Time+shift); err != nil {
					return nil, err
				}
				bi++
			}
			if t >= n.BurstFrom && t <= n.BurstTo && idle.Is(s.Stack) {
				continue
			}
			if err := w.write(&line, s.Stack, s.Count, t); err != nil {
				return nil, err
			}
		}
	}
	if bi != len(burst) {
		return nil, fmt.Errorf("night: the burst at %v does not fit in a night of %v", o.BurstAt, o.Length)
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	return n, nil
}

func isBurst(stack []byte) bool {
	root, _, _ := bytes.Cut(stack, []byte{';'})
	return string(root) == BurstComm
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
	w.n.Samples++
	w.n.Last = t
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
