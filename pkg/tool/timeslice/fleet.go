package timeslice

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"flamekit/pkg/filter/window"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/otlp"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/interop/pyroscope"
	"flamekit/pkg/tool"
)

// DefaultPprofBucket is what --format pprof rounds timestamp_ns down to
// without Bucket (--bucket).
const DefaultPprofBucket = 100 * time.Millisecond

// Resolution returns Bucket, or the default of the output.
func (f *Config) Resolution() time.Duration {
	switch {
	case f.Bucket != nil:
		return *f.Bucket
	case f.Format == OutputOTLP:
		return otlp.DefaultResolution
	case f.Push != "":
		return pyroscope.DefaultBucket
	}
	return DefaultPprofBucket
}

// check rejects flag combinations that make no sense.
func (c *run) checkFleet() error {
	f := &c.Config
	switch {
	case f.Push != "" && f.Format == OutputPprof:
		return tool.Usagef("--push and --format pprof cannot be combined: --push sends pprof itself (--format otlp --push sends OTLP)")
	case (f.Push != "" || f.Format != OutputFolded) && (c.Heatmap != NoHeatmap || c.KeepTime):
		return tool.Usagef("--heatmap and --keep-time write their own output: drop --push/--format %s", f.Format)
	case f.Push != "" && f.Service == "":
		return tool.Usagef("--push needs --service NAME (the service name Grafana shows)")
	case f.Push == "" && f.Format != OutputOTLP && (f.Service != "" || len(f.Label) > 0):
		return tool.Usagef("--service and --label go with --push URL or --format otlp")
	case f.Bucket != nil && *f.Bucket <= 0:
		return tool.Usagef("--bucket %v: want a positive duration such as 1s or 250ms", *f.Bucket)
	case f.Bucket != nil && f.Push == "" && f.Format == OutputFolded:
		return tool.Usagef("--bucket goes with --push or --format pprof/otlp")
	case f.SampleType != "" && f.Push == "" && f.Format == OutputFolded:
		return tool.Usagef("--sample-type goes with --format pprof/otlp or --push")
	case f.Format == OutputOTLP && f.Resolution() < pprof.MinCut:
		return tool.Usagef("--bucket %v: --format otlp keeps timestamps to %v at the finest", f.Resolution(), pprof.MinCut)
	}
	if f.SampleType != "" {
		if _, err := parseWeight(f.SampleType); err != nil {
			return tool.Usagef("%v", err)
		}
	}
	return nil
}

func parseWeight(s string) (pprof.Weight, error) {
	if s == "" {
		return pprof.Weight{}, nil
	}
	t, u, ok := strings.Cut(s, "/")
	if !ok || t == "" || u == "" || strings.ContainsAny(s, ": ") {
		return pprof.Weight{}, fmt.Errorf("--sample-type %q: want TYPE/UNIT, e.g. cpu/nanoseconds or alloc_space/bytes", s)
	}
	return pprof.Weight{Type: t, Unit: u}, nil
}

// refOf returns the wall-clock reference to use for the window: the
// window's own, else the one of the capture's first sample.
func refOf(win *window.Window, clock *window.Clock) (folded.WallRef, bool) {
	switch {
	case win != nil && win.Ref != nil:
		return *win.Ref, true
	case len(clock.Refs) > 0:
		return clock.RefAt(clock.Origin), true
	}
	return folded.WallRef{}, false
}

// pprofOutput makes the Slicer's sink a pprof Builder; finish writes the
// gzipped profile once the clock is known (with --format otlp, the OTLP
// request made from the same Builder, written or pushed: otlpFinish).
//
// The Builder sums the samples of each --bucket interval (on the wall
// clock) as they come, in a timeline (package timeline), so it must know
// where the interval edges fall on perf's clock before reading: from the
// clock the heads of the inputs give (a stream is copied first, and read
// from its copy as a file: see place). That guess is right unless the
// whole input says otherwise (the "captured on" estimate moved with a
// later last sample, another capture holds the first sample); then finish
// reads the inputs again, cut where the clock says. Intervals under
// pprof.MinCut are kept as per-sample records until the clock is known:
// a timeline's 2^31 cells of them would not span a long capture, and
// nearly every sample is a key of its own at such widths.
func (c *run) pprofOutput(env *tool.Env, s *window.Slicer, inputs window.Inputs, win *window.Window) func(*window.Clock) error {
	w, _ := parseWeight(c.SampleType)
	opts := pprof.Options{Weight: w, Resolution: c.Resolution(), Mappings: mappings(inputs), Addresses: c.Addresses.Pprof()}
	if win != nil {
		opts.From, opts.HasFrom, opts.To, opts.HasTo = win.From, win.HasFrom, win.To, win.HasTo
	}
	if !c.hasCut {
		before := inputs.Clock()
		if ref, ok := refOf(win, &before); ok {
			c.cut = ref.Wall.UnixNano() - int64(ref.Perf)
		}
		c.hasCut = true
	}
	opts.Cut, opts.HasCut = c.cut, !inputs.HasStream()
	b := pprof.NewBuilder(opts)
	s.Sink = window.SinkFunc(b.Add)
	return func(clock *window.Clock) error {
		if ref, ok := refOf(win, clock); ok {
			b.SetRef(&ref)
		}
		for _, m := range inputs.CaptureMetas() {
			b.AddMeta(m)
		}
		if !b.Fits() {
			if c.recut {
				return fmt.Errorf("pprof: the clock moved between two readings of the same inputs (cut at %d ns, then %d)", c.cut, b.Offset())
			}
			c.cut, c.recut = b.Offset(), true
			_, finish, err := c.read(env, inputs, win)
			if err != nil {
				return err
			}
			return finish(clock)
		}
		if c.Format == OutputOTLP {
			return c.otlpFinish(env, b, clock)
		}
		if err := b.Write(env.Stdout); err != nil {
			return err
		}
		st := b.Stats()
		c.profile = st
		c.noteAddresses(env, st)
		if st.NoWall {
			env.Warnf("warning: %s", st.Clock)
		} else if st.Estimated && (win == nil || !win.Estimated) {
			env.Warnf("warning: wall-clock times (TimeNanos, timestamp_ns) are estimated: %s", st.Clock)
		}
		if !st.WeightKnown && c.SampleType == "" {
			env.Warnf("pprof sample type %s guessed from the event; --sample-type TYPE/UNIT says what the counts measure", st.Weight)
		}
		return nil
	}
}

// mappings returns the files and build-ids of the inputs that are
// perf.data files, gzipped or not (their headers' build-id tables, read
// through the input layer: window.Input.BuildIDs), for the pprof and
// OTLP outputs and the pushes; other inputs (folded text, perf script
// text) have none.
func mappings(inputs window.Inputs) []pprof.Mapping {
	var out []pprof.Mapping
	seen := map[pprof.Mapping]bool{}
	for _, in := range inputs {
		ids, err := in.BuildIDs()
		if err != nil {
			continue
		}
		for _, id := range ids {
			m := pprof.Mapping{File: id.File, BuildID: id.ID}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// otlpFinish writes or pushes the OTLP request of the samples b holds.
func (c *run) otlpFinish(env *tool.Env, b *pprof.Builder, clock *window.Clock) error {
	opts := otlp.Options{Service: c.Service}
	for _, l := range c.Label {
		k, v, ok := strings.Cut(l, "=")
		switch {
		case !ok || k == "" || v == "":
			return tool.Usagef("--label %q: want KEY=VALUE", l)
		case k == "host":
			opts.Host = v // the pprof push's host label is OTLP's host.name
		default:
			opts.Resource = append(opts.Resource, [2]string{k, v})
		}
	}
	if c.Push != "" {
		opts.Split = pyroscope.DefaultBucket
		opts.ProfileID = c.ProfileID
		if opts.ProfileID == [16]byte{} {
			opts.ProfileID = c.profileID()
		}
	}
	req, st, err := otlp.Build(b, opts)
	c.profile = st.Stats
	if err != nil {
		return err
	}
	c.noteAddresses(env, st.Stats)
	if st.Estimated {
		env.Warnf("warning: wall-clock times (timestamps_unix_nano) are estimated: %s", st.Clock)
	}
	if !st.WeightKnown && c.SampleType == "" {
		env.Warnf("OTLP sample type %s guessed from the event; --sample-type TYPE/UNIT says what the counts measure", st.Weight)
	}
	body, err := otlp.Marshal(req)
	if err != nil {
		return err
	}
	if c.Push == "" {
		_, err := env.Stdout.Write(body)
		return err
	}
	auth, err := pyroscope.AuthFromEnv(env.Env)
	if err != nil {
		return err
	}
	client, err := pyroscope.NewClient(c.Push, auth, nil)
	if err != nil {
		return tool.Usagef("--push: %v", err)
	}
	client.Total = c.PushTimeout
	if client.Total == 0 {
		client.Total = DefaultPushTimeout
	}
	res, sent, err := otlp.Push(context.Background(), client, body)
	if err != nil {
		return fmt.Errorf("OTLP push of %d samples (%d bytes gzipped) to %s%s: %w", st.Timed, sent, client.URL(), otlp.Path, err)
	}
	env.Warnf("pushed %d OTLP profiles of %d samples, %s %s total, %d bytes (%d gzipped) in 1 request (%d attempts) to %s%s",
		st.Profiles, st.Records, folded.FormatCount(st.Total), st.Weight, len(body), sent, res.Attempts, client.URL(), otlp.Path)
	return nil
}

// profileID names a push by what it sends: the service, the labels, the
// inputs' file names and the window, so that pushing the same window of
// the same file again (a recorder restarted before it knew the first push
// had been accepted) gives the same OTLP profile_id, which a receiver may
// deduplicate.
func (c *run) profileID() [16]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %v", c.Service, c.Label, c.Window)
	for _, f := range c.Files {
		fmt.Fprintf(h, " %q", filepath.Base(f))
	}
	var id [16]byte
	copy(id[:], h.Sum(nil))
	return id
}

// DefaultPushTimeout bounds an OTLP push, its retries included, without
// Config.PushTimeout.
const DefaultPushTimeout = 2 * time.Minute

// pushOutput makes the Slicer's sink a Pyroscope Pusher (the inputs have
// been surveyed: their clock and metadata are final); finish pushes the
// last buckets and prints the summary.
func (c *run) pushOutput(env *tool.Env, s *window.Slicer, inputs window.Inputs) (func(*window.Clock) error, error) {
	clock := inputs.Clock()
	if len(clock.Refs) == 0 {
		return nil, errors.New("--push needs the wall-clock time of the samples, and the input has neither a clock reference (perf record -k mono) nor perf's \"captured on\" date (perf script --header)")
	}
	var labels []pyroscope.Label
	for _, l := range c.Label {
		lb, err := pyroscope.ParseLabel(l)
		if err != nil {
			return nil, tool.Usagef("--label: %v", err)
		}
		labels = append(labels, lb)
	}
	name, err := pyroscope.AppName(c.Service, labels)
	if err != nil {
		return nil, tool.Usagef("--service/--label: %v", err)
	}
	auth, err := pyroscope.AuthFromEnv(env.Env)
	if err != nil {
		return nil, err
	}
	client, err := pyroscope.NewClient(c.Push, auth, nil)
	if err != nil {
		return nil, tool.Usagef("--push: %v", err)
	}
	for _, r := range clock.Refs {
		if !r.Exact {
			env.Warnf("warning: wall-clock time is estimated: %s", r.How)
			break
		}
	}
	w, _ := parseWeight(c.SampleType)
	p := pyroscope.NewPusher(context.Background(), client, name, clock.RefAt, pyroscope.PushOptions{Bucket: c.Resolution(), Weight: w,
		Mappings: mappings(inputs), Addresses: c.Addresses.Pprof()})
	for _, m := range inputs.CaptureMetas() {
		p.AddMeta(m)
	}
	s.Sink = window.SinkFunc(p.Add)
	c.pusher = p
	return func(*window.Clock) error {
		sum, err := p.Close()
		if err == nil {
			env.Warnf("%s to %s as %s", sum, client.URL(), name)
		}
		return err
	}, nil
}

// pushFailed prints what was pushed before a failure.
func (c *run) pushFailed(env *tool.Env) {
	if c.pusher != nil {
		if sum := c.pusher.Summary(); sum.Buckets > 0 {
			env.Warnf("%s before the error", sum)
		} else {
			env.Warnf("nothing was pushed before the error")
		}
		c.pusher = nil
	}
}
