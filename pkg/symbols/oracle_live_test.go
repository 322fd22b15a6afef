package symbols

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"os/exec"
	"strings"
	"testing"
)

// TestOracleLive compares the resolver with perf script, address by
// address, on objects of this machine: libc and the dynamic loader
// (.symtab from libc6-dbg's debug file, .dynsym and PLT from the
// library), the running kernel's kallsyms, and any file listed in
// $FLAMEKIT_ORACLE_DSOS (colon-separated). It needs perf.
func TestOracleLive(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed")
	}
	limit := 3000
	if testing.Short() {
		limit = 300
	}
	if os.Getenv("FLAMEKIT_ORACLE_FULL") != "" {
		limit = 0
	}
	r := NewResolver(Options{})
	var objs []oracleObj
	paths := []string{"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"}
	if extra := os.Getenv("FLAMEKIT_ORACLE_DSOS"); extra != "" {
		paths = append(paths, strings.Split(extra, ":")...)
	}
	base := uint64(0x7f0000000000)
	for _, p := range paths {
		tb := r.DSOTable(p, "")
		if tb == nil {
			t.Logf("%s: no symbols here, skipped", p)
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		addrs := probeAddrs(tb, limit)
		size := uint64(fi.Size())
		for _, a := range addrs {
			size = max(size, a+1)
		}
		size = (size + 1<<20 + 0xfff) &^ 0xfff
		objs = append(objs, oracleObj{path: p, base: base, size: size, addrs: addrs})
		base += size + 1<<24
	}
	if k := r.KernelSymbols(""); k != nil {
		if data, err := os.ReadFile(k.Path); err == nil {
			if text, ok := kallsymsFunctionAddr(data, "_text"); ok {
				objs = append(objs, oracleObj{kernel: true, path: "[kernel.kallsyms]", textAddr: text, addrs: probeAddrs(k.Table, limit)})
			}
		}
	}
	if len(objs) == 0 {
		t.Skip("no object with symbols to check")
	}
	checkOracle(t, perf, r, objs)
}

// oraclePerfMapPID is the pid of the synthetic JIT process: above any
// pid_max, so no real process's perf map is overwritten.
const oraclePerfMapPID = 4000000

// TestOraclePerfMapLive checks perf map lookups against perf script with
// a generated map full of what perf does not fix up: overlapping
// entries, entries of size zero, duplicates, names with blanks, numbers
// with and without 0x, names too short to keep, a last line without a
// newline. It writes /tmp/perf-4000000.map for the time of the test.
func TestOraclePerfMapLive(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed")
	}
	mapPath := fmt.Sprintf("/tmp/perf-%d.map", oraclePerfMapPID)
	if _, err := os.Stat(mapPath); err == nil {
		t.Skipf("%s exists and is not ours", mapPath)
	}
	content := syntheticPerfMap(1)
	if err := os.WriteFile(mapPath, content, 0o644); err != nil {
		t.Skipf("cannot write %s: %v", mapPath, err)
	}
	defer os.Remove(mapPath)

	tb, _ := ParsePerfMap(content)
	const mapStart, mapLen = 0x40000000, 0x10000000
	var addrs []uint64
	for _, a := range probeAddrs(tb, 0) {
		if a >= mapStart && a < mapStart+mapLen {
			addrs = append(addrs, a)
		}
	}
	data := filepath.Join(t.TempDir(), "oracle.data")
	obj := oracleObj{path: "//anon", base: mapStart, size: mapLen}
	for _, a := range addrs {
		obj.addrs = append(obj.addrs, a-mapStart)
	}
	if err := writeOracleDataPID(data, []oracleObj{obj}, oraclePerfMapPID); err != nil {
		t.Fatal(err)
	}
	syms, dsos := perfScriptLines(t, perf, data)
	if len(syms) != len(addrs) {
		t.Fatalf("perf script printed %d samples, want %d", len(syms), len(addrs))
	}
	bad := 0
	for i, a := range addrs {
		s, ok := tb.Lookup(a)
		got := "[unknown]"
		if ok {
			got = s.Name + "+0x" + strconv.FormatUint(s.PrintedOffset(mapStart), 16)
		}
		if got != syms[i] {
			if bad++; bad <= 10 {
				t.Errorf("%#x (%s): perf says %q, table %q", a, dsos[i], syms[i], got)
			}
		}
	}
	t.Logf("%d of %d perf map addresses as perf resolves them", len(addrs)-bad, len(addrs))
}
