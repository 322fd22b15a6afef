package profile_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"flamekit/pkg/interop/pprof/profile"
)

// Decode a CPU profile written by Go's runtime/pprof (gzipped, as Go
// writes them) and print its sample types.
func ExampleDecode() {
	gz, err := os.ReadFile("../testdata/go/cpu.pprof")
	if err != nil {
		fmt.Println(err)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := io.ReadAll(zr)
	p, err := profile.Decode(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range p.SampleType {
		fmt.Printf("%s/%s\n", st.Type, st.Unit)
	}
	fmt.Println("period:", p.PeriodType.Type, p.Period, p.PeriodType.Unit)
	// Output:
	// samples/count
	// cpu/nanoseconds
	// period: cpu 10000000 nanoseconds
}
