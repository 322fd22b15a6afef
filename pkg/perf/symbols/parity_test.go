package symbols

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// parityFrame is one distinct frame line of a real capture's perf script
// output (testdata/parity/NAME.frames.gz, written by
// scripts/capture-symbols).
type parityFrame struct {
	count int
	addr  uint64
	sym   string // as perf printed it: "name+0x1f" or "[unknown]"
	dso   string
}

type parityCapture struct {
	cmd      string
	buildIDs map[string]string // DSO -> build-id
	frames   []parityFrame
}

func readParity(t *testing.T, path string) parityCapture {
	t.Helper()
	data, err := golden.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	c := parityCapture{buildIDs: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		f := strings.Split(l, "\t")
		switch {
		case strings.HasPrefix(l, "# perf record"):
			c.cmd = strings.TrimPrefix(l, "# ")
		case strings.HasPrefix(l, "#"):
		case f[0] == "B" && len(f) == 3:
			c.buildIDs[f[2]] = f[1]
		case f[0] == "F" && len(f) == 5:
			count, err1 := strconv.Atoi(f[1])
			addr, err2 := strconv.ParseUint(f[2], 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s:%d: bad frame line %q", path, n, l)
			}
			c.frames = append(c.frames, parityFrame{count, addr, f[3], f[4]})
		default:
			t.Fatalf("%s:%d: bad line %q", path, n, l)
		}
	}
	return c
}

var perfMapName = regexp.MustCompile(`^/tmp/perf-([0-9]+)\.map$`)

// TestParityRealCaptures resolves every frame perf script printed for the
// real captures of testdata/parity and compares name+offset with what
// perf printed. The DSOs must be on this machine (or in its build-id
// cache): frames of objects that are not are skipped, and a capture
// whose objects are all absent is skipped. JIT frames use the perf map
// kept with the capture.
func TestParityRealCaptures(t *testing.T) {
	files, err := filepath.Glob("testdata/parity/*.frames.gz")
	if err != nil || len(files) == 0 {
		t.Fatal("no capture in testdata/parity")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".frames.gz")
		t.Run(name, func(t *testing.T) {
			c := readParity(t, file)
			mapDir := t.TempDir()
			if m, err := golden.Read(filepath.Join("testdata/parity", name+".perf-map.gz")); err == nil {
				for _, f := range c.frames {
					if p := perfMapName.FindStringSubmatch(f.dso); p != nil {
						os.WriteFile(filepath.Join(mapDir, "perf-"+p[1]+".map"), m, 0o644)
						break
					}
				}
			}
			r := NewResolver(Options{PerfMapDir: mapDir})
			// The frames were printed with this machine's files (and
			// debug packages); elsewhere the same paths may hold other
			// symbols. The capture's kernel, known here only on the
			// machine that recorded it, tells.
			if id, ok := c.buildIDs["[kernel.kallsyms]"]; ok && r.KernelSymbols(id) == nil {
				t.Skipf("%s was recorded on another machine (its kernel %s is neither running nor in the build-id cache)", name, id)
			}
			var equal, differ, absent, unmapped int
			shown := 0
			for _, f := range c.frames {
				var s Symbol
				var ok bool
				switch {
				case f.dso == "[unknown]":
					unmapped += f.count
					continue
				case f.dso == "[kernel.kallsyms]":
					id := c.buildIDs[f.dso]
					if r.KernelSymbols(id) == nil {
						absent += f.count
						continue
					}
					s, ok = r.Kernel(id, f.addr)
				default:
					id := c.buildIDs[f.dso]
					tb := r.DSOTable(f.dso, id)
					if tb == nil && f.sym != "[unknown]" {
						absent += f.count
						continue
					}
					s, ok = tb.Lookup(f.addr)
				}
				got := oracleText(s, ok)
				if got == f.sym {
					equal += f.count
					continue
				}
				differ += f.count
				if shown++; shown <= 10 {
					t.Errorf("%s %x: perf printed %q, resolver %q", f.dso, f.addr, f.sym, got)
				}
			}
			if equal+differ == 0 {
				t.Skipf("%s: none of its %d frames' objects is on this machine (%s)", name, absent, c.cmd)
			}
			t.Logf("%s (%s): %d frames equal, %d differ; %d skipped (object absent here), %d unmapped",
				name, c.cmd, equal, differ, absent, unmapped)
		})
	}
}
