package pprof_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// Folded stacks with their metadata become a pprof profile whose last
// sample type says what the counts measure.
func ExampleBuilder() {
	text := `# flamekit v1 timed event="cpu-clock:pppH" clockid="monotonic" ref-wall="2026-11-22T02:25:56.722310Z" ref-perf="506.099781735"
main;work 10309278 @506.177835
main;work;leaf 10309278 @506.188144
`
	b := pprof.NewBuilder(pprof.Options{})
	rd := folded.NewReader(strings.NewReader(text), "example")
	for rd.Next() {
		if err := b.Add(rd.Record()); err != nil {
			panic(err)
		}
	}
	for _, m := range rd.Meta() {
		b.AddMeta(m)
	}
	p, err := b.Profile()
	if err != nil {
		panic(err)
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Println(strings.Join(types, " "))
	fmt.Println(time.Unix(0, p.TimeNanos).UTC().Format(time.RFC3339Nano), p.Sample[0].NumLabel["timestamp_ns"])
	fmt.Println(b.Stats().Clock)
	// Output:
	// samples/count cpu/nanoseconds
	// 2026-11-22T02:25:56.800363265Z [1795314356800363265]
	// clock reference 2026-11-22T02:25:56.72231Z = @506.099781735 in the metadata (perf record -k, or the recorder's kernel-log marker)
}

// A Go CPU profile becomes classic folded stacks of its default sample
// type (cpu/nanoseconds), ready for flamegraph.
func ExampleToFolded() {
	f, err := os.Open("testdata/go/cpu.pprof")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	p, err := pprof.Read(f, "cpu.pprof")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	sum, err := pprof.ToFolded(&out, p, pprof.ReadOptions{Name: "cpu.pprof"})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Type, sum.Samples, "samples, total", sum.Total)
	first, _, _ := strings.Cut(out.String(), "\n")
	fmt.Println(first)
	// Output:
	// cpu/nanoseconds 145 samples, total 2.01e+09
	// # flamekit v1 timed source="cpu.pprof" pprof-type="cpu" pprof-unit="nanoseconds"
}
