package flamegraph

import (
	"io"
	"testing"

	"flamekit/pkg/svg"
)

func BenchmarkZZWhole(b *testing.B) {
	o := svg.DefaultOptions()
	for b.Loop() {
		in, err := Read([]string{"/tmp/data.folded"}, nil, false, svg.Rewrite{}, &o)
		if err != nil {
			b.Fatal(err)
		}
		if err := svg.Render(io.Discard, in.Layout, &o); err != nil {
			b.Fatal(err)
		}
	}
}
