package top

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/internal/testkit/gotool"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/interop/pprof"
)

// perfDir holds the real perf captures (perf script --header text).
const perfDir = "../../../testdata/perf"

// capture is a real capture folded by stackcollapse's code, summed in a
// Counter, and the pprof profile of the same samples that timeslice
// --format pprof writes, with the unit of its values.
type capture struct {
	counter Counter
	profile string
	unit    string // the -unit that makes go tool pprof print plain values
	// sampleUnit is the unit of the profile's values ("nanoseconds").
	sampleUnit string
}

// loadCapture collapses testdata/perf/NAME.txt.gz (timed output, default
// options) and writes its pprof profile in dir.
func loadCapture(t *testing.T, name, dir string) *capture {
	t.Helper()
	c := &capture{}
	s := testcapture.ReadStream(t, testcapture.Fold(t, name))
	recs := s.Recs
	for i := range recs {
		c.counter.Add(&recs[i])
	}
	b := pprof.NewBuilder(pprof.Options{Location: time.UTC})
	for _, m := range s.Metas {
		b.AddMeta(m)
	}
	for i := range recs {
		if err := b.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var built bytes.Buffer
	if err := b.Write(&built); err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Parse(built.Bytes(), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			c.sampleUnit = st.Unit
			c.unit = map[string]string{"nanoseconds": "ns", "microseconds": "us", "milliseconds": "ms", "seconds": "s", "bytes": "B"}[st.Unit]
		}
	}
	c.profile = filepath.Join(dir, name+".pb.gz")
	if err := os.WriteFile(c.profile, built.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// runPprof runs go tool pprof with args (plus the options that make it
// print every node, with exact values) on c's profile; it skips the test
// when go is not on PATH.
func runPprof(t *testing.T, c *capture, args ...string) string {
	t.Helper()
	all := []string{"-symbolize=none", "-nodecount=0", "-nodefraction=0", "-edgefraction=0"}
	if c.unit != "" {
		all = append(all, "-unit="+c.unit)
	}
	all = append(append(all, args...), c.profile)
	return string(gotool.Pprof(t, all...))
}

// value parses a value go tool pprof printed with the unit given to -unit
// (a zero has none).
func value(t *testing.T, s, unit string) float64 {
	t.Helper()
	num := strings.TrimSuffix(s, unit)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num != s && unit == "" {
		t.Fatalf("go tool pprof value %q: want an integer in %q", s, unit)
	}
	return v
}

var topRowRE = regexp.MustCompile(`^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$`)

// pprofTop reads go tool pprof -top's rows: name -> flat, cum.
func pprofTop(t *testing.T, c *capture) map[string][2]float64 {
	t.Helper()
	out := runPprof(t, c, "-top")
	rows := map[string][2]float64{}
	started := false
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "flat  flat%") {
			started = true
			continue
		}
		if !started || line == "" {
			continue
		}
		m := topRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("go tool pprof -top row %q not understood", line)
		}
		rows[m[3]] = [2]float64{value(t, m[1], c.unit), value(t, m[2], c.unit)}
	}
	if !started {
		t.Fatalf("no table in go tool pprof -top output:\n%s", out)
	}
	return rows
}

// peekBlock is one function of go tool pprof -peek's output.
type peekBlock struct {
	flat, cum        float64
	callers, callees map[string]float64
}

// pprofPeek reads go tool pprof -peek RE's output.
func pprofPeek(t *testing.T, c *capture, re string) map[string]*peekBlock {
	t.Helper()
	out := runPprof(t, c, "-peek="+re)
	blocks := map[string]*peekBlock{}
	var cur *peekBlock
	edges := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "-----") {
			if cur != nil {
				cur.callees = edges
			}
			cur, edges = nil, map[string]float64{}
			continue
		}
		i := strings.Index(line, "|")
		if i < 0 {
			continue
		}
		left := strings.Fields(line[:i])
		switch len(left) {
		case 2: // "  927835020ns   100% |   caller"
			edges[strings.TrimPrefix(line[i+1:], "   ")] = value(t, left[0], c.unit)
		case 5: // "flat flat% sum% cum cum% | name"
			cur = &peekBlock{flat: value(t, left[0], c.unit), cum: value(t, left[3], c.unit), callers: edges}
			blocks[strings.TrimPrefix(line[i+1:], " ")] = cur
			edges = map[string]float64{}
		default:
			t.Fatalf("go tool pprof -peek line %q not understood", line)
		}
	}
	return blocks
}

// topAgreement lists the captures compared with pprof, and the functions
// whose callers and callees are compared with pprof -peek.
var topAgreement = []struct {
	capture string
	peek    []string
}{
	{"burst", []string{"^do_syscall_64$", "^burst_spin$", "^swapper$"}},
	{"go", []string{`^main\.\(\*Pool\)\.run$`, `^slices\.pdqsortOrdered\[go\.shape\.int\]$`}},
	{"cpp-templates", []string{"^main$", "hidden_mix"}},
	{"java", []string{`^RangeCheckEliminator::calc_bounds$`, `^JavaCalls::call_helper$`}},
	{"node", []string{`^node::StartExecution$`}},
	{"syswide", []string{"^exc_page_fault$"}},
	{"kernel", []string{"^vfs_read$"}},
	{"tracepoint", []string{"^__schedule$"}},
}

// TestMatchesPprofTop: stacktop's flat and cum per function are go tool
// pprof -top -nodecount=0's on the pprof profile of the same samples,
// and its callers and callees pprof -peek's.
func TestMatchesPprofTop(t *testing.T) {
	dir := t.TempDir()
	var summary strings.Builder
	var mu sync.Mutex
	t.Run("captures", func(t *testing.T) { // returns when its parallel subtests are done
		for _, a := range topAgreement {
			if testing.Short() && a.capture != "burst" && a.capture != "go" {
				continue
			}
			t.Run(a.capture, func(t *testing.T) {
				t.Parallel() // go tool pprof runs, one per CPU
				c := loadCapture(t, a.capture, dir)
				want := pprofTop(t, c)
				tab := c.counter.Table(ByFunction, false)
				if len(tab.Rows) != len(want) {
					t.Errorf("%d functions, pprof %d", len(tab.Rows), len(want))
				}
				bad := 0
				for _, r := range tab.Rows {
					w, ok := want[r.Name]
					if !ok || w != [2]float64{r.Flat, r.Cum} {
						if bad++; bad <= 5 {
							t.Errorf("%q: flat %v cum %v, pprof %v (listed: %v)", r.Name, r.Flat, r.Cum, w, ok)
						}
					}
				}
				for _, re := range a.peek {
					got := c.counter.Peek(ByFunction, regexp.MustCompile(re))
					want := pprofPeek(t, c, re)
					if len(got) == 0 || len(got) != len(want) {
						t.Errorf("peek %s: %d functions, pprof %d", re, len(got), len(want))
					}
					for _, e := range got {
						w := want[e.Name]
						if w == nil || w.flat != e.Flat || w.cum != e.Cum || !sameEdges(e.Callers, w.callers) || !sameEdges(e.Callees, w.callees) {
							t.Errorf("peek %s: %q differs from pprof's:\n got %+v\nwant %+v", re, e.Name, e, w)
						}
					}
				}
				mu.Lock()
				fmt.Fprintf(&summary, "%-14s %4d functions, %d peeks: %s\n", a.capture, len(tab.Rows), len(a.peek), map[bool]string{true: "equal", false: "DIFFERENT"}[!t.Failed()])
				mu.Unlock()
			})
		}
	})
	t.Logf("stacktop vs go tool pprof -top/-peek:\n%s", summary.String())
}

// TestUnitsAsPprof: the text table prints its values as go tool pprof
// -top prints them by default (-unit=minimum): the same unit, chosen from
// the smallest value shown and the total, and the same labels ("26.96s",
// "0.05s"), on real captures of CPU time (ns) and a count.
func TestUnitsAsPprof(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"burst", "go", "tracepoint"} {
		t.Run(name, func(t *testing.T) {
			c := loadCapture(t, name, dir)
			for _, n := range []int{3, 10} {
				out := string(gotool.Pprof(t, "-symbolize=none", "-nodefraction=0", "-edgefraction=0", "-nodecount="+strconv.Itoa(n), "-top", c.profile))
				want := map[string][2]string{}
				started := false
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimSpace(line), "flat  flat%") {
						started = true
						continue
					}
					if m := topRowRE.FindStringSubmatch(line); started && m != nil {
						want[m[3]] = [2]string{m[1], m[2]}
					}
				}
				tab := c.counter.Table(ByFunction, false)
				tab.Unit = c.sampleUnit
				var b strings.Builder
				if err := WriteText(&b, tab, n); err != nil {
					t.Fatal(err)
				}
				rows, same := 0, 0
				for _, line := range strings.Split(b.String(), "\n")[2:] {
					m := topRowRE.FindStringSubmatch(line)
					if m == nil {
						continue
					}
					rows++
					if w, ok := want[m[3]]; ok {
						if w != [2]string{m[1], m[2]} {
							t.Errorf("-n %d %s (%s): %s %s, pprof %s %s", n, m[3], c.sampleUnit, m[1], m[2], w[0], w[1])
						}
						same++
					}
				}
				if rows != n || same < n-1 {
					t.Errorf("-n %d: %d rows, %d of them in pprof's top:\n%s\n%s", n, rows, same, b.String(), out)
				}
			}
		})
	}
}

func sameEdges(got []Edge, want map[string]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for _, e := range got {
		if w, ok := want[e.Name]; !ok || w != e.Count {
			return false
		}
	}
	return true
}
