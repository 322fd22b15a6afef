package symbols

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The oracle: a tiny perf.data file with one sample per address to check
// (no callchains), written here, and `perf script` asked what it makes of
// each. This checks every symbol of a table, not only the addresses a
// real capture happened to sample.

// oracleObj is an object mapped into the synthetic process (or the
// kernel) and the addresses to sample in it.
type oracleObj struct {
	kernel  bool   // the kernel: addrs are absolute, textAddr is _text
	path    string // mapped file ("[vdso]" for the vdso)
	buildID string // recorded build-id, "" for none
	base    uint64 // where the file is mapped (pgoff 0)
	size    uint64 // mapping length
	addrs   []uint64
	// textAddr is the kernel's _text (the MMAP record's start and pgoff).
	textAddr uint64
	// textLen is the length of the kernel's map (0: to the end).
	textLen uint64
	// module names a kernel module's map ("[mod_a]"): path is then
	// unused and addrs are absolute.
	module string
}

const (
	recMMAP   = 1
	recCOMM   = 3
	recSample = 9
	recMMAP2  = 10

	miscKernel      = 1
	miscUser        = 2
	miscMMAPBuildID = 1 << 14

	sampleIP     = 1 << 0
	sampleTID    = 1 << 1
	sampleTime   = 1 << 2
	samplePeriod = 1 << 8

	oraclePID = 4242
	attrSize  = 128
)

type recWriter struct{ bytes.Buffer }

func (w *recWriter) u16(v uint16) { binary.Write(w, binary.LittleEndian, v) }
func (w *recWriter) u32(v uint32) { binary.Write(w, binary.LittleEndian, v) }
func (w *recWriter) u64(v uint64) { binary.Write(w, binary.LittleEndian, v) }

// record appends a record of type typ whose body is body.
func (w *recWriter) record(typ uint32, misc uint16, body []byte) {
	w.u32(typ)
	w.u16(misc)
	w.u16(uint16(8 + len(body)))
	w.Write(body)
}

// padString returns s NUL-terminated and padded to 8 bytes.
func padString(s string) []byte {
	b := append([]byte(s), 0)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// writeOracleData writes a perf.data file (file mode, one cpu-clock
// event, samples with ip, tid, time and period) mapping objs and
// sampling their addresses in order.
func writeOracleData(path string, objs []oracleObj) error {
	return writeOracleDataPID(path, objs, oraclePID, "")
}

// writeOracleDataPID is writeOracleData for a process of the given pid,
// recording kernelID as the kernel's build-id when it is not "".
func writeOracleDataPID(path string, objs []oracleObj, pid uint32, kernelID string) error {
	var data recWriter
	le := binary.LittleEndian
	{
		var b bytes.Buffer
		binary.Write(&b, le, pid)
		binary.Write(&b, le, pid)
		b.Write(padString("oracle"))
		data.record(recCOMM, 0, b.Bytes())
	}
	for _, o := range objs {
		var b bytes.Buffer
		if o.kernel && o.module != "" {
			binary.Write(&b, le, uint32(0xffffffff))
			binary.Write(&b, le, uint32(0))
			binary.Write(&b, le, o.base)
			binary.Write(&b, le, o.size)
			binary.Write(&b, le, uint64(0))
			b.Write(padString(o.module))
			data.record(recMMAP, miscKernel, b.Bytes())
			continue
		}
		if o.kernel {
			n := o.textLen
			if n == 0 {
				n = ^uint64(0) - o.textAddr
			}
			binary.Write(&b, le, uint32(0xffffffff))
			binary.Write(&b, le, uint32(0))
			binary.Write(&b, le, o.textAddr)
			binary.Write(&b, le, n)
			binary.Write(&b, le, o.textAddr)
			b.Write(padString("[kernel.kallsyms]_text"))
			data.record(recMMAP, miscKernel, b.Bytes())
			continue
		}
		binary.Write(&b, le, pid)
		binary.Write(&b, le, pid)
		binary.Write(&b, le, o.base)
		binary.Write(&b, le, o.size)
		binary.Write(&b, le, uint64(0)) // pgoff
		misc := uint16(miscUser)
		if o.buildID != "" {
			id, err := hex.DecodeString(o.buildID)
			if err != nil || len(id) > 20 {
				return fmt.Errorf("bad build-id %q", o.buildID)
			}
			b.WriteByte(byte(len(id)))
			b.Write([]byte{0, 0, 0})
			var buf [20]byte
			copy(buf[:], id)
			b.Write(buf[:])
			misc |= miscMMAPBuildID
		} else {
			b.Write(make([]byte, 24)) // maj, min, ino, ino generation
		}
		binary.Write(&b, le, uint32(5)) // PROT_READ|PROT_EXEC
		binary.Write(&b, le, uint32(2)) // MAP_PRIVATE
		b.Write(padString(o.path))
		data.record(recMMAP2, misc, b.Bytes())
	}
	t := uint64(1_000_000_000)
	for _, o := range objs {
		misc := uint16(miscUser)
		if o.kernel {
			misc = miscKernel
		}
		for _, a := range o.addrs {
			var b bytes.Buffer
			ip := a
			if !o.kernel {
				ip = o.base + a
			}
			binary.Write(&b, le, ip)
			binary.Write(&b, le, pid)
			binary.Write(&b, le, pid)
			binary.Write(&b, le, t)
			binary.Write(&b, le, uint64(1))
			data.record(recSample, misc, b.Bytes())
			t += 1000
		}
	}

	// The build-id table (feature HEADER_BUILD_ID), for the kernel only.
	var feat recWriter
	if kernelID != "" {
		id, err := hex.DecodeString(kernelID)
		if err != nil || len(id) > 20 {
			return fmt.Errorf("bad build-id %q", kernelID)
		}
		var b bytes.Buffer
		binary.Write(&b, le, int32(-1))
		var buf [24]byte
		copy(buf[:], id)
		buf[20] = byte(len(id))
		b.Write(buf[:])
		name := append([]byte("[kernel.kallsyms]"), 0)
		for len(name)%64 != 0 {
			name = append(name, 0)
		}
		b.Write(name)
		const buildIDRecord, miscBuildIDSize = 67, 1 << 15
		feat.record(buildIDRecord, miscKernel|miscBuildIDSize, b.Bytes())
	}

	var f recWriter
	const headerSize = 104
	attrsOff := uint64(headerSize)
	attrsLen := uint64(attrSize + 16)
	dataOff := attrsOff + attrsLen
	f.Write([]byte("PERFILE2"))
	f.u64(headerSize)
	f.u64(attrSize + 16)
	f.u64(attrsOff)
	f.u64(attrsLen)
	f.u64(dataOff)
	f.u64(uint64(data.Len()))
	f.u64(0) // event types
	f.u64(0)
	features := make([]byte, 32)
	if feat.Len() > 0 {
		features[0] = 1 << 2 // HEADER_BUILD_ID
	}
	f.Write(features)
	// perf_event_attr: software cpu-clock.
	attr := make([]byte, attrSize)
	le.PutUint32(attr[0:], 1) // PERF_TYPE_SOFTWARE
	le.PutUint32(attr[4:], attrSize)
	le.PutUint64(attr[8:], 0)      // PERF_COUNT_SW_CPU_CLOCK
	le.PutUint64(attr[16:], 10000) // sample period
	le.PutUint64(attr[24:], sampleIP|sampleTID|sampleTime|samplePeriod)
	f.Write(attr)
	f.u64(0) // ids
	f.u64(0)
	f.Write(data.Bytes())
	if feat.Len() > 0 {
		// The feature sections' table follows the data, then the
		// sections.
		off := uint64(f.Len()) + 16
		f.u64(off)
		f.u64(uint64(feat.Len()))
		f.Write(feat.Bytes())
	}
	return os.WriteFile(path, f.Bytes(), 0o600)
}

// perfScriptLines runs perf script on the oracle file and returns, per
// sample, the "sym+0xoff" perf printed ("[unknown]" when none) and the
// DSO.
func perfScriptLines(t testing.TB, perf, data string, global ...string) (syms, dsos []string) {
	t.Helper()
	args := append(global, "script", "-f", "-F", "ip,sym,symoff,dso", "-i", data)
	cmd := exec.Command(perf, args...)
	cmd.Env = append(os.Environ(), "PAGER=cat")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf script: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		// "ADDR SYM+OFF (DSO)"; SYM may hold blanks and parentheses.
		sp := strings.IndexByte(l, ' ')
		open := strings.LastIndex(l, " (")
		if sp < 0 || open < sp || !strings.HasSuffix(l, ")") {
			t.Fatalf("perf script line %q", l)
		}
		syms = append(syms, l[sp+1:open])
		dsos = append(dsos, l[open+2:len(l)-1])
	}
	return syms, dsos
}

// syntheticPerfMap returns a perf map with what perf does not fix up
// (see TestOraclePerfMapLive), at addresses from 0x40000000, generated
// from seed.
func syntheticPerfMap(seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	addr := uint64(0x40001000)
	for i := 0; i < 400; i++ {
		size := uint64(rng.IntN(0x300))
		switch rng.IntN(10) {
		case 0:
			size = 0
		case 1:
			addr -= uint64(rng.IntN(0x200)) // overlaps the previous ones
		}
		name := fmt.Sprintf("Fn%d", i)
		switch rng.IntN(8) {
		case 0:
			name = fmt.Sprintf("JS:*fn%d /tmp/x y.js:%d:%d", i, i, i%7)
		case 1:
			name = "ab" // too short: perf skips it
		case 2:
			name = fmt.Sprintf("LazyCompile:~f%d", i)
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "0x%016x 0x%x %s\n", addr, size, name)
		} else {
			fmt.Fprintf(&b, "%x %x %s\n", addr, size, name)
		}
		if rng.IntN(20) == 0 {
			// The same entry again, as a JIT re-announcing code.
			fmt.Fprintf(&b, "%x %x %s-again\n", addr, size, name)
		}
		addr += uint64(rng.IntN(0x400)) + 1
	}
	fmt.Fprintf(&b, "%x 20 LastWithoutNewline", addr+0x1000)
	return b.Bytes()
}

// probeAddrs returns the addresses worth checking in a table: every
// segment boundary and every symbol start, with the bytes before and
// after them. With limit > 0, about limit boundaries are taken, evenly
// spread.
func probeAddrs(tb *Table, limit int) []uint64 {
	seen := map[uint64]bool{}
	var l []uint64
	add := func(a uint64) {
		if !seen[a] {
			seen[a] = true
			l = append(l, a)
		}
	}
	around := func(points []uint64) {
		step := 1
		if limit > 0 && len(points) > limit {
			step = len(points)/limit + 1
		}
		for i := 0; i < len(points); i += step {
			a := points[i]
			add(a)
			if a > 0 {
				add(a - 1)
			}
			add(a + 1)
		}
	}
	around(tb.segStart)
	around(tb.start)
	return l
}

func oracleText(s Symbol, ok bool) string {
	if !ok {
		return "[unknown]"
	}
	return s.Name + "+0x" + strconv.FormatUint(s.Offset, 16)
}

// checkOracle compares the resolver with perf script for every address
// of objs, reporting at most a few differences per object.
func checkOracle(t *testing.T, perf string, r *Resolver, objs []oracleObj) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "oracle.data")
	if err := writeOracleData(data, objs); err != nil {
		t.Fatal(err)
	}
	syms, _ := perfScriptLines(t, perf, data)
	i := 0
	for _, o := range objs {
		bad := 0
		for _, a := range o.addrs {
			if i >= len(syms) {
				t.Fatalf("perf script printed %d samples, want more", len(syms))
			}
			var got string
			if o.kernel {
				got = oracleText(r.Kernel("", a))
			} else {
				got = oracleText(r.DSO(o.path, o.buildID, a))
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
