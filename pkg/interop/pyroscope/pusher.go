package pyroscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// DefaultBucket is the time span of one pushed profile.
const DefaultBucket = time.Second

// DefaultSlack is how long after a bucket's end a Pusher waits (in sample
// time) for out-of-order samples before pushing it; timeslice tolerates
// the same disorder.
const DefaultSlack = time.Second

// PushOptions control a Pusher.
type PushOptions struct {
	// Bucket is the span of one pushed profile; 0 means DefaultBucket.
	// Buckets are aligned on the wall clock (whole seconds for 1 s).
	Bucket time.Duration
	// Slack is the disorder waited for; 0 means DefaultSlack.
	Slack time.Duration
	// Weight is what the counts measure; zero: from the metadata (see
	// pprof.WeightFor).
	Weight pprof.Weight
	// Mappings and Addresses are those of every profile pushed (see
	// pprof.Options).
	Mappings  []pprof.Mapping
	Addresses pprof.Addresses
}

// Summary counts what a Pusher sent.
type Summary struct {
	Buckets int     // profiles pushed
	Samples int64   // timed records pushed
	Total   float64 // sum of their counts
	Bytes   int64   // compressed profile bytes sent (once per bucket)
	Retries int     // requests sent again after a failure
	// Late counts the samples that arrived after their bucket had been
	// pushed; they were pushed in a second profile for the same bucket
	// (Pyroscope adds them up), not dropped.
	Late int64
	// First and Last are the wall-clock start of the first bucket and
	// end of the last one.
	First, Last time.Time
	// Weight is the sample type pushed.
	Weight pprof.Weight
}

// String is a one-line summary.
func (s Summary) String() string {
	if s.Buckets == 0 {
		return "pushed nothing (no samples)"
	}
	late := ""
	if s.Late > 0 {
		late = fmt.Sprintf(", %d late samples in extra profiles", s.Late)
	}
	return fmt.Sprintf("pushed %d profiles (%s to %s) of %d samples, %s %s total, %d bytes, %d retries%s",
		s.Buckets, s.First.UTC().Format(time.RFC3339Nano), s.Last.UTC().Format(time.RFC3339Nano),
		s.Samples, folded.FormatCount(s.Total), s.Weight, s.Bytes, s.Retries, late)
}

// bucket is one open bucket: its samples, aggregated per stack.
type bucket struct {
	idx     int64
	ref     folded.WallRef // the clock of the bucket's first sample
	b       *pprof.Builder
	samples int64
	total   float64
}

// Pusher cuts timed folded records into wall-clock buckets and pushes
// each bucket as one pprof profile (aggregated per stack: a one-cell
// timeline, see pprof.Options.Aggregate) with its own
// from/until. Memory grows with the distinct stacks of the open buckets.
type Pusher struct {
	ctx    context.Context
	client *Client
	name   string
	refAt  func(folded.Time) folded.WallRef
	opts   PushOptions
	metas  []folded.Meta
	open   map[int64]*bucket
	pushed map[int64]bool
	max    folded.Time // latest sample time seen
	seen   bool
	sum    Summary
	err    error
}

// NewPusher returns a Pusher sending to c under name (see AppName), with
// perf's clock mapped to the wall clock by refAt: the reference for a
// perf-clock time (several captures may each have their own; see
// timeslice.Clock.RefAt, or Fixed for one). Call AddMeta before Add.
func NewPusher(ctx context.Context, c *Client, name string, refAt func(folded.Time) folded.WallRef, opts PushOptions) *Pusher {
	if opts.Bucket <= 0 {
		opts.Bucket = DefaultBucket
	}
	if opts.Slack <= 0 {
		opts.Slack = DefaultSlack
	}
	return &Pusher{ctx: ctx, client: c, name: name, refAt: refAt, opts: opts,
		open: make(map[int64]*bucket), pushed: make(map[int64]bool)}
}

// Fixed returns a refAt for NewPusher that maps every time with ref.
func Fixed(ref folded.WallRef) func(folded.Time) folded.WallRef {
	return func(folded.Time) folded.WallRef { return ref }
}

// AddMeta adds a metadata line of the capture: it goes into every pushed
// profile's comments and decides the sample type.
func (p *Pusher) AddMeta(m folded.Meta) { p.metas = append(p.metas, m) }

// ErrUntimed is returned for classic records: a push needs each sample's
// time.
var ErrUntimed = errors.New("pushing needs timed folded records (stack count @seconds): run stackcollapse without --no-time")

// Add adds one timed record, pushing the buckets that are complete. After
// an error, every call returns it.
func (p *Pusher) Add(rec *folded.Record) error {
	if p.err != nil {
		return p.err
	}
	if rec.Kind != folded.Timed {
		p.err = ErrUntimed
		return p.err
	}
	ref := p.refAt(rec.Time)
	idx := p.index(ref.ToWall(rec.Time))
	bk := p.open[idx]
	if bk == nil {
		bk = &bucket{idx: idx, ref: ref, b: p.builder(idx, ref)}
		p.open[idx] = bk
	}
	if err := bk.b.Add(rec); err != nil {
		p.err = err
		return err
	}
	bk.samples++
	bk.total += rec.Count
	if p.pushed[idx] {
		p.sum.Late++
	}
	if !p.seen || rec.Time > p.max {
		p.max, p.seen = rec.Time, true
		// Push the buckets that ended more than Slack before the latest
		// sample.
		limit := ref.ToWall(p.max).Add(-p.opts.Slack)
		var done []int64
		for i := range p.open {
			if !p.end(i).After(limit) {
				done = append(done, i)
			}
		}
		slices.Sort(done)
		for _, i := range done {
			if err := p.push(p.open[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close pushes the buckets still open and returns the summary.
func (p *Pusher) Close() (Summary, error) {
	if p.err != nil {
		return p.sum, p.err
	}
	var rest []int64
	for i := range p.open {
		rest = append(rest, i)
	}
	slices.Sort(rest)
	for _, i := range rest {
		if err := p.push(p.open[i]); err != nil {
			return p.sum, err
		}
	}
	return p.sum, nil
}

// Summary returns what was pushed so far.
func (p *Pusher) Summary() Summary { return p.sum }

func (p *Pusher) bucketNs() int64 { return int64(p.opts.Bucket) }

// index returns the bucket of a wall-clock time.
func (p *Pusher) index(t time.Time) int64 {
	w := t.UnixNano()
	n := p.bucketNs()
	i := w / n
	if w%n < 0 {
		i--
	}
	return i
}

func (p *Pusher) start(i int64) time.Time { return time.Unix(0, i*p.bucketNs()) }
func (p *Pusher) end(i int64) time.Time   { return time.Unix(0, (i+1)*p.bucketNs()) }

func (p *Pusher) builder(i int64, ref folded.WallRef) *pprof.Builder {
	b := pprof.NewBuilder(pprof.Options{
		Weight:    p.opts.Weight,
		Ref:       &ref,
		From:      ref.ToPerf(p.start(i)),
		To:        ref.ToPerf(p.end(i)),
		HasFrom:   true,
		HasTo:     true,
		Aggregate: true,
		Mappings:  p.opts.Mappings,
		Addresses: p.opts.Addresses,
	})
	for _, m := range p.metas {
		b.AddMeta(m)
	}
	return b
}

// push sends one bucket and forgets it.
func (p *Pusher) push(bk *bucket) error {
	delete(p.open, bk.idx)
	var buf bytes.Buffer
	if err := bk.b.Write(&buf); err != nil {
		p.err = err
		return err
	}
	from, until := p.start(bk.idx), p.end(bk.idx)
	res, err := p.client.Ingest(p.ctx, Request{Name: p.name, From: from, Until: until, Profile: buf.Bytes()})
	if res.Attempts > 1 {
		p.sum.Retries += res.Attempts - 1
	}
	if err != nil {
		p.err = fmt.Errorf("profile %s to %s (%d samples): %w", from.UTC().Format(time.RFC3339Nano), until.UTC().Format(time.RFC3339Nano), bk.samples, err)
		return p.err
	}
	p.pushed[bk.idx] = true
	s := &p.sum
	if s.Buckets == 0 || from.Before(s.First) {
		s.First = from
	}
	if s.Buckets == 0 || until.After(s.Last) {
		s.Last = until
	}
	s.Buckets++
	s.Samples += bk.samples
	s.Total += bk.total
	s.Bytes += int64(buf.Len())
	s.Weight = bk.b.Stats().Weight
	return nil
}
