package perfdata

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"flamekit/internal/testkit/golden"
	"flamekit/internal/testkit/testcapture"
	collapsepkg "flamekit/pkg/fold/collapse"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"
)

// captures are the real perf.data files of testdata (see
// testdata/README.md), each with the perf script --header text it is
// compared with. oneLine marks captures without call chains, which perf
// prints one line per sample.
// newKernel marks captures made on a kernel whose kallsyms is not
// committed: their kernel frames take their symbols from the text.
var captures = []struct {
	name      string
	oneLine   bool
	newKernel bool
}{
	{"cpp", false, false}, {"go", false, false}, {"rust", false, false}, {"java", false, false},
	{"node", false, false}, {"zstd", false, false}, {"mixed", false, false},
	{"nocallgraph", true, false}, {"syswide", false, false}, {"sched", false, false},
	{"tracepoints", false, false}, {"mono", false, false},
	{"nobuildid", false, true}, {"switch", false, true},
}

// runningVDSO is the build-id of the vdso of the machine the captures
// without build-ids (nobuildid, switch) were made on: perf took their
// vdso symbols from it, and the tests give it to the Resolver as the
// running vdso (symbols.Options.VDSO).
const runningVDSO = "b0af7178ba47aca58d16966d2c4d17c913589189"

// knownDiffs counts, per capture, the samples whose text differs from perf
// script's for a reason outside this package, and says why. The tests
// fail when the count changes either way.
var knownDiffs = map[string]struct {
	samples int
	why     string
}{}

// flagSets are the stackcollapse flag sets of pkg/perf/perfscript's compat
// tests.
var flagSets = []struct {
	name string
	opt  collapsepkg.Options
}{
	{"none", collapsepkg.Options{}},
	{"pid", collapsepkg.Options{PID: true}},
	{"tid", collapsepkg.Options{TID: true}},
	{"kernel", collapsepkg.Options{Kernel: true}},
	{"jit", collapsepkg.Options{JIT: true}},
	{"all", collapsepkg.Options{Kernel: true, JIT: true}},
	{"addrs", collapsepkg.Options{Addrs: true}},
}

const ctimeLayout = "Mon Jan _2 15:04:05 2006"

// extract writes testdata/NAME.data.gz to a temporary file and gives it
// the modification time the script text says it had ("captured on"),
// which perf script and Capture print.
func extract(t testing.TB, name string, script []byte) string {
	t.Helper()
	data, err := golden.Read(filepath.Join("testdata", name+".data.gz"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".data")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if v := headerValue(script, "captured on"); v != "" {
		if mt, err := time.ParseInLocation(ctimeLayout, v, time.Local); err == nil {
			if err := os.Chtimes(path, mt, mt); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

// openCapture opens the committed capture name (testdata/NAME.data.gz,
// extracted) as a foreign one, closed when t ends, and returns it with
// the perf script text committed beside it.
func openCapture(t testing.TB, name string) (*Reader, []byte) {
	t.Helper()
	script, err := golden.Read(filepath.Join("testdata", name+".script.gz"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(extract(t, name, script), Options{AllowForeign: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, script
}

// headerValue returns the value of a "# key : value" line.
func headerValue(script []byte, key string) string {
	for _, line := range strings.Split(string(script), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line[1:], ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// norm collapses runs of blanks and trims.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// scriptRecords splits perf script text into samples, each normalised to
// one string: the header line, then one line per frame.
func scriptRecords(text []byte) []string {
	var out []string
	var cur []string
	flush := func() {
		if cur != nil {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == '\t':
			cur = append(cur, norm(line))
		default:
			flush()
			cur = []string{norm(line)}
		}
	}
	flush()
	return out
}

// splitFrame splits a normalised frame "ADDR SYMBOL (DSO)" into its parts;
// the DSO is the last balanced parenthesised group.
func splitFrame(f string) (addr, sym, dso string, ok bool) {
	if !strings.HasSuffix(f, ")") {
		return "", "", "", false
	}
	depth := 0
	for i := len(f) - 1; i >= 0; i-- {
		switch f[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i < 1 || f[i-1] != ' ' {
					return "", "", "", false
				}
				dso = f[i+1 : len(f)-1]
				head := f[:i-1]
				addr, sym, _ = strings.Cut(head, " ")
				return addr, sym, dso, true
			}
		}
	}
	return "", "", "", false
}

// oracle maps a frame's (DSO, address) as perf printed them to the symbol
// perf printed: the symbols of a capture without the machine's files.
type oracle map[string]string

func newOracle(records []string, oneLine bool) oracle {
	o := oracle{}
	add := func(frame string) {
		addr, sym, dso, ok := splitFrame(frame)
		if !ok {
			return
		}
		k := dso + "\x00" + addr
		if prev, dup := o[k]; dup && prev != sym {
			o[k] = "\x00ambiguous"
			return
		}
		o[k] = sym
	}
	for _, r := range records {
		lines := strings.Split(r, "\n")
		if oneLine {
			if f, ok := inlineFrame(lines[0]); ok {
				add(f)
			}
			continue
		}
		for _, f := range lines[1:] {
			add(f)
		}
	}
	return o
}

// inlineFrame returns the frame printed on the header line of a sample
// without a call chain: what follows the event name.
func inlineFrame(h string) (string, bool) {
	toks := strings.Fields(h)
	for i, tk := range toks {
		if strings.HasSuffix(tk, ":") && i > 0 && !strings.Contains(tk[:len(tk)-1], ".") && i+1 < len(toks) {
			// the event: the first "name:" token after the time
			if i >= 2 && strings.HasSuffix(toks[i-1], ":") || i >= 2 {
				rest := strings.Join(toks[i+1:], " ")
				if _, _, _, ok := splitFrame(rest); ok {
					return rest, true
				}
			}
		}
	}
	return "", false
}

// fill gives the frames of s that have no symbol the symbols of the
// oracle, and returns how many it filled, counted per DSO in perDSO.
func (o oracle) fill(s *sample.Sample, perDSO map[string]int) int {
	n := 0
	for i := range s.Frames {
		f := &s.Frames[i]
		if string(f.Symbol) != "[unknown]" {
			continue
		}
		if sym, ok := o[string(f.DSO)+"\x00"+string(f.Addr)]; ok && sym != "\x00ambiguous" && sym != "[unknown]" {
			f.Symbol = []byte(sym)
			perDSO[string(f.DSO)]++
			n++
		}
	}
	return n
}

// ours reads a capture and returns perf-script-like text (header block and
// samples), its normalised records, and the reader's stats.
type ours struct {
	text    []byte
	records []string
	stats   Stats
	capture sample.Capture
	filled  int // frames symbolised from the oracle
	// filledDSO counts them per DSO.
	filledDSO map[string]int
}

func readOurs(t testing.TB, path string, opt Options, o oracle, oneLine bool) ours {
	t.Helper()
	r, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := ours{filledDSO: map[string]int{}}
	res.capture = *r.Capture()
	res.text = appendHeader(nil, r.Capture())
	var one []byte
	for r.Next() {
		s := r.Sample()
		if o != nil {
			res.filled += o.fill(s, res.filledDSO)
		}
		one = sample.AppendScript(one[:0], s)
		if !r.PrintsFrames() {
			// perf prints the comm right-aligned to 16 columns and no
			// blank line after the sample.
			pad := strings.Repeat(" ", max(0, 16-len(s.Comm)))
			one = append([]byte(pad), one[:len(one)-1]...)
		}
		res.text = append(res.text, one...)
		lines := strings.Split(strings.TrimRight(string(one), "\n"), "\n")
		for i := range lines {
			lines[i] = norm(lines[i])
		}
		if oneLine && len(lines) == 2 {
			lines = []string{lines[0] + " " + lines[1]}
		}
		res.records = append(res.records, strings.Join(lines, "\n"))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	res.stats = r.Stats()
	return res
}

// appendHeader writes the lines of perf script --header that the text
// parser reads, from a Capture.
func appendHeader(dst []byte, c *sample.Capture) []byte {
	add := func(k, v string) {
		if v != "" {
			dst = fmt.Appendf(dst, "# %s : %s\n", k, v)
		}
	}
	dst = append(dst, "# ========\n"...)
	add("captured on", c.CapturedOn)
	add("hostname", c.Host)
	add("os release", c.OSRelease)
	add("perf version", c.PerfVersion)
	add("cmdline", c.Cmdline)
	add("time of first sample", c.First)
	add("time of last sample", c.Last)
	if c.Clock != "" {
		dst = fmt.Appendf(dst, "# clockid: %s (0)\n", c.Clock)
		if w, err := time.Parse(time.RFC3339Nano, c.RefWall); err == nil {
			frac := c.RefWall[strings.LastIndexByte(c.RefWall, '.')+1 : len(c.RefWall)-1]
			dst = fmt.Appendf(dst, "# reference time: x = %d.%s (TOD) = %s (%s)\n", w.Unix(), frac, c.RefPerf, c.Clock)
		}
	}
	return append(dst, "# ========\n#\n"...)
}

// collapse folds perf script text as stackcollapse does.
func collapse(t testing.TB, text []byte, opt collapsepkg.Options) string {
	t.Helper()
	f, err := testcapture.FoldText("text", text, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(f.Text)
}

// lineDiff returns the lines only in a and only in b (as multisets).
func lineDiff(a, b string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	for l, n := range count {
		for ; n > 0; n-- {
			onlyA = append(onlyA, l)
		}
		for ; n < 0; n++ {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB
}

// compareRecords compares normalised samples one by one; it returns how
// many differ and a description of the first ones.
func compareRecords(want, got []string) (differ int, report string) {
	var sb strings.Builder
	n := max(len(want), len(got))
	for i := 0; i < n; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w == g {
			continue
		}
		differ++
		if differ <= 3 {
			fmt.Fprintf(&sb, "sample %d:\n--- perf script\n%s\n--- perfdata\n%s\n", i, w, g)
		}
	}
	return differ, sb.String()
}

// TestScriptParity reads every capture and compares its samples with the
// perf script text committed next to it: sample by sample (fields,
// addresses, DSOs; symbols come from the text, as they depend on the
// machine's files), then folded by perfscript's Collapser with every flag
// set, timed and classic.
func TestScriptParity(t *testing.T) {
	for _, c := range captures {
		t.Run(c.name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", c.name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			want := scriptRecords(script)
			o := newOracle(want, c.oneLine)
			path := extract(t, c.name, script)
			sy := byBuildID{Resolver: committedResolver(t), kernelFromText: c.newKernel}
			got := readOurs(t, path, Options{Symbolizer: sy, AllowForeign: true}, o, c.oneLine)
			checkSamples(t, c.name, want, got.records)
			t.Logf("%d samples; %d frames symbolised from the committed text (JIT, no build-id recorded, or not on this machine): %v", len(got.records), got.filled, got.filledDSO)
			if n := got.filledDSO["[vdso]"]; n > 0 {
				t.Errorf("%d [vdso] frames without a symbol (filled from the text): the vdso's symbols were not found", n)
			}
			checkFolded(t, c.name, script, got.text)
		})
	}
}

// checkSamples compares the samples one by one.
func checkSamples(t *testing.T, name string, want, got []string) {
	t.Helper()
	d, rep := compareRecords(want, got)
	if k := knownDiffs[name]; d != k.samples {
		t.Errorf("%d of %d samples differ from perf script's (%d ours), want %d (%s):\n%s", d, len(want), len(got), k.samples, k.why, rep)
	}
}

// checkFolded compares the folded output of both texts, for every flag
// set, timed and classic.
func checkFolded(t *testing.T, name string, script, ours []byte) {
	t.Helper()
	known := knownDiffs[name].samples
	for _, fs := range flagSets {
		for _, noTime := range []bool{false, true} {
			opt := fs.opt
			opt.NoTime = noTime
			w := collapse(t, script, opt)
			g := collapse(t, ours, opt)
			if a, b := lineDiff(w, g); len(a) > known || len(b) > known || len(a) != len(b) {
				t.Errorf("flags %s, no-time %v: %d folded lines only from perf script, %d only ours:\nperf: %.300q\nours: %.300q",
					fs.name, noTime, len(a), len(b), a, b)
			}
		}
	}
}

// TestLiveParity runs the machine's perf script on every capture and
// compares as TestScriptParity does: it checks the committed text is
// still what this perf prints.
func TestLiveParity(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not on PATH: the live comparison needs it")
	}
	for _, c := range captures {
		t.Run(c.name, func(t *testing.T) {
			committed, err := golden.Read(filepath.Join("testdata", c.name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := extract(t, c.name, committed)
			cmd := exec.Command(perf, "script", "--header", "-i", path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			script, err := cmd.Output()
			if err != nil {
				t.Skipf("perf script failed: %v: %s", err, stderr.Bytes())
			}
			want := scriptRecords(script)
			got := readOurs(t, path, Options{Symbolizer: symbols.NewResolver(symbols.Options{}), AllowForeign: true}, nil, c.oneLine)
			checkSamples(t, c.name, want, got.records)
			checkFolded(t, c.name, script, got.text)
		})
	}
}

// byBuildID is a Resolver that resolves user addresses only in files
// whose build-id the capture recorded, and none from perf maps: another
// machine may have other files at the same paths (a capture made with
// perf record -z records no build-ids), and /tmp/perf-PID.map files are
// gone after a reboot. The tests take those symbols from the committed
// text instead.
//
// The vdso is resolved without a build-id too, as perf resolves it, with
// the committed image of the running machine's. With kernelFromText, the
// kernel's symbols are not looked up either (the capture's kernel is not
// the committed kallsyms').
type byBuildID struct {
	*symbols.Resolver
	kernelFromText bool
}

func (b byBuildID) DSO(path, buildID string, addr uint64) (symbols.Symbol, bool) {
	if buildID == "" && path != "[vdso]" {
		return symbols.Symbol{}, false
	}
	return b.Resolver.DSO(path, buildID, addr)
}

func (b byBuildID) Kernel(buildID string, addr uint64) (symbols.Symbol, bool) {
	if b.kernelFromText {
		return symbols.Symbol{}, false
	}
	return b.Resolver.Kernel(buildID, addr)
}

func (b byBuildID) Module(buildID, module string, addr uint64) (symbols.Symbol, bool) {
	if b.kernelFromText {
		return symbols.Symbol{}, false
	}
	return b.Resolver.Module(buildID, module, addr)
}

func (b byBuildID) KernelSymbols(buildID string) *symbols.Kernel {
	if b.kernelFromText {
		return nil
	}
	return b.Resolver.KernelSymbols(buildID)
}

func (b byBuildID) PerfMap(pid int, addr, t uint64) (symbols.Symbol, bool) {
	return symbols.Symbol{}, false
}

// committedResolver resolves kernel and vdso addresses with the copies
// committed in testdata (kallsyms-BUILDID.gz and vdso-BUILDID.gz, saved by
// perf when the captures were made, laid out here as perf's build-id
// cache), and user addresses with the machine's files, found by build-id
// as perf finds them. The kallsyms copy also stands for the running
// kernel, for captures without build-ids (perf record -z records none).
func committedResolver(t testing.TB) *symbols.Resolver {
	t.Helper()
	cache := t.TempDir()
	kallsyms, vdso := "/nonexistent", "-"
	for _, kind := range []struct{ prefix, dir, name string }{
		{"kallsyms-", "[kernel.kallsyms]", "kallsyms"},
		{"vdso-", "[vdso]", "vdso"},
	} {
		files, _ := filepath.Glob("testdata/" + kind.prefix + "*.gz")
		for _, f := range files {
			id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), kind.prefix), ".gz")
			data, err := golden.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(cache, kind.dir, id)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, kind.name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if kind.name == "kallsyms" {
				kallsyms = path
			}
			if kind.name == "vdso" && id == runningVDSO {
				vdso = path
			}
		}
	}
	return symbols.NewResolver(symbols.Options{BuildIDDir: cache, Kallsyms: kallsyms, KernelNotes: "/nonexistent", VDSO: vdso})
}
