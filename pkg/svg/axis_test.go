package svg

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"
)

// The time axis of a timed flame chart: its ticks' spacing, labels and
// place, as the explorer's chart draws them (chart.js's chartAxis), and
// none on a flame graph nor on an untimed flame chart.
func TestTimeAxis(t *testing.T) {
	const s = folded.Time(1_000_000_000)
	chart := func(times ...folded.Time) *flamegraph.Layout {
		var smp []flamegraph.ChartSample
		for _, at := range times {
			smp = append(smp, flamegraph.ChartSample{Time: at, TID: 1, Has: folded.HasTID, Stack: "p;a"})
		}
		return flamegraph.LayoutChart(smp)
	}
	plain := func() *flamegraph.Layout {
		b := flamegraph.NewBuilder()
		b.Add("p;a", 3, 0, false)
		return b.Layout()
	}
	labelRE := regexp.MustCompile(`<text x="([^"]*)" y="([^"]*)">([^<]*)</text>`)
	tests := []struct {
		name     string
		l        *flamegraph.Layout
		inverted bool
		labels   []string // the axis's labels, nil for no axis
		y        string   // their baseline
	}{
		// 3 s on 1,180 px: a tick every 0.2 s (at most 100 px apart);
		// the last one's label (3.0 s) would pass the right end, and
		// before its tick it would overlap 2.8 s's
		{"3 s", chart(1*s, 2*s, 3*s), false, []string{"0.0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1.0 s", "1.2 s", "1.4 s", "1.6 s", "1.8 s", "2.0 s", "2.2 s", "2.4 s", "2.6 s", "2.8 s"}, "111"},
		// 50 ms (the last sample lasts an interval): a tick every 2 ms,
		// three decimals, a label every other tick (one would overlap
		// the one before); the last one before its tick
		{"50 ms", chart(0, 10_000_000, 20_000_000, 30_000_000, 40_000_000), false, []string{"0.000 s", "0.004 s", "0.008 s", "0.012 s", "0.016 s", "0.020 s", "0.024 s", "0.028 s", "0.032 s", "0.036 s", "0.040 s", "0.044 s", "0.050 s"}, "111"},
		// 3 min: every 10 s, no decimals
		{"3 min", chart(0, 60*s, 120*s), false, []string{"0 s", "10 s", "20 s", "30 s", "40 s", "50 s", "60 s", "70 s", "80 s", "90 s", "100 s", "110 s", "120 s", "130 s", "140 s", "150 s", "160 s", "170 s"}, "111"},
		// an icicle: under its deepest frames, where the root row of a
		// flame chart of the same depth is
		{"inverted", chart(1*s, 2*s, 3*s), true, []string{"0.0 s", "0.2 s", "0.4 s", "0.6 s", "0.8 s", "1.0 s", "1.2 s", "1.4 s", "1.6 s", "1.8 s", "2.0 s", "2.2 s", "2.4 s", "2.6 s", "2.8 s"}, "111"},
		{"flame graph", plain(), false, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Flamechart, o.Inverted = tt.l.Timed, tt.inverted
			var buf bytes.Buffer
			if err := Render(&buf, tt.l, &o); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			_, axis, ok := strings.Cut(out, `<g id="axis">`)
			if tt.labels == nil {
				if ok || strings.Contains(out, "<line ") {
					t.Fatalf("an axis on an untimed graph:\n%s", axis)
				}
				return
			}
			if !ok || !strings.HasSuffix(out, "</g>\n</svg>\n") {
				t.Fatalf("no axis closing the SVG:\n%s", out[max(0, len(out)-500):])
			}
			var got []string
			for _, m := range labelRE.FindAllStringSubmatch(axis, -1) {
				got = append(got, m[3])
				if m[2] != tt.y {
					t.Errorf("label %s at y %s, want %s", m[3], m[2], tt.y)
				}
			}
			if !slices.Equal(got, tt.labels) {
				t.Errorf("labels %q, want %q", got, tt.labels)
			}
			// the details line stays under the axis, in the bottom pad
			details := regexp.MustCompile(`<text id="details" x="10.00" y="([^"]*)"`).FindStringSubmatch(out)
			height := svgSizeRE.FindStringSubmatch(out)
			if details == nil || height == nil {
				t.Fatalf("no details line or size")
			}
			if d, h := atof(details[1]), atof(height[2]); h-d != 17 {
				t.Errorf("details at %v in a %v px SVG: want 17 px above its bottom, as without an axis", d, h)
			}
		})
	}
}

// timeAxisLabelRE matches a label of the time axis.
var timeAxisLabelRE = regexp.MustCompile(`<text x="[0-9.]+" y="[0-9.]+">[0-9.]+ s</text>`)

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
