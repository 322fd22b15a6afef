package e2e

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The commands, built by TestMain.
var tools = []string{"stackcollapse", "flamegraph", "difffolded", "timeslice", "stackfilter", "stacktop", "flamekit-fetch"}

var (
	root      string            // module root
	binDir    string            // the freshly built commands
	fakeBin   string            // stand-ins for perf and dmesg
	realPerf  string            // perf as found on PATH before the stand-in, or ""
	buildErrs map[string]string // command -> go build output, when it failed
	basePath  string            // PATH before the test changed it
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	var err error
	root, err = moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "flamekit-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = filepath.Join(tmp, "bin")
	fakeBin = filepath.Join(tmp, "fakebin")
	if err := copyFakes(fakeBin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	realPerf, _ = exec.LookPath("perf")
	buildErrs = build(binDir)
	for name, out := range buildErrs {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/%s failed; its tests will fail:\n%s\n", name, out)
	}
	basePath = os.Getenv("PATH")
	os.Setenv("PATH", binDir+string(os.PathListSeparator)+fakeBin+string(os.PathListSeparator)+basePath)
	os.Setenv("FLAMEKIT_E2E_TESTDATA", filepath.Join(root, "testdata"))
	os.Setenv("FLAMEKIT_E2E_DIR", filepath.Join(root, "e2e"))
	// The tools' symbol table cache: the run's own, not the user's.
	os.Setenv("FLAMEKIT_CACHE", filepath.Join(tmp, "cache"))
	os.Setenv("LC_ALL", "C")
	os.Setenv("TZ", "UTC") // perf's "captured on" is local time: documented wall-clock windows assume UTC
	os.Unsetenv("FLAMEKIT_FAKE_PERF_SCRIPT")
	os.Unsetenv("FLAMEKIT_FAKE_DMESG")
	return m.Run()
}

// moduleRoot is the directory holding go.mod above the test's directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the current directory")
		}
		dir = parent
	}
}

// build compiles each command on its own, so that one that does not build
// yet fails only its own tests.
func build(dir string) map[string]string {
	errs := map[string]string{}
	for _, name := range tools {
		cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/"+name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			errs[name] = strings.TrimSpace(string(out)) + "\n" + err.Error()
		}
	}
	return errs
}

// copyFakes copies testdata/bin into dir with the executable bit set,
// whatever the checkout did with file modes.
func copyFakes(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := filepath.Join(root, "e2e", "testdata", "bin")
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// need fails the test when one of the commands did not build.
func need(t testing.TB, names ...string) {
	t.Helper()
	if len(names) == 0 {
		names = tools
	}
	for _, n := range names {
		if out, bad := buildErrs[n]; bad {
			t.Fatalf("%s does not build, so this test cannot run:\n%s", n, out)
		}
	}
}

// result is what a shell command did.
type result struct {
	script string
	stdout []byte
	stderr []byte
	code   int
	pipe   string // exit statuses of the last pipeline's commands
}

func (r result) String() string {
	return fmt.Sprintf("$ %s\nexit status %d (pipeline: %s)\nstderr:\n%s", r.script, r.code, r.pipe, clip(r.stderr, 2000))
}

// statusTrailer, appended to every script, saves the exit statuses of the
// last pipeline and exits as bash would have (pipefail or not).
const statusTrailer = `
__ps=("${PIPESTATUS[@]}")
echo "${__ps[*]}" >"$FLAMEKIT_E2E_PIPESTATUS"
__st=${__ps[${#__ps[@]}-1]}
if [[ -o pipefail ]]; then for __s in "${__ps[@]}"; do ((__s == 0)) || __st=$__s; done; fi
exit "$__st"`

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + fmt.Sprintf("... (%d more bytes)", len(b)-n)
	}
	return string(b)
}

// sh runs script with bash -o pipefail -c in dir, with env added to the
// environment (NAME=value), and returns what it did.
func sh(t testing.TB, dir, script string, env ...string) result {
	t.Helper()
	return shell(t, []string{"-o", "pipefail"}, dir, script, env...)
}

// shNoPipefail is sh without pipefail, as an interactive user's shell runs.
func shNoPipefail(t testing.TB, dir, script string, env ...string) result {
	t.Helper()
	return shell(t, nil, dir, script, env...)
}

func shell(t testing.TB, opts []string, dir, script string, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append(append([]string{}, opts...), "-c", script+statusTrailer)
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Dir = dir
	statusFile := filepath.Join(t.TempDir(), "pipestatus")
	cmd.Env = append(append(os.Environ(), "FLAMEKIT_E2E_PIPESTATUS="+statusFile), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{script: script, stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running %q: %v", script, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%q did not finish in 5 minutes", script)
	}
	if b, err := os.ReadFile(statusFile); err == nil {
		r.pipe = strings.TrimSpace(string(b))
	}
	return r
}

// ok runs script with sh and fails the test unless it exits 0.
func ok(t testing.TB, dir, script string, env ...string) result {
	t.Helper()
	r := sh(t, dir, script, env...)
	if r.code == 0 {
		return r
	}
	if sigpipeOnly(r.pipe) {
		// The last command succeeded; report, and let the test go on to
		// check what it wrote.
		t.Errorf("want exit status 0:\n%s\n(141 = killed by SIGPIPE: a later command in the pipeline stopped"+
			" reading its input before the end, so under set -o pipefail this pipeline fails)", r)
		return r
	}
	t.Fatalf("want exit status 0:\n%s", r)
	return r
}

// sigpipeOnly reports whether a pipeline's last command succeeded and the
// others either succeeded or were killed by SIGPIPE.
func sigpipeOnly(pipe string) bool {
	f := strings.Fields(pipe)
	if len(f) < 2 || f[len(f)-1] != "0" {
		return false
	}
	for _, s := range f {
		if s != "0" && s != "141" {
			return false
		}
	}
	return true
}

// capture is the path of a bundled perf script capture.
func capture(name string) string {
	return filepath.Join(root, "testdata", "perf", name+".txt.gz")
}

// bundled is capture, for where a variable is named capture.
var bundled = capture

// travel is a file of the bundled two-minute time-travel recording.
func travel(name string) string {
	return filepath.Join(root, "e2e", "testdata", "travel", name)
}

// travelWindow is the time-travel capture: one 120 s window recorded by
// perf-timetravel (perf script --header text, gzipped), with a 2 s burst of
// flamekit_burst about 70 s in; travel("dmesg.txt") holds its kernel log
// lines. See testdata/travel/record.sh.
func travelWindow(t testing.TB) string {
	t.Helper()
	m, _ := filepath.Glob(travel("perf-*-120s.txt.gz"))
	if len(m) != 1 {
		t.Fatalf("want one perf-*-120s.txt.gz in e2e/testdata/travel, found %v", m)
	}
	return m[0]
}

// fakePerf is the environment that makes "perf script" print capture.
func fakePerf(path string) string { return "FLAMEKIT_FAKE_PERF_SCRIPT=" + path }

// readFile reads a file the test made, or fails.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// frame is one rectangle of a flame graph.
type frame struct {
	name    string
	samples float64
	pct     float64 // of the whole graph
	delta   string  // differential graphs: "+1.23" or "-0.50", else ""
	fill    string
	x, y, w float64 // the rectangle
}

// calledBy reports whether f is drawn directly on top of parent, that is,
// f is a callee of parent (default frame height: 16 px).
func (f frame) calledBy(parent frame) bool {
	d := parent.y - f.y
	return d > 0 && d <= 17 && f.x >= parent.x-0.05 && f.x+f.w <= parent.x+parent.w+0.05
}

var titleRE = regexp.MustCompile(`^(.*) \(([0-9,.]+) [^,]*, ([0-9.]+)%(?:; ([+-]?[0-9.]+)%)?\)$`)

// svg is a parsed flame graph.
type svg struct {
	frames []frame
	texts  []string
}

// parseSVG checks that b is well-formed XML with an <svg> root element and
// returns its frames (from the <title> of every <g> and the fill of the
// <rect> that follows it).
func parseSVG(t testing.TB, b []byte) svg {
	t.Helper()
	var s svg
	d := xml.NewDecoder(bytes.NewReader(b))
	var stack []string
	var title *frame
	sawRoot := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed SVG: %v\n%s", err, clip(b, 500))
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				if tok.Name.Local != "svg" {
					t.Fatalf("root element is <%s>, want <svg>", tok.Name.Local)
				}
				sawRoot = true
			}
			stack = append(stack, tok.Name.Local)
			if tok.Name.Local == "rect" && title != nil {
				for _, a := range tok.Attr {
					v, _ := strconv.ParseFloat(a.Value, 64)
					switch a.Name.Local {
					case "fill":
						title.fill = a.Value
					case "x":
						title.x = v
					case "y":
						title.y = v
					case "width":
						title.w = v
					}
				}
				s.frames = append(s.frames, *title)
				title = nil
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			switch stack[len(stack)-1] {
			case "title":
				m := titleRE.FindStringSubmatch(string(tok))
				if m == nil {
					continue
				}
				n, _ := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
				p, _ := strconv.ParseFloat(m[3], 64)
				title = &frame{name: m[1], samples: n, pct: p, delta: m[4]}
			case "text":
				s.texts = append(s.texts, string(tok))
			}
		}
	}
	if !sawRoot {
		t.Fatalf("no <svg> element in %d bytes", len(b))
	}
	return s
}

// pct is the summed percentage of the frames named name.
func (s svg) pct(name string) float64 {
	var p float64
	for _, f := range s.frames {
		if f.name == name {
			p += f.pct
		}
	}
	return p
}

// find returns the frames named name.
func (s svg) find(name string) []frame {
	var out []frame
	for _, f := range s.frames {
		if f.name == name {
			out = append(out, f)
		}
	}
	return out
}

// total is the sample count of the root frame ("all").
func (s svg) total() float64 {
	for _, f := range s.frames {
		if f.name == "all" {
			return f.samples
		}
	}
	return 0
}

// hasSubstring reports whether some frame name contains sub.
func (s svg) hasSubstring(sub string) bool {
	for _, f := range s.frames {
		if strings.Contains(f.name, sub) {
			return true
		}
	}
	return false
}

// svgFile reads and parses a flame graph the test made.
func svgFile(t testing.TB, path string) svg {
	t.Helper()
	s := parseSVG(t, readFile(t, path))
	if len(s.frames) == 0 {
		t.Fatalf("%s: no frames", path)
	}
	return s
}
