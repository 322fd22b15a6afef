package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	collapsepkg "flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"

	"github.com/klauspost/compress/zstd"
)

// readData returns the bytes of testdata/NAME.data.gz.
func readData(t testing.TB, name string) []byte {
	t.Helper()
	b, err := golden.Read(filepath.Join("testdata", name+".data.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTemp writes data to a temporary file and returns its path.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// records calls f with the file offset, type and bytes of every record of
// a perf.data file's data section (not decompressed).
func records(t testing.TB, data []byte, f func(off int, typ uint32, rec []byte)) {
	t.Helper()
	off := int(binary.LittleEndian.Uint64(data[40:]))
	end := off + int(binary.LittleEndian.Uint64(data[48:]))
	for off+8 <= end {
		size := int(binary.LittleEndian.Uint16(data[off+6:]))
		if size < 8 {
			t.Fatalf("record at %#x has size %d", off, size)
		}
		f(off, binary.LittleEndian.Uint32(data[off:]), data[off:off+size])
		off += size
	}
}

// attrOffset returns the file offset of the first perf_event_attr.
func attrOffset(data []byte) int { return int(binary.LittleEndian.Uint64(data[24:])) }

func TestUnsupported(t *testing.T) {
	cpp := readData(t, "cpp")
	lbr := bytes.Clone(cpp)
	a := attrOffset(lbr)
	st := binary.LittleEndian.Uint64(lbr[a+24:])
	binary.LittleEndian.PutUint64(lbr[a+24:], st|sampleBranchStack)
	binary.LittleEndian.PutUint64(lbr[a+72:], branchCallStack)
	bigEndian := bytes.Clone(cpp)
	copy(bigEndian, "2ELIFREP")
	v1 := bytes.Clone(cpp)
	copy(v1, "PERFFILE")
	// A DWARF capture of another architecture: only x86-64 is unwound.
	otherArch := bytes.ReplaceAll(readData(t, "dwarf"), []byte("x86_64\x00"), []byte("mips64\x00"))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"dwarf mips64", otherArch, "--call-graph dwarf capture of mips64"},
		{"pipe", readData(t, "pipe"), "pipe-mode"},
		{"lbr", lbr, "--call-graph lbr"},
		{"big-endian", bigEndian, "big-endian"},
		{"version 1", v1, "version 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "x.data", tc.data)
			_, err := Open(path, Options{})
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("Open: %v, want an *UnsupportedError", err)
			}
			if !strings.Contains(ue.Reason, tc.want) || ue.File != path || !strings.Contains(err.Error(), "needs perf script") {
				t.Errorf("error %q, want a reason with %q naming the file", err, tc.want)
			}
		})
	}
}

// TestForeign checks that a capture from another host whose objects are
// not found here by build-id is refused, unless AllowForeign.
func TestForeign(t *testing.T) {
	path := writeTemp(t, "cpp.data", readData(t, "cpp"))
	empty := t.TempDir()
	res := func() *symbols.Resolver {
		return symbols.NewResolver(symbols.Options{BuildIDDir: empty, DebugDir: empty, Kallsyms: "/nonexistent",
			KernelNotes: "/nonexistent", PerfMapDir: empty})
	}
	defer func(h func() (string, error)) { hostname = h }(hostname)
	hostname = func() (string, error) { return "elsewhere", nil }

	_, err := Open(path, Options{Symbolizer: res()})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, `captured on host "vm"`) || !strings.Contains(ue.Reason, "[kernel.kallsyms]") {
		t.Fatalf("Open of a foreign capture: %v, want an *UnsupportedError naming the host and the kernel", err)
	}
	r, err := Open(path, Options{Symbolizer: res(), AllowForeign: true})
	if err != nil {
		t.Fatalf("Open with AllowForeign: %v", err)
	}
	n := 0
	for r.Next() {
		n++
	}
	r.Close()
	if r.Err() != nil || n != 896 {
		t.Errorf("read %d samples (%v), want 896", n, r.Err())
	}
	// On the capture's host, missing objects are not an error: perf
	// script prints [unknown] for them too.
	hostname = func() (string, error) { return "vm", nil }
	if r, err := Open(path, Options{Symbolizer: res()}); err != nil {
		t.Errorf("Open on the capture's host: %v", err)
	} else {
		r.Close()
	}
}

func TestFormatErrors(t *testing.T) {
	cpp := readData(t, "cpp")
	dataOff := int(binary.LittleEndian.Uint64(cpp[40:]))
	zeroSize := bytes.Clone(cpp)
	binary.LittleEndian.PutUint16(zeroSize[dataOff+6:], 0)
	tests := []struct {
		name    string
		data    []byte
		atOpen  bool
		want    string
		samples int
	}{
		{"text", []byte("perf 123 [000] 1.0: cpu-clock:\n"), true, "not a perf.data file", 0},
		{"empty", nil, true, "not a perf.data file", 0},
		{"header only", cpp[:60], true, "file header truncated", 0},
		{"cut before the data", cpp[:dataOff-1], true, "cut before its data", 0},
		{"zero size record", zeroSize, false, "has size 0", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "x.data", tc.data)
			r, err := Open(path, Options{})
			if tc.atOpen {
				var fe *FormatError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Fatalf("Open: %v, want a *FormatError with %q naming the file", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			for r.Next() {
				n++
			}
			var fe *FormatError
			if !errors.As(r.Err(), &fe) || !strings.Contains(fe.Error(), tc.want) || fe.Offset != int64(dataOff) {
				t.Errorf("Err() = %v, want a *FormatError with %q at offset %#x", r.Err(), tc.want, dataOff)
			}
			if n != tc.samples {
				t.Errorf("%d samples before the error, want %d", n, tc.samples)
			}
		})
	}
}

// TestDroppedChain checks perf's rule that a call chain with a context
// marker it does not know is dropped whole, and that it is counted.
func TestDroppedChain(t *testing.T) {
	data := readData(t, "cpp")
	patched := 0
	records(t, data, func(off int, typ uint32, rec []byte) {
		if typ != recSample || patched > 0 {
			return
		}
		// IP, TID, TIME, CALLCHAIN, PERIOD: the chain's nr is at 8+32.
		nr := binary.LittleEndian.Uint64(rec[40:])
		if nr < 3 {
			return
		}
		binary.LittleEndian.PutUint64(rec[48+8:], 0xffffffffffffffb8)
		patched++
	})
	r, err := Open(writeTemp(t, "x.data", data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	empty := 0
	for r.Next() {
		if len(r.Sample().Frames) == 0 {
			empty++
		}
	}
	if st := r.Stats(); st.DroppedChains != 1 || empty != 1 || st.Samples != 896 {
		t.Errorf("stats %+v, %d samples without frames; want 1 dropped chain of 896 samples", st, empty)
	}
}

// TestCapture checks the capture facts of a -k mono capture and that its
// metadata line is the text path's.
func TestCapture(t *testing.T) {
	script, err := golden.Read("testdata/mono.script.gz")
	if err != nil {
		t.Fatal(err)
	}
	path := extract(t, "mono", script)
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := r.Capture()
	want := map[string]string{
		"Host": "vm", "OSRelease": "6.18.44-fc-v769", "Clock": "monotonic",
		"First": headerValue(script, "time of first sample"), "Last": headerValue(script, "time of last sample"),
		"CapturedOn": headerValue(script, "captured on"), "Cmdline": headerValue(script, "cmdline"),
		"PerfVersion": headerValue(script, "perf version"),
	}
	got := map[string]string{
		"Host": c.Host, "OSRelease": c.OSRelease, "Clock": c.Clock, "First": c.First, "Last": c.Last,
		"CapturedOn": c.CapturedOn, "Cmdline": c.Cmdline, "PerfVersion": c.PerfVersion,
	}
	for k, v := range want {
		if got[k] != v || v == "" {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if c.RefWall == "" || c.RefPerf == "" || !strings.Contains(headerValue(script, "reference time"), c.RefPerf) {
		t.Errorf("reference pair %q %q, header says %q", c.RefWall, c.RefPerf, headerValue(script, "reference time"))
	}
	if strings.Join(c.Events, ",") != "cpu-clock:ppp,dummy:HG" {
		t.Errorf("Events = %q", c.Events)
	}
	// The metadata line is the one the text path writes from perf
	// script --header.
	timed := collapse(t, script, collapsepkg.Options{})
	first, _, _ := strings.Cut(timed, "\n")
	meta := string(folded.AppendMeta(nil, c.Meta(c.Events[0], "")))
	if strings.TrimSuffix(meta, "\n") != first {
		t.Errorf("metadata line\n%s\nwant (text path)\n%s", meta, first)
	}
}

// rebuild returns data (a perf.data file) with its data section replaced
// by newData, the feature sections moved after it.
func rebuild(data, newData []byte) []byte {
	le := binary.LittleEndian
	dataOff := int(le.Uint64(data[40:]))
	dataSize := int(le.Uint64(data[48:]))
	out := append(bytes.Clone(data[:dataOff]), newData...)
	le.PutUint64(out[48:], uint64(len(newData)))
	nfeat := 0
	for i := 0; i < 4; i++ {
		nfeat += popcount(le.Uint64(data[72+8*i:]))
	}
	oldTable := dataOff + dataSize
	table := len(out)
	out = append(out, make([]byte, 16*nfeat)...)
	for i := 0; i < nfeat; i++ {
		off := int(le.Uint64(data[oldTable+16*i:]))
		size := int(le.Uint64(data[oldTable+16*i+8:]))
		le.PutUint64(out[table+16*i:], uint64(len(out)))
		le.PutUint64(out[table+16*i+8:], uint64(size))
		out = append(out, data[off:off+size]...)
	}
	return out
}

// recompress returns the records of the zstd capture orig re-compressed,
// chunk bytes of decompressed data at a time, into COMPRESSED records (and
// COMPRESSED2 records, a data size then the data padded to 8 bytes, in the
// second result) whose boundaries cut records in two, in one zstd stream
// flushed after each, then a FINISHED_ROUND.
func recompress(t testing.TB, orig []byte, chunk int) (compressed, compressed2 []byte) {
	t.Helper()
	var plain, others []byte
	z := newZstdStream()
	defer z.close()
	records(t, orig, func(off int, typ uint32, rec []byte) {
		switch typ {
		case recCompressed:
			var err error
			if plain, err = z.decode(plain, rec[8:]); err != nil {
				t.Fatal(err)
			}
		case recFinishedRound:
		default:
			others = append(others, rec...)
		}
	})
	var comp bytes.Buffer
	zw, err := zstd.NewWriter(&comp)
	if err != nil {
		t.Fatal(err)
	}
	newData, newData2 := bytes.Clone(others), bytes.Clone(others)
	for p := 0; p < len(plain); p += chunk {
		if _, err := zw.Write(plain[p:min(p+chunk, len(plain))]); err != nil {
			t.Fatal(err)
		}
		zw.Flush()
		c := comp.Bytes()
		hdr := make([]byte, 8)
		binary.LittleEndian.PutUint32(hdr, recCompressed)
		binary.LittleEndian.PutUint16(hdr[6:], uint16(8+len(c)))
		newData = append(append(newData, hdr...), c...)
		pad := (8 - len(c)%8) % 8
		hdr2 := make([]byte, 16)
		binary.LittleEndian.PutUint32(hdr2, recCompressed2)
		binary.LittleEndian.PutUint16(hdr2[6:], uint16(16+len(c)+pad))
		binary.LittleEndian.PutUint64(hdr2[8:], uint64(len(c)))
		newData2 = append(append(append(newData2, hdr2...), c...), make([]byte, pad)...)
		comp.Reset()
	}
	round := make([]byte, 8)
	binary.LittleEndian.PutUint32(round, recFinishedRound)
	binary.LittleEndian.PutUint16(round[6:], 8)
	return append(newData, round...), append(newData2, round...)
}

// TestCompressedStraddle re-compresses the zstd capture's records into
// COMPRESSED records whose boundaries cut records in two (as perf's do
// when its ring buffer wraps), in one zstd stream flushed after each, and
// checks the samples are those of the original file.
func TestCompressedStraddle(t *testing.T) {
	orig := readData(t, "zstd")
	newData, newData2 := recompress(t, orig, 999)

	read := func(data []byte) []string {
		r, err := Open(writeTemp(t, "x.data", data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []string
		for r.Next() {
			out = append(out, string(sample.AppendScript(nil, r.Sample())))
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := read(orig)
	for name, nd := range map[string][]byte{"COMPRESSED": newData, "COMPRESSED2": newData2} {
		got := read(rebuild(orig, nd))
		if len(want) != 715 || strings.Join(want, "") != strings.Join(got, "") {
			t.Errorf("%s: %d samples from the re-compressed file, %d from the original (want 715, the same)", name, len(got), len(want))
		}
	}
}

// TestStopsAtBadRecord checks that the samples before a record that
// cannot be read are delivered, then the error, with its place.
func TestStopsAtBadRecord(t *testing.T) {
	data := readData(t, "cpp")
	bad, samples := -1, 0
	records(t, data, func(off int, typ uint32, rec []byte) {
		if typ == recSample {
			samples++
		}
		if bad < 0 && samples > 300 {
			bad = off
		}
	})
	binary.LittleEndian.PutUint16(data[bad+6:], 0)
	r, err := Open(writeTemp(t, "x.data", data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		n++
	}
	var fe *FormatError
	if !errors.As(r.Err(), &fe) || fe.Offset != int64(bad) {
		t.Fatalf("Err() = %v, want a *FormatError at %#x", r.Err(), bad)
	}
	if n < 300 || n > 301 {
		t.Errorf("%d samples delivered before the bad record, want the 300 or so before it", n)
	}
}

// TestGuestSamples checks that samples of a guest are skipped and
// counted, as perf script filters them out.
func TestGuestSamples(t *testing.T) {
	data := readData(t, "cpp")
	n := 0
	records(t, data, func(off int, typ uint32, rec []byte) {
		if typ == recSample && n < 2 {
			binary.LittleEndian.PutUint16(rec[4:], cpumodeGuestKernel+uint16(n))
			n++
		}
	})
	r, err := Open(writeTemp(t, "x.data", data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
	}
	if st := r.Stats(); st.GuestSamples != 2 || st.Samples != 894 {
		t.Errorf("stats %+v, want 2 guest samples skipped of 896", st)
	}
}

// recorder is a Symbolizer that remembers the build-ids it is given.
type recorder struct {
	symbols.Resolver
	ids map[string]string
}

func (r *recorder) DSO(path, buildID string, addr uint64) (symbols.Symbol, bool) {
	r.ids[path] = buildID
	return symbols.Symbol{}, false
}
func (r *recorder) Kernel(buildID string, addr uint64) (symbols.Symbol, bool) {
	r.ids["[kernel.kallsyms]"] = buildID
	return symbols.Symbol{}, false
}
func (r *recorder) KernelSymbols(string) *symbols.Kernel { return nil }

// TestBuildIDRecord checks that build-ids from HEADER_BUILD_ID records in
// the data section (perf inject -b) reach the symbol lookups: the zstd
// capture has no build-id table.
func TestBuildIDRecord(t *testing.T) {
	orig := readData(t, "zstd")
	var newData []byte
	for _, p := range []string{"/tmp/flamekit-perfdata/templates", "[kernel.kallsyms]"} {
		rec := make([]byte, 8+4+24, 8+4+24+64)
		binary.LittleEndian.PutUint32(rec, recBuildID)
		misc := uint16(cpumodeUser)
		if p[0] == '[' {
			misc = cpumodeKernel
		}
		binary.LittleEndian.PutUint16(rec[4:], misc)
		binary.LittleEndian.PutUint32(rec[8:], 0xffffffff) // pid -1
		for i := range 20 {
			rec[12+i] = byte(i + len(p))
		}
		rec = append(rec, p...)
		rec = append(rec, make([]byte, 8-len(rec)%8)...)
		binary.LittleEndian.PutUint16(rec[6:], uint16(len(rec)))
		newData = append(newData, rec...)
	}
	records(t, orig, func(off int, typ uint32, rec []byte) { newData = append(newData, rec...) })
	rc := &recorder{ids: map[string]string{}}
	r, err := Open(writeTemp(t, "x.data", rebuild(orig, newData)), Options{Symbolizer: rc, AllowForeign: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		r.Sample() // the symbols are looked up when the frames are asked for
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/tmp/flamekit-perfdata/templates":    "202122232425262728292a2b2c2d2e2f30313233",
		"/usr/lib/x86_64-linux-gnu/libc.so.6": "",
	}
	for p, id := range want {
		if got, ok := rc.ids[p]; !ok || got != id {
			t.Errorf("%s: build-id %q (looked up %v), want %q", p, got, ok, id)
		}
	}
}
