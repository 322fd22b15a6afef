package explorer

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// Scale of the benchmarks: a 2-minute capture of a 96-CPU host sampled at
// 97 Hz, 1,117,440 samples.
const (
	scaleCPUs    = 96
	scaleHz      = 97
	scaleSeconds = 120
)

// scaleRecords makes that capture from the samples of real captures (the
// burst capture, 30 s of a mostly idle 2-CPU machine, and busy ones: a
// system-wide capture, Java, Node, Go, C++ and kernel work; about 25,000
// samples of 9,000 distinct stacks): each CPU k samples at its own 97 Hz grid
// (offset by k·0.1 ms) and walks through the real samples from a random
// place, taking the next one each time (so it runs the same thread for a
// while, as a CPU does) and jumping elsewhere 5% of the time; it keeps the
// real stack, weight and idle flag, its own cpu=, and the real tid plus
// 10,000·k outside the idle task, so that the 96 CPUs run different
// threads. A cell then holds about two samples per CPU, most with a key of
// their own (cpu differs): near the worst case for the cell index, and
// with no repetition across CPUs that would flatter the compression.
func scaleRecords(tb testing.TB) []folded.Record {
	tb.Helper()
	var src []line
	for _, name := range []string{"burst", "syswide", "java", "node", "go", "cpp-templates", "kernel"} {
		l, _ := readLines(tb, collapse(tb, name))
		src = append(src, l...)
	}
	n := scaleCPUs * scaleHz * scaleSeconds
	recs := make([]folded.Record, 0, n)
	stacks := make([][]byte, len(src))
	for i, l := range src {
		stacks[i] = []byte(l.stack)
	}
	rnd := rand.New(rand.NewPCG(18, 96))
	pos := make([]int, scaleCPUs)
	for k := range pos {
		pos[k] = rnd.IntN(len(src))
	}
	base := folded.Time(1000e9)
	for j := 0; j < scaleHz*scaleSeconds; j++ {
		for k := 0; k < scaleCPUs; k++ {
			if rnd.IntN(20) == 0 {
				pos[k] = rnd.IntN(len(src))
			}
			i := pos[k]
			pos[k] = (i + 1) % len(src)
			tid := src[i].tid
			if !src[i].idle {
				tid += int32(10000 * k)
			}
			recs = append(recs, folded.Record{Stack: stacks[i], Count: src[i].count, Kind: folded.Timed,
				Time: base + folded.Time(k)*100_000 + folded.Time(int64(j)*1e9/scaleHz),
				CPU:  int32(k), TID: tid, Has: folded.HasCPU | folded.HasTID})
		}
	}
	return recs
}

func buildScale(b testing.TB, recs []folded.Record) *timeline.Timeline {
	tb := timeline.NewBuilder(timeline.Options{Times: MaxTimes, Budget: DefaultBudget}) // as timeslice --heatmap=html builds it
	tb.Input("scale", "big", 0)
	for i := range recs {
		if err := tb.Add(&recs[i]); err != nil {
			b.Fatal(err)
		}
	}
	return tb.Build()
}

// BenchmarkScaleBuild: the timeline of 1.1 M samples, then its page.
func BenchmarkScaleBuild(b *testing.B) {
	recs := scaleRecords(b)
	b.ResetTimer()
	var st Stats
	var build, write time.Duration
	for range b.N {
		t0 := time.Now()
		tl := buildScale(b, recs)
		t1 := time.Now()
		var page bytes.Buffer
		var err error
		if st, err = Write(&page, tl, Options{Files: []string{"scale.folded"}}); err != nil {
			b.Fatal(err)
		}
		build, write = t1.Sub(t0), time.Since(t1)
	}
	b.ReportMetric(float64(len(recs)), "samples")
	b.ReportMetric(float64(st.Entries), "entries")
	b.ReportMetric(float64(build.Milliseconds()), "build-ms")
	b.ReportMetric(float64(write.Milliseconds()), "write-ms")
	b.ReportMetric(float64(st.PageBytes)/1e6, "page-MB")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-MB")
}

// BenchmarkScaleBrowser opens the page of 1.1 M samples (or the page
// FLAMEKIT_EXPLORER_PAGE names: scripts/bench gives it the page of its big
// input) in Chromium and times what a user waits for: the page ready
// (unpacked, heat map and all), the page opened at a selection (a link
// with #from=1s&to=3s), the flame graph of a 2-second selection in
// the middle and of the whole capture, a comm filter (heat map and flame
// graph redrawn) and its removal, and the flame chart of a 2-second
// selection (a lane per thread, every sample). Each figure is the median over the
// iterations (run -benchtime 5x or more on a shared machine: one
// iteration's figures move with the machine's load). FLAMEKIT_EXPLORER_KEEP
// names a file to keep the page built in (to time it later against another
// tree's page).
func BenchmarkScaleBrowser(b *testing.B) {
	path := os.Getenv("FLAMEKIT_EXPLORER_PAGE")
	if path == "" {
		recs := scaleRecords(b)
		tl := buildScale(b, recs)
		path = filepath.Join(b.TempDir(), "scale.html")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		if _, err := Write(bw, tl, Options{Files: []string{"scale.folded"}, NoIdle: true}); err != nil {
			b.Fatal(err)
		}
		bw.Flush()
		f.Close()
		if keep := os.Getenv("FLAMEKIT_EXPLORER_KEEP"); keep != "" {
			// the page kept, to time this tree's page against a later one's
			// (FLAMEKIT_EXPLORER_PAGE=that file)
			if data, err := os.ReadFile(path); err != nil || os.WriteFile(keep, data, 0o644) != nil {
				b.Fatal("cannot keep the page in", keep)
			}
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	br := newBrowser(b, 1400, 1000)
	b.ResetTimer()
	var open, openSel, sel2, selAll, filt, unfilt, chart []float64
	const span = `(() => { const s = HM.spans[0]; return [cellStartNs(s[0]), cellStartNs(s[1] + 1)]; })()`
	for range b.N {
		var o, s2, sa, f, u, c float64
		br.Open(b, "file://"+path)
		br.Eval(b, `flamekit.ready.then(() => flamekit.timing.loaded)`, &o)
		br.Eval(b, `(() => { const s = `+span+`, m = Math.round((s[0] + s[1]) / 2); return flamekit.measure("select", m, m + 2e9); })()`, &s2)
		br.Eval(b, `(() => { const s = `+span+`; return flamekit.measure("select", s[0], s[1]); })()`, &sa)
		br.Eval(b, `flamekit.measure("filter", "bash")`, &f)
		br.Eval(b, `flamekit.measure("filter", "")`, &u)
		br.Eval(b, `(() => { const s = `+span+`, m = Math.round((s[0] + s[1]) / 2); return flamekit.measure("chart", m, m + 2e9); })()`, &c)
		// opened at a selection, as a link from a note or a colleague is
		// (a query of its own, so that the page loads again)
		var oa float64
		br.Open(b, "file://"+path+"?at#from=1s&to=3s")
		br.Eval(b, `flamekit.ready.then(() => flamekit.timing.loaded)`, &oa)
		open, openSel, sel2, selAll, filt, unfilt, chart = append(open, o), append(openSel, oa), append(sel2, s2), append(selAll, sa), append(filt, f), append(unfilt, u), append(chart, c)
	}
	var tot pageTotals
	br.Eval(b, `flamekit.totals()`, &tot)
	if int(tot.Samples) == 0 {
		b.Fatal("empty selection")
	}
	b.ReportMetric(float64(fi.Size())/1e6, "page-MB")
	b.ReportMetric(median(open), "open-ms")
	b.ReportMetric(median(openSel), "openAt-ms")
	b.ReportMetric(median(sel2), "select2s-ms")
	b.ReportMetric(median(selAll), "selectAll-ms")
	b.ReportMetric(median(filt), "filter-ms")
	b.ReportMetric(median(unfilt), "unfilter-ms")
	b.ReportMetric(median(chart), "chart2s-ms")
	b.ReportMetric(tot.Samples, "samples")
}

// median returns the median of v (0 for none).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}
