package symbols

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	// The vdso of every capture in the build-id cache.
	if ids, err := filepath.Glob(filepath.Join(r.opts.BuildIDDir, "[[]vdso]", "*", "vdso")); err == nil {
		for _, p := range ids {
			id := filepath.Base(filepath.Dir(p))
			tb := r.DSOTable("[vdso]", id)
			if tb == nil {
				continue
			}
			objs = append(objs, oracleObj{path: "[vdso]", buildID: id, base: base, size: 1 << 16, addrs: probeAddrs(tb, limit)})
			base += 1 << 24
		}
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
	if err := writeOracleDataPID(data, []oracleObj{obj}, oraclePerfMapPID, ""); err != nil {
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

// fixtureKernelID is the build-id the kallsyms fixture is filed under in
// a temporary build-id cache.
const fixtureKernelID = "0123456789abcdef0123456789abcdef01234567"

// fixtureCache makes a build-id cache holding the kallsyms fixture.
func fixtureCache(t *testing.T) string {
	dir := t.TempDir()
	kdir := filepath.Join(dir, "[kernel.kallsyms]", fixtureKernelID)
	if err := os.MkdirAll(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kdir, "kallsyms"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOracleKallsymsLive checks the kallsyms fixture (aliases, types
// kept and dropped, modules, the entry trampoline) against perf script,
// with the fixture filed in a temporary build-id cache under a made-up
// build-id and two module maps, [mod_a] and [mod_b].
func TestOracleKallsymsLive(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed")
	}
	cache := fixtureCache(t)
	r := NewResolver(Options{BuildIDDir: cache, Kallsyms: "/nonexistent"})
	k := r.KernelSymbols(fixtureKernelID)
	if k == nil {
		t.Fatalf("fixture not loaded: %v", r.Missing())
	}
	const text, modBase = 0xffffffff81000000, 0xffffffffa0000000
	kern := oracleObj{kernel: true, path: "[kernel.kallsyms]", textAddr: text, textLen: modBase - text}
	for _, a := range probeAddrs(k.Table, 0) {
		if a >= text && a < modBase {
			kern.addrs = append(kern.addrs, a)
		}
	}
	modA := oracleObj{kernel: true, module: "[mod_a]", path: "mod_a", base: modBase, size: 0x100}
	modB := oracleObj{kernel: true, module: "[mod_b]", path: "mod_b", base: modBase + 0x100, size: 0x100}
	for _, m := range []*oracleObj{&modA, &modB} {
		for a := m.base; a < m.base+m.size; a += 0x10 {
			m.addrs = append(m.addrs, a, a+1)
		}
	}
	objs := []oracleObj{kern, modA, modB}
	data := filepath.Join(t.TempDir(), "oracle.data")
	if err := writeOracleDataPID(data, objs, oraclePID, fixtureKernelID); err != nil {
		t.Fatal(err)
	}
	syms, _ := perfScriptLines(t, perf, data, "--buildid-dir", cache)
	i := 0
	for _, o := range objs {
		bad := 0
		for _, a := range o.addrs {
			var got string
			if o.module != "" {
				got = oracleText(r.Module(fixtureKernelID, o.module, a))
			} else {
				got = oracleText(r.Kernel(fixtureKernelID, a))
			}
			if i >= len(syms) {
				t.Fatalf("perf script printed %d samples, want more", len(syms))
			}
			if got != syms[i] {
				if bad++; bad <= 10 {
					t.Errorf("%s %#x: perf says %q, resolver %q", o.path, a, syms[i], got)
				}
			}
			i++
		}
		t.Logf("%s: %d of %d addresses as perf resolves them", o.path, len(o.addrs)-bad, len(o.addrs))
	}
}

// fixtureFiles lays out the ELF fixtures for a test: bin/ holds the
// fixture, its stripped copy with the debug file its .gnu_debuglink
// names, "replaced" (the fixture with another build-id, standing for a
// binary rebuilt since the capture); cache is a build-id cache holding
// the fixture under its build-id. It returns the directories and the
// fixture's build-id.
func fixtureFiles(t *testing.T) (bin, cache, id string) {
	t.Helper()
	root := t.TempDir()
	bin, cache = filepath.Join(root, "bin"), filepath.Join(root, "cache")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fixture", "fixture.stripped", "fixture.debug", "libfixture.so"} {
		copyFile(t, filepath.Join("testdata/elf", f), filepath.Join(bin, f))
	}
	ef, err := openELF(filepath.Join(bin, "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	id = ef.buildID()
	ef.Close()
	if id == "" {
		t.Fatal("fixture has no build-id")
	}
	// "replaced": the same bytes with the build-id's first byte changed.
	data, err := os.ReadFile(filepath.Join(bin, "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(id)
	i := bytes.Index(data, raw)
	if i < 0 {
		t.Fatal("build-id bytes not found in the fixture")
	}
	data = bytes.Clone(data)
	data[i] ^= 0xff
	if err := os.WriteFile(filepath.Join(bin, "replaced"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	// perf's cache layout: .build-id/xx/rest -> ../../PATH/ID, holding elf.
	entry := filepath.Join(cache, "somewhere", "fixture", id)
	if err := os.MkdirAll(entry, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "testdata/elf/fixture", filepath.Join(entry, "elf"))
	link := filepath.Join(cache, ".build-id", id[:2])
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "somewhere", "fixture", id), filepath.Join(link, id[2:])); err != nil {
		t.Fatal(err)
	}
	return bin, cache, id
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestOracleELFFixturesLive checks the ELF fixtures against perf script:
// the fixture itself (.symtab, PLT), its stripped copy (symbols from the
// debug file its .gnu_debuglink names, PLT from the copy), a file
// replaced since the capture (found in the build-id cache by the
// recorded build-id), and a file whose build-id matches nothing (never
// used: [unknown] everywhere).
func TestOracleELFFixturesLive(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed")
	}
	bin, cache, id := fixtureFiles(t)
	r := NewResolver(Options{BuildIDDir: cache, DebugDir: t.TempDir()})
	tb := r.DSOTable(filepath.Join(bin, "fixture"), id)
	if tb == nil {
		t.Fatalf("fixture not loaded: %v", r.Missing())
	}
	addrs := probeAddrs(tb, 0)
	if lib := r.DSOTable(filepath.Join(bin, "libfixture.so"), ""); lib != nil {
		addrs = append(addrs, probeAddrs(lib, 0)...)
	}
	const other = "feedfacefeedfacefeedfacefeedfacefeedface"
	var objs []oracleObj
	base := uint64(0x7f0000000000)
	// The stripped copy alone, its debug file out of reach.
	alone := filepath.Join(t.TempDir(), "alone")
	os.MkdirAll(alone, 0o755)
	copyFile(t, filepath.Join(bin, "fixture.stripped"), filepath.Join(alone, "fixture.stripped"))
	for _, c := range []struct{ name, id string }{
		{"fixture", id}, {"fixture.stripped", id}, {"replaced", id}, {"replaced", other}, {alone + "/fixture.stripped", ""},
		{"libfixture.so", ""},
	} {
		if !filepath.IsAbs(c.name) {
			c.name = filepath.Join(bin, c.name)
		}
		objs = append(objs, oracleObj{path: c.name, buildID: c.id, base: base, size: 1 << 20, addrs: addrs})
		base += 1 << 24
	}
	data := filepath.Join(t.TempDir(), "oracle.data")
	if err := writeOracleData(data, objs); err != nil {
		t.Fatal(err)
	}
	syms, _ := perfScriptLines(t, perf, data, "--buildid-dir", cache)
	i := 0
	for _, o := range objs {
		bad := 0
		for _, a := range o.addrs {
			got := oracleText(r.DSO(o.path, o.buildID, a))
			if i >= len(syms) {
				t.Fatalf("perf script printed %d samples, want more", len(syms))
			}
			if got != syms[i] {
				if bad++; bad <= 10 {
					t.Errorf("%s (build-id %s) %#x: perf says %q, resolver %q", o.path, o.buildID, a, syms[i], got)
				}
			}
			i++
		}
		t.Logf("%s (build-id %.8s…): %d of %d addresses as perf resolves them", filepath.Base(o.path), o.buildID, len(o.addrs)-bad, len(o.addrs))
	}
	if m := r.Missing(); len(m) != 1 || m[0].BuildID != other || !errors.Is(m[0].Err, ErrBuildIDMismatch) {
		t.Errorf("Missing() = %v, want the replaced file under build-id %s", m, other)
	}
}
