package pprof

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"flamekit/internal/testkit/gotool"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

var valueLineRe = regexp.MustCompile(`^\s*(\d+)(?:ns|B)?   (\S.*)$`)

var totalRe = regexp.MustCompile(`of (\d+)(ns|B|) total`)

// pprofTotal reads "Showing nodes accounting for X, P% of T total" from
// go tool pprof -top -unit=...
func pprofTotal(t *testing.T, top string) int64 {
	t.Helper()
	m := totalRe.FindStringSubmatch(top)
	if m == nil {
		t.Fatalf("no total in go tool pprof -top output:\n%s", top)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// parseTraces reads go tool pprof -traces output (values printed with a
// fixed unit) into stack (root first) -> summed value.
func parseTraces(t *testing.T, out string) map[string]int64 {
	t.Helper()
	stacks := map[string]int64{}
	var frames []string
	var value int64
	flush := func() {
		if frames == nil {
			return
		}
		for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
			frames[i], frames[j] = frames[j], frames[i]
		}
		stacks[strings.Join(frames, ";")] += value
		frames = nil
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	started := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			flush()
			started = true
			continue
		}
		if !started || strings.TrimSpace(line) == "" {
			continue
		}
		if m := valueLineRe.FindStringSubmatch(line); m != nil {
			// "10000000ns   runtime.mcall" or "     4225B   sync.(*Pool).pinSlow"
			v, _ := strconv.ParseInt(m[1], 10, 64)
			value = v
			frames = []string{strings.TrimSuffix(m[2], " (inline)")}
			continue
		}
		f := strings.TrimSpace(line)
		if strings.HasSuffix(strings.Fields(f)[0], ":") {
			continue // a label line, "bytes:  256B"
		}
		frames = append(frames, strings.TrimSuffix(f, " (inline)"))
	}
	flush()
	return stacks
}

// classic reads ToFolded output into stack -> summed count.
func classic(t *testing.T, b []byte) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	rd := folded.NewReader(bytes.NewReader(b), "folded")
	for rd.Next() {
		r := rd.Record()
		m[string(r.Stack)] += int64(r.Count)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGoProfilesMatchPprofTraces: the folded stacks of real Go CPU and
// heap profiles (go test -cpuprofile/-memprofile, testdata/go) are those
// go tool pprof -traces prints, with the same values and totals.
func TestGoProfilesMatchPprofTraces(t *testing.T) {
	tests := []struct {
		file, sampleType, wantType, unit string
	}{
		{"testdata/go/cpu.pprof", "", "cpu", "ns"},
		{"testdata/go/cpu.pprof", "samples", "samples", ""},
		{"testdata/go/mem.pprof", "", "alloc_space", "B"},
		{"testdata/go/mem.pprof", "inuse_objects", "inuse_objects", ""},
		{"testdata/go/mem.pprof", "0", "alloc_objects", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file+":"+tc.wantType, func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := Read(f, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			sum, err := ToFolded(&out, p, ReadOptions{SampleType: tc.sampleType, Name: tc.file})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Type.Type != tc.wantType || sum.Timed != 0 {
				t.Fatalf("summary %+v", sum)
			}
			got := classic(t, out.Bytes())
			var total int64
			for _, v := range got {
				total += v
			}
			if float64(total) != sum.Total {
				t.Errorf("folded total %d, summary %v", total, sum.Total)
			}
			args := []string{"-sample_index=" + tc.wantType}
			if tc.unit != "" {
				args = append(args, "-unit="+tc.unit)
			}
			want := parseTraces(t, goToolPprof(t, append(args, "-traces", tc.file)...))
			for k, v := range want {
				if v == 0 {
					delete(want, k)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d stacks, go tool pprof -traces %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("stack %s: %d, go tool pprof -traces %d", k, got[k], v)
				}
			}
			top := pprofTotal(t, goToolPprof(t, append(args, "-top", "-nodecount=1", tc.file)...))
			if top != total {
				t.Errorf("total %d, go tool pprof -top %d", total, top)
			}
			t.Logf("%s %s: %d stacks, total %d%s (go tool pprof -top: %d), %d zero-valued samples skipped", tc.file, sum.Type, len(got), total, tc.unit, top, sum.Zero)
		})
	}
}

// windowTotal is the total of the timed samples in [from, to) of a timed
// folded stream: a window's rule (window.Window.Contains), which
// cmd/timeslice's tests hold timeslice's slices to.
func windowTotal(t *testing.T, text []byte, from, to folded.Time) (float64, int64) {
	t.Helper()
	rd := folded.NewReader(bytes.NewReader(text), "burst")
	rd.Lenient = true
	var total float64
	var kept int64
	for rd.Next() {
		rec := rd.Record()
		if rec.Kind == folded.Timed && rec.Time >= from && rec.Time < to {
			total += rec.Count
			kept++
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return total, kept
}

// TestGoToolPprofReadsOurs writes the pprof of the real burst capture and
// checks go tool pprof's -top total against the folded total, its -raw
// listing, and -tagfocus=timestamp_ns windows against timeslice's: with
// every sample's own time, and with times rounded down to 100 ms (what
// timeslice --format pprof writes by default), for a window whose ends are
// whole 100 ms of the wall clock.
func TestGoToolPprofReadsOurs(t *testing.T) {
	text := collapse(t, "burst")
	in := testcapture.ReadStream(t, text)
	for _, res := range []time.Duration{0, 100 * time.Millisecond} {
		t.Run(res.String(), func(t *testing.T) {
			p, st := build(t, in, Options{Resolution: res})
			enc, _ := encode(t, p)
			path := writeTemp(t, "burst.pb.gz", enc)

			top := goToolPprof(t, "-top", "-unit=ns", "-nodecount=5", path)
			if got := pprofTotal(t, top); float64(got) != in.Total() {
				t.Errorf("go tool pprof -top total %dns, folded total %v", got, in.Total())
			}
			if !strings.Contains(top, "Type: cpu") {
				t.Errorf("-top does not say Type: cpu:\n%s", top)
			}
			t.Logf("go tool pprof -top:\n%s", top)

			raw := goToolPprof(t, "-raw", path)
			if !strings.Contains(raw, "samples/count cpu/nanoseconds") || !strings.Contains(raw, "timestamp_ns:[") {
				t.Errorf("-raw lacks the sample types or timestamp_ns labels:\n%.2000s", raw)
			}
			labels := timestampRe.FindAllStringSubmatch(raw, -1)
			if int64(len(labels)) != st.Samples || res == 0 && len(labels) != len(in.Recs) || res > 0 && len(labels) >= len(in.Recs) {
				t.Errorf("-raw shows %d timestamp_ns labels, %d samples written, %d records", len(labels), st.Samples, len(in.Recs))
			}
			for _, l := range labels {
				if v, _ := strconv.ParseInt(l[1], 10, 64); res > 0 && v%int64(res) != 0 {
					t.Fatalf("timestamp_ns %d is not a multiple of %v", v, res)
				}
			}
			if !strings.Contains(raw, "# flamekit v1 timed host=") {
				t.Errorf("-raw lacks the metadata comments")
			}

			// The burst: 13 s to 16 s after the first sample (timeslice
			// --from 13s --to 16s). With every sample's time, bounds half
			// a microsecond off the samples' whole microseconds, so that
			// the ns->float conversion of -tagfocus cannot move a sample
			// across; with 100 ms, the wall-clock times rounded to 100 ms,
			// given in ms (exact as float64), the upper one 1 ms short as
			// -tagfocus ranges include their end.
			first := in.Recs[0].Time
			ref, _ := folded.RefFromMeta(&folded.Meta{Fields: mergedFields(in.Metas)}, first, in.Recs[len(in.Recs)-1].Time, true, time.UTC)
			from, to := first+13e9+500, first+16e9+500
			wFrom, wTo := ref.ToWall(from).UnixNano(), ref.ToWall(to).UnixNano()
			focus := fmt.Sprintf("-tagfocus=timestamp_ns=%dns:%dns", wFrom, wTo-1)
			if res > 0 {
				wFrom, wTo = wFrom-wFrom%int64(res), wTo-wTo%int64(res)
				from, to = ref.ToPerf(time.Unix(0, wFrom)), ref.ToPerf(time.Unix(0, wTo))
				focus = fmt.Sprintf("-tagfocus=timestamp_ns=%dms:%dms", wFrom/1e6, wTo/1e6-1)
			}
			want, kept := windowTotal(t, text, from, to)
			out := goToolPprof(t, "-top", "-unit=ns", "-nodefraction=0", "-nodecount=100000", focus, path)
			if got := shownTotal(t, out); float64(got) != want || !strings.Contains(out, "burst_spin") {
				t.Errorf("go tool pprof %s: total %dns, timeslice window %v (%d samples)\n%s", focus, got, want, kept, out)
			}
			t.Logf("timeslice window @%v..@%v: %v ns in %d samples; go tool pprof %s:\n%.600s", from, to, want, kept, focus, out)

			// The samples' CPUs: -tagfocus=cpu=N gives the lines of
			// CPU N, and the CPUs add up to the whole.
			perCPU := map[int32]float64{}
			for _, r := range in.Recs {
				perCPU[r.CPU] += r.Count
			}
			if len(perCPU) < 2 {
				t.Fatalf("the capture's lines name %d CPUs, want 2", len(perCPU))
			}
			for cpu, want := range perCPU {
				focus := fmt.Sprintf("-tagfocus=cpu=%d", cpu)
				out := goToolPprof(t, "-top", "-unit=ns", "-nodefraction=0", "-nodecount=100000", focus, path)
				if got := shownTotal(t, out); float64(got) != want {
					t.Errorf("go tool pprof %s: total %dns, the lines of CPU %d %v", focus, got, cpu, want)
				}
			}
		})
	}
}

var timestampRe = regexp.MustCompile(`timestamp_ns:\[(\d+)`)

var shownRe = regexp.MustCompile(`accounting for (\d+)ns,`)

// shownTotal reads "Showing nodes accounting for X" of go tool pprof -top
// with every node shown: the total of the samples that passed the filters.
func shownTotal(t *testing.T, top string) int64 {
	t.Helper()
	m := shownRe.FindStringSubmatch(top)
	if m == nil {
		t.Fatalf("no \"accounting for\" in go tool pprof -top output:\n%s", top)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

func mergedFields(ms []folded.Meta) []folded.Field {
	var m folded.Meta
	for _, x := range ms {
		for _, f := range x.Fields {
			m.Set(f.Key, f.Value)
		}
	}
	return m.Fields
}

// goToolPprof is go tool pprof's output, as text.
func goToolPprof(t *testing.T, args ...string) string { return string(gotool.Pprof(t, args...)) }
