package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Inputs named by path that are streams (a FIFO, bash's <(cmd)) are read
// once, whole: the same output as the regular file, nothing lost.

// fifos replaces each {fifo:FILE} in script by the path of a new FIFO
// (syscall.Mkfifo) fed with FILE by a goroutine; the returned function
// waits for the feeders, unblocking those whose FIFO was never opened.
func fifos(t *testing.T, dir, script string) (string, func()) {
	t.Helper()
	var wg sync.WaitGroup
	var paths []string
	re := regexp.MustCompile(`\{fifo:([^}]+)\}`)
	n := 0
	script = re.ReplaceAllStringFunc(script, func(m string) string {
		file := re.FindStringSubmatch(m)[1]
		n++
		p := filepath.Join(t.TempDir(), fmt.Sprintf("fifo%d", n))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		paths = append(paths, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			if r, err := os.Open(filepath.Join(dir, file)); err == nil {
				io.Copy(w, r) // a reader that stops early ends the copy
				r.Close()
			}
		}()
		return p
	})
	return script, func() {
		for _, p := range paths {
			// A FIFO never opened for reading blocks its feeder's open:
			// open it here, so that the feeder ends.
			if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer r.Close()
			}
		}
		wg.Wait()
	}
}

var sourceAttr = regexp.MustCompile(` source="[^"]*"`)

// normalize drops what names the input (the "source" metadata, the SVG's
// input name) from an output.
func normalize(b []byte) []byte { return sourceAttr.ReplaceAll(b, nil) }

// total sums the counts of folded output (the last count of each line; a
// timed line's count is before its @time and fields), or is the SVG's
// sample total.
func total(t *testing.T, b []byte) float64 {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("<?xml")) {
		return parseSVG(t, b).total()
	}
	var sum float64
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(l, "#") {
			continue
		}
		last := f[len(f)-1]
		for i := 1; i < len(f); i++ {
			if strings.HasPrefix(f[i], "@") {
				last = f[i-1]
			}
		}
		v, _ := strconv.ParseFloat(last, 64)
		sum += v
	}
	return sum
}

// TestNamedStreams runs every tool on a regular file and on the same
// bytes through a FIFO and through process substitution (plain and
// gzipped): totals, metadata and lines equal the file's.
func TestNamedStreams(t *testing.T) {
	dir := inputs(t)
	tests := []struct {
		tool  string
		file  string   // the regular-file run
		forms []string // the same input as streams
	}{
		{"stackcollapse", "stackcollapse burst.txt", []string{
			"stackcollapse <(cat burst.txt)", "stackcollapse <(zcat burst.txt.gz)",
			"stackcollapse <(cat burst.txt.gz)", "stackcollapse {fifo:burst.txt}", "stackcollapse {fifo:burst.txt.gz}",
		}},
		{"stackcollapse", "stackcollapse --no-time burst.txt", []string{
			"stackcollapse --no-time <(cat burst.txt.gz)", "stackcollapse --no-time {fifo:burst.txt}",
		}},
		{"stackcollapse", "stackcollapse timed.folded burst.txt", []string{
			"stackcollapse <(cat timed.folded.gz) {fifo:burst.txt}",
		}},
		{"flamegraph", "flamegraph timed.folded", []string{
			"flamegraph <(cat timed.folded)", "flamegraph <(cat timed.folded.gz)", "flamegraph {fifo:timed.folded}",
		}},
		{"flamegraph", "flamegraph burst.txt", []string{
			"flamegraph <(zcat burst.txt.gz)", "flamegraph {fifo:burst.txt.gz}",
		}},
		{"difffolded", "difffolded before.folded after.folded", []string{
			"difffolded <(cat before.folded) <(cat after.folded.gz)", "difffolded {fifo:before.folded} {fifo:after.folded.gz}",
		}},
		{"timeslice", "timeslice timed.folded", []string{
			"timeslice <(cat timed.folded)", "timeslice <(cat timed.folded.gz)", "timeslice {fifo:timed.folded}",
		}},
		{"timeslice", "timeslice --at 14.8s±1 timed.folded", []string{ // two passes: the stream is copied
			"timeslice --at 14.8s±1 <(cat timed.folded)", "timeslice --at 14.8s±1 {fifo:timed.folded.gz}",
		}},
		{"timeslice", "timeslice --keep-time --at 14.8s±1 burst.txt.gz", []string{
			"timeslice --keep-time --at 14.8s±1 <(zcat burst.txt.gz)", "timeslice --keep-time --at 14.8s±1 {fifo:burst.txt}",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			need(t, tt.tool)
			want := ok(t, dir, tt.file)
			wantTotal := total(t, want.stdout)
			if wantTotal == 0 {
				t.Fatalf("%s: no samples", tt.file)
			}
			for _, form := range tt.forms {
				script, wait := fifos(t, dir, form)
				got := sh(t, dir, script)
				wait()
				if got.code != 0 {
					t.Errorf("%s: exit status %d:\n%s", form, got.code, got)
					continue
				}
				if tot := total(t, got.stdout); tot != wantTotal {
					t.Errorf("%s: total %.0f, want %.0f (the regular file's)", form, tot, wantTotal)
				}
				if !bytes.Equal(normalize(got.stdout), normalize(want.stdout)) {
					t.Errorf("%s: output differs from %s's", form, tt.file)
				}
			}
		})
	}
}

// TestPerfCapturesEverywhere: timeslice and flamegraph read perf script
// text and perf.data as stackcollapse folds them; the README's demo (a
// gzipped perf script capture) is cut right every time.
func TestPerfCapturesEverywhere(t *testing.T) {
	need(t)
	dir := inputs(t)
	ok(t, dir, fmt.Sprintf("cp %q perf.data.gz", filepath.Join(root, "pkg", "source", "testdata", "perf.data.gz")))
	pairs := []struct{ direct, pipeline string }{
		{"timeslice burst.txt", "stackcollapse burst.txt | timeslice"},
		{"timeslice --no-idle --from 10s --to 20s burst.txt.gz", "stackcollapse burst.txt.gz | timeslice --no-idle --from 10s --to 20s"},
		{"timeslice perf.data.gz", "stackcollapse perf.data.gz | timeslice"},
		{"flamegraph burst.txt.gz", "stackcollapse --no-time burst.txt.gz | flamegraph"},
		{"flamegraph --flamechart burst.txt", "stackcollapse burst.txt | flamegraph --flamechart"},
		{"flamegraph perf.data.gz", "stackcollapse --no-time perf.data.gz | flamegraph"},
		{"difffolded burst.txt.gz after.folded", "difffolded <(stackcollapse --no-time burst.txt.gz) after.folded"},
	}
	for _, p := range pairs {
		want := ok(t, dir, p.pipeline)
		got := ok(t, dir, p.direct)
		if !bytes.Equal(normalize(got.stdout), normalize(want.stdout)) || total(t, got.stdout) == 0 {
			t.Errorf("%s differs from %s (totals %.0f, %.0f)", p.direct, p.pipeline, total(t, got.stdout), total(t, want.stdout))
		}
	}
	want := ok(t, dir, "stackcollapse burst.txt.gz | timeslice --at 14s±2.5")
	for i := range 20 {
		got := sh(t, dir, "timeslice --at 14s±2.5 burst.txt.gz")
		if got.code != 0 || !bytes.Equal(got.stdout, want.stdout) || total(t, got.stdout) == 0 {
			t.Fatalf("run %d of 20: not the pipeline's slice:\n%s", i+1, got)
		}
	}
	// Formats that have no time are a right error, not garbage.
	r := sh(t, dir, "timeslice --at 1s±1 "+filepath.Join(root, "pkg", "source", "testdata", "cpu.pprof"))
	if r.code != 1 || !strings.Contains(string(r.stderr), "no line has a time") {
		t.Errorf("pprof input to a window:\n%s", r)
	}
}

// TestOutputErrors: a failed write is exit status 1 with one message
// naming standard output, whatever the tool and wherever the write fails
// (the first one, the middle of the run, --help, --version); a closed
// pipe (| head) stays quiet.
func TestOutputErrors(t *testing.T) {
	dir := inputs(t)
	ok(t, dir, `for i in 1 2 3 4; do cat timed.folded; done > big.folded`)
	runs := []struct{ tool, args string }{
		{"stackcollapse", "burst.txt.gz"},
		{"stackcollapse", "--no-time burst.txt"},
		{"stackcollapse", "big.folded"},
		{"flamegraph", "big.folded"},
		{"flamegraph", "burst.txt.gz"},
		{"difffolded", "before.folded big.folded"},
		{"timeslice", "big.folded"},
		{"timeslice", "--keep-time big.folded"},
		{"timeslice", "--heatmap big.folded"},
	}
	type outcome struct {
		redirect, message string
	}
	outcomes := []outcome{
		{"> /dev/full", "writing standard output: no space left on device"},
		{">&-", "writing standard output: bad file descriptor (it is closed)"},
		{"> out.txt", "writing standard output: file too large"}, // ulimit -f: the middle of the run
	}
	for _, run := range runs {
		need(t, run.tool)
		for _, o := range outcomes {
			cmd := run.tool + " " + run.args + " " + o.redirect
			if o.redirect == "> out.txt" {
				cmd = "ulimit -f 16; " + cmd
			}
			r := sh(t, dir, cmd)
			if r.code != 1 {
				t.Errorf("%s: exit status %d, want 1:\n%s", cmd, r.code, r)
			}
			var msgs []string
			for _, l := range strings.Split(strings.TrimSpace(string(r.stderr)), "\n") {
				if strings.Contains(l, "writing") || strings.Contains(l, "skipped") || strings.Contains(l, "malformed") || strings.Contains(l, "rror") {
					msgs = append(msgs, l)
				}
			}
			if want := run.tool + ": " + o.message; len(msgs) != 1 || msgs[0] != want {
				t.Errorf("%s: messages %q, want only %q", cmd, msgs, want)
			}
		}
	}
	for _, tool := range tools {
		need(t, tool)
		for _, flag := range []string{"--version", "--help"} {
			r := sh(t, dir, tool+" "+flag+" > /dev/full")
			if want := tool + ": writing standard output: no space left on device\n"; r.code != 1 || string(r.stderr) != want {
				t.Errorf("%s %s > /dev/full: exit %d, stderr %q; want 1, %q", tool, flag, r.code, r.stderr, want)
			}
		}
	}
}

// TestSignalRemovesCopy: an interrupted timeslice leaves no copy of its
// standard input in $TMPDIR, and dies of SIGINT or SIGTERM (a shell says
// 130 or 143; a shell loop interrupted by ^C stops, which it does not
// when the command exits with a status of its own).
func TestSignalRemovesCopy(t *testing.T) {
	need(t, "timeslice")
	dir := inputs(t)
	data, err := os.ReadFile(filepath.Join(dir, "timed.folded"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		tmp := t.TempDir()
		cmd := exec.Command(filepath.Join(binDir, "timeslice"), "--at", "5s±1", "-")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Half the input, the pipe left open: timeslice is copying it,
		// into a file it unlinked as soon as it made it (issue 34): the
		// copy is seen among its open files, not in $TMPDIR.
		stdin.Write(data[:len(data)/2])
		copying := false
		for deadline := time.Now().Add(time.Minute); !copying && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // waiting for the copy to exist, not timing anything
			copying = opensUnder(cmd.Process.Pid, tmp)
		}
		if !copying {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("no copy of standard input was made")
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
			t.Errorf("%v: the copy has a name in $TMPDIR while it is read: %v", sig, left)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		stdin.Close()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("%v: ended with %v, want to die of %v", sig, err, sig)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
			t.Errorf("%v: left in $TMPDIR: %v", sig, left)
		}
	}
}

// opensUnder reports whether process pid has a file open under dir (an
// unlinked one included, which /proc shows with " (deleted)").
func opensUnder(pid int, dir string) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fds)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}
