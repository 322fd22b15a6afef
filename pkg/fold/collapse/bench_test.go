package collapse

import (
	"fmt"
	"io"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// benchSamples makes n timed samples of 1,000 distinct stacks of 24
// frames drawn from 4,000 distinct frames; with ids, the frames carry
// sample.Frame.ID as the perf.data reader gives them.
func benchSamples(n int, ids bool) []sample.Sample {
	frames := make([]sample.Frame, 4000)
	for i := range frames {
		frames[i] = sample.Frame{
			Addr:   []byte(fmt.Sprintf("%x", 0x401000+16*i)),
			Symbol: []byte(fmt.Sprintf("pkg/module%d.(*Type%d).Method%d+0x%x", i%17, i%101, i, i%256)),
			DSO:    []byte(fmt.Sprintf("/usr/lib/x86_64-linux-gnu/lib%d.so.1", i%13)),
		}
		if ids {
			frames[i].ID = uint32(i + 1)
		}
	}
	stacks := make([][]sample.Frame, 1000)
	for i := range stacks {
		for j := range 24 {
			stacks[i] = append(stacks[i], frames[(i*7919+j*104729)%len(frames)])
		}
	}
	samples := make([]sample.Sample, n)
	for i := range samples {
		samples[i] = sample.Sample{
			Comm: []byte("worker"), TID: []byte("4242"), CPU: i % 2, Event: []byte("cpu-clock:ppp"),
			Period: 333444, HasPeriod: true, Time: folded.Time(1e9 + int64(i)*333444), HasTime: true,
			Frames: stacks[(i*31)%len(stacks)],
		}
	}
	return samples
}

// BenchmarkFoldSamples folds 100,000 samples held in memory through the
// driver, timed and classic, with two workers and one, with and without
// frame IDs.
func BenchmarkFoldSamples(b *testing.B) {
	for _, ids := range []bool{false, true} {
		samples := benchSamples(100000, ids)
		for _, opt := range []struct {
			name string
			opt  Options
		}{{"timed", Options{}}, {"classic", Options{NoTime: true}}} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("ids=%v/%s/j%d", ids, opt.name, workers), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						d := &Driver{Options: opt.opt, Workers: workers}
						in := Input{Name: "bench", Open: func() (Producer, error) { return Samples(nil, samples, 2048), nil }}
						if _, err := d.Run(io.Discard, []Input{in}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
				})
			}
		}
	}
}
