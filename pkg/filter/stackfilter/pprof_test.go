package stackfilter

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/internal/testkit/gotool"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// capture is a real capture folded by stackcollapse's code, and the pprof
// profile of the same samples that timeslice --format pprof writes.
type capture struct {
	recs    []folded.Record
	metas   []folded.Meta
	profile string // path of the .pb.gz
}

var (
	capturesMu sync.Mutex
	captures   = map[string]*capture{}
)

// loadCapture collapses testdata/perf/NAME.txt.gz (timed output, default
// options) and writes its pprof profile in dir.
func loadCapture(t *testing.T, name, dir string) *capture {
	t.Helper()
	capturesMu.Lock()
	defer capturesMu.Unlock()
	if c, ok := captures[name]; ok {
		return c
	}
	c := &capture{}
	s := testcapture.ReadStream(t, testcapture.Fold(t, name))
	c.recs, c.metas = s.Recs, s.Metas
	if len(c.recs) == 0 || c.recs[0].Kind != folded.Timed {
		t.Fatalf("%s: no timed records", name)
	}
	// What timeslice --format pprof does with the whole capture.
	b := pprof.NewBuilder(pprof.Options{Location: time.UTC})
	for _, m := range c.metas {
		b.AddMeta(m)
	}
	for i := range c.recs {
		if err := b.Add(&c.recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	c.profile = filepath.Join(dir, name+".pb.gz")
	writeBuilt(t, b, c.profile)
	captures[name] = c
	return c
}

// pprofStacks runs go tool pprof -proto with args on file and returns
// the stacks of the profile it writes (root first, joined by ';') with
// the sum of their default sample values.
func pprofStacks(t *testing.T, file string, args ...string) map[string]int64 {
	t.Helper()
	out := gotool.Pprof(t, append(append([]string{"-symbolize=none", "-proto"}, args...), file)...)
	p, err := profile.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("go tool pprof -proto %s: reading its output: %v", strings.Join(args, " "), err)
	}
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			idx = i
		}
	}
	stacks := map[string]int64{}
	for _, s := range p.Sample {
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			for j := len(s.Location[i].Line) - 1; j >= 0; j-- {
				frames = append(frames, s.Location[i].Line[j].Function.Name)
			}
		}
		stacks[strings.Join(frames, ";")] += s.Value[idx]
	}
	return stacks
}

// filterStacks runs a Filter on the records and sums the counts per
// resulting stack.
func filterStacks(t *testing.T, recs []folded.Record, o Options) map[string]int64 {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	stacks := map[string]int64{}
	for i := range recs {
		if out, keep := f.Stack(recs[i].Stack); keep {
			stacks[string(out)] += int64(recs[i].Count)
		}
	}
	return stacks
}

// diffStacks describes how two stack sums differ (at most a few lines),
// or returns "".
func diffStacks(got, want map[string]int64) string {
	var b strings.Builder
	var gt, wt int64
	for _, v := range got {
		gt += v
	}
	for _, v := range want {
		wt += v
	}
	if gt != wt || len(got) != len(want) {
		fmt.Fprintf(&b, "total %d in %d stacks, pprof %d in %d stacks\n", gt, len(got), wt, len(want))
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	n := 0
	for _, k := range keys {
		if got[k] != want[k] && n < 5 {
			fmt.Fprintf(&b, "  %q: %d, pprof %d\n", k, got[k], want[k])
			n++
		}
	}
	return b.String()
}

// agreement lists, per capture, the filters compared with pprof: the
// pprof flag, and the values of the stackfilter option (several values
// are one alternation for pprof).
var agreement = []struct {
	capture string
	cases   []flagCase
}{
	{"burst", []flagCase{
		{flag: "focus", values: []string{"burst_spin"}}, {flag: "focus", values: []string{"^ls$", "^bash$"}}, {flag: "focus", values: []string{"_raw_spin"}},
		{flag: "ignore", values: []string{"idle"}}, {flag: "ignore", values: []string{"^swapper$"}}, {flag: "ignore", values: []string{"page_fault", "^sleep$"}},
		{flag: "hide", values: []string{"^(swapper|common_startup_64)$"}}, {flag: "hide", values: []string{"^do_syscall_64$"}}, {flag: "hide", values: []string{"."}},
		{flag: "show", values: []string{"^(do_syscall_64|pv_native_safe_halt|burst_spin)$"}}, {flag: "show", values: []string{"sys_"}},
		{flag: "show_from", values: []string{"^do_syscall_64$"}}, {flag: "show_from", values: []string{"^start_thread$", "^main$"}},
		{flag: "prune_from", values: []string{"^do_syscall_64$"}}, {flag: "prune_from", values: []string{"^entry_SYSCALL"}}, {flag: "prune_from", values: []string{"^run$"}},
	}},
	{"go", []flagCase{
		{flag: "focus", values: []string{"sha256"}}, {flag: "focus", values: []string{`^sort\.Ints$`}},
		{flag: "ignore", values: []string{`runtime\.`}}, {flag: "ignore", values: []string{`\(\*Hasher\)`}},
		{flag: "hide", values: []string{`^runtime\.`}}, {flag: "hide", values: []string{`^main\.`}},
		{flag: "show", values: []string{`^main\.`}}, {flag: "show", values: []string{"sort|slices"}},
		{flag: "show_from", values: []string{`^main\.\(\*Pool\)\.run$`}}, {flag: "show_from", values: []string{`^sort\.Ints$`}},
		// prune_from matches the name cut before '(': "main.(*Pool).run"
		// is "main." there, so the second never matches and the third
		// matches every main.(*T).method frame.
		{flag: "prune_from", values: []string{`^sort\.Ints$`}}, {flag: "prune_from", values: []string{`\(\*Pool\)`}, noop: true}, {flag: "prune_from", values: []string{`^main\.$`}},
	}},
	{"cpp-templates", []flagCase{
		{flag: "focus", values: []string{"hidden_mix"}}, {flag: "focus", values: []string{`_M_invoke`}},
		{flag: "ignore", values: []string{"page_fault"}}, {flag: "ignore", values: []string{`^\(anonymous`}},
		{flag: "hide", values: []string{"^__libc_start_call_main$"}}, {flag: "hide", values: []string{"_fault$", "^templates$"}},
		{flag: "show", values: []string{"^main$|hidden_mix"}}, {flag: "show", values: []string{`::`}},
		{flag: "show_from", values: []string{"^main$"}}, {flag: "show_from", values: []string{"^apply$"}},
		{flag: "prune_from", values: []string{"^apply$"}}, {flag: "prune_from", values: []string{"^main$", "^asm_exc_page_fault$"}},
	}},
	{"java", []flagCase{
		{flag: "focus", values: []string{"^GC Thread"}}, {flag: "focus", values: []string{`Busy\.`}},
		{flag: "ignore", values: []string{`^java$`}}, {flag: "ignore", values: []string{`Compile`}},
		{flag: "hide", values: []string{`^start_thread$`}}, {flag: "hide", values: []string{`^\[unknown\]$`}},
		{flag: "show", values: []string{`Java`}}, {flag: "show", values: []string{`^(java|C2 CompilerThre)$`}},
		{flag: "show_from", values: []string{`^JavaCalls::call_helper$`}}, {flag: "show_from", values: []string{`Thread::call_run`}},
		{flag: "prune_from", values: []string{`^JavaMain$`}}, {flag: "prune_from", values: []string{`Interpreter`}},
		// RangeCheckEliminator::calc_bounds recurses up to 8 deep: show_from
		// starts at the rootmost call, prune_from ends at the leafmost.
		{flag: "show_from", values: []string{`calc_bounds`}}, {flag: "prune_from", values: []string{`calc_bounds`}},
	}},
	{"node", []flagCase{
		{flag: "focus", values: []string{`\(anonymous namespace\)::Invoke`}}, {flag: "focus", values: []string{"asn1"}},
		{flag: "ignore", values: []string{`^node::Start$`}}, {flag: "ignore", values: []string{"v8::"}},
		{flag: "hide", values: []string{"^node::"}}, {flag: "hide", values: []string{`^v8::internal::`}},
		{flag: "show", values: []string{`^v8::`}}, {flag: "show", values: []string{"JS:"}},
		{flag: "show_from", values: []string{`Execution::Call$`}}, {flag: "show_from", values: []string{"^node::Start$"}},
		{flag: "prune_from", values: []string{`::Invoke$`}}, {flag: "prune_from", values: []string{`^node::StartExecution$`}},
	}},
	{"syswide", []flagCase{
		{flag: "focus", values: []string{"^dpkg-deb$"}}, {flag: "focus", values: []string{`^\[liblzma`}},
		{flag: "ignore", values: []string{"^swapper$", "^templates$"}}, {flag: "ignore", values: []string{"memset"}},
		{flag: "hide", values: []string{`^\[unknown\]$`}}, {flag: "hide", values: []string{`^(asm_)?exc_page_fault$`}},
		{flag: "show", values: []string{"fault"}}, {flag: "show", values: []string{`^\[`}},
		{flag: "show_from", values: []string{"handle_mm_fault"}}, {flag: "show_from", values: []string{"^main$"}},
		{flag: "prune_from", values: []string{"^main$"}}, {flag: "prune_from", values: []string{"page_fault$"}},
	}},
	{"kernel", []flagCase{
		{flag: "focus", values: []string{"read_zero"}}, {flag: "ignore", values: []string{"^read$"}},
		{flag: "hide", values: []string{"^(entry_SYSCALL_64_after_hwframe|do_syscall_64)$"}}, {flag: "show", values: []string{"^[kv]"}},
		{flag: "show_from", values: []string{"^ksys_"}}, {flag: "prune_from", values: []string{"^vfs_read$"}},
	}},
}

type flagCase struct {
	flag   string // pprof's name
	values []string
	noop   bool // the values match no frame (on purpose)
}

// options returns the stackfilter options of a pprof flag.
func (c flagCase) options() Options {
	var o Options
	switch c.flag {
	case "focus":
		o.Focus = c.values
	case "ignore":
		o.Ignore = c.values
	case "hide":
		o.Hide = c.values
	case "show":
		o.Show = c.values
	case "show_from":
		o.ShowFrom = c.values
	case "prune_from":
		o.PruneFrom = c.values
	default:
		panic("no pprof flag " + c.flag)
	}
	return o
}

// pprofArg is the flag for go tool pprof: the values as one alternation.
func (c flagCase) pprofArg() string {
	if len(c.values) == 1 {
		return "-" + c.flag + "=" + c.values[0]
	}
	parts := make([]string, len(c.values))
	for i, v := range c.values {
		parts[i] = "(?:" + v + ")"
	}
	return "-" + c.flag + "=" + strings.Join(parts, "|")
}

// TestMatchesPprof: for each of pprof's filter flags, go tool pprof on
// the pprof profile of a real capture and stackfilter on its folded lines
// give the same stacks with the same totals. With -v it prints the
// agreement table (flag x capture).
func TestMatchesPprof(t *testing.T) {
	dir := t.TempDir()
	type cell struct{ equal, total int }
	table := map[[2]string]*cell{}
	var mu sync.Mutex
	t.Run("captures", func(t *testing.T) { // returns when its parallel subtests are done
		for _, a := range agreement {
			if testing.Short() && a.capture != "burst" && a.capture != "go" {
				continue
			}
			t.Run(a.capture, func(t *testing.T) {
				t.Parallel() // go tool pprof runs, one per CPU
				c := loadCapture(t, a.capture, dir)
				// No filter at all: the same stacks to begin with.
				all := filterStacks(t, c.recs, Options{})
				if d := diffStacks(all, pprofStacks(t, c.profile)); d != "" {
					t.Fatalf("unfiltered profile differs from the folded lines:\n%s", d)
				}
				for _, fc := range a.cases {
					t.Run(fc.flag+"="+strings.Join(fc.values, ","), func(t *testing.T) {
						got := filterStacks(t, c.recs, fc.options())
						want := pprofStacks(t, c.profile, fc.pprofArg())
						d := diffStacks(got, want)
						mu.Lock()
						k := [2]string{fc.flag, a.capture}
						if table[k] == nil {
							table[k] = &cell{}
						}
						table[k].total++
						if d == "" {
							table[k].equal++
						}
						mu.Unlock()
						if d != "" {
							t.Errorf("stackfilter %v and go tool pprof %s differ:\n%s", fc.values, fc.pprofArg(), d)
						}
						if changed := diffStacks(got, all) != ""; changed == fc.noop {
							t.Errorf("%s %v: changed the profile: %v, want %v (an RE that matches nothing tests nothing)", fc.flag, fc.values, changed, !fc.noop)
						}
					})
				}
			})
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s", "flag")
	for _, a := range agreement {
		fmt.Fprintf(&b, " %14s", a.capture)
	}
	b.WriteByte('\n')
	for _, flag := range []string{"focus", "ignore", "hide", "show", "show_from", "prune_from"} {
		fmt.Fprintf(&b, "%-12s", flag)
		for _, a := range agreement {
			s := "-"
			if c := table[[2]string{flag, a.capture}]; c != nil {
				s = fmt.Sprintf("%d/%d equal", c.equal, c.total)
			}
			fmt.Fprintf(&b, " %14s", s)
		}
		b.WriteByte('\n')
	}
	t.Logf("stackfilter vs go tool pprof -proto (REs equal / compared):\n%s", b.String())
}

// writeBuilt writes what b built to path.
func writeBuilt(t testing.TB, b *pprof.Builder, path string) {
	t.Helper()
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
