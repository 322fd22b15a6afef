package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"flamekit/pkg/perf/sample"

	"github.com/klauspost/compress/zstd"
)

// completeRecords counts, without the reader, what a perf.data file holds
// to its last complete record: the SAMPLE records of its data section
// (from its offset to the end the header gives, or to the end of the file
// when the header says 0 or the file is shorter), and the bytes after the
// last complete record.
func completeRecords(data []byte) (samples int, unread int64) {
	le := binary.LittleEndian
	off := int(le.Uint64(data[40:]))
	end := off + int(le.Uint64(data[48:]))
	if end == off || end > len(data) {
		end = len(data)
	}
	for off+8 <= end {
		size := int(le.Uint16(data[off+6:]))
		if size < 8 || off+size > end {
			break
		}
		if le.Uint32(data[off:]) == recSample {
			samples++
		}
		off += size
	}
	return samples, int64(end - off)
}

// readAll reads every sample of data as a perf.data file named name,
// without symbols, and returns them in perf script's text.
func readAll(t *testing.T, name string, data []byte, opt Options) (*Reader, []string) {
	t.Helper()
	if opt.TraceFS == "" {
		opt.TraceFS = "testdata/tracefs"
	}
	r, err := newReader(memFile{bytes.NewReader(data), int64(len(data))}, name, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	var buf []byte
	for r.Next() {
		buf = sample.AppendScript(buf[:0], r.Sample())
		out = append(out, string(buf))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r, out
}

// A cut of the committed capture cut.data.gz (perf record -m 8 -a -g -F
// 97 -- sleep 3, 581 samples) and what perf script 6.1.187 printed of it
// when the capture was made: perf stops with an error at the first
// incomplete record and prints only the rounds it had flushed before it
// (none before the first FINISHED_ROUND, all when only feature sections
// are cut).
type cutCase struct {
	name string
	at   func(size, dataOff, dataEnd int) int
	perf int
}

func permille(p int) func(size, dataOff, dataEnd int) int {
	return func(size, _, _ int) int { return size * p / 1000 }
}

var cutCases = []cutCase{
	{"at the data", func(_, off, _ int) int { return off }, 0},
	{"10%", permille(100), 0},
	{"25%", permille(250), 0},
	{"50%", permille(500), 72},
	{"60%", permille(600), 71},
	{"75%", permille(750), 273},
	{"90%", permille(900), 463},
	{"end of the data", func(_, _, end int) int { return end }, 581},
	{"in the feature table", func(_, _, end int) int { return end + 20 }, 581},
	{"last kilobyte", func(size, _, _ int) int { return size - 1024 }, 581},
}

// TestCutFile cuts the complete capture at several places and checks
// that every complete record is read, exactly, at least as many samples
// as perf script printed, and that Damage says what was lost.
func TestCutFile(t *testing.T) {
	full := readData(t, "cut")
	le := binary.LittleEndian
	dataOff, dataSize := int(le.Uint64(full[40:])), int(le.Uint64(full[48:]))
	_, all := readAll(t, "cut.data", full, Options{})
	if len(all) != 581 {
		t.Fatalf("the complete capture has %d samples, want 581", len(all))
	}
	for _, tc := range cutCases {
		t.Run(tc.name, func(t *testing.T) {
			at := tc.at(len(full), dataOff, dataOff+dataSize)
			data := full[:at]
			want, unread := completeRecords(data)
			r, got := readAll(t, "cut.data", data, Options{})
			d := r.Damage()
			if d == nil {
				t.Fatalf("cut at %d: no Damage", at)
			}
			if len(got) != want || d.Samples != int64(want) {
				t.Errorf("cut at %d: %d samples (Damage says %d), want the %d complete SAMPLE records", at, len(got), d.Samples, want)
			}
			if len(got) < tc.perf {
				t.Errorf("cut at %d: %d samples, fewer than the %d perf script printed", at, len(got), tc.perf)
			}
			inData := at < dataOff+dataSize
			if d.Cut() != inData || d.Unfinished || d.DataSize != int64(dataSize) || d.Unread != unread ||
				inData && d.DataInFile != int64(at-dataOff) {
				t.Errorf("cut at %d: Damage %+v, want a cut of the data %v, %d bytes unread", at, d, inData, unread)
			}
			if tc.name == "last kilobyte" {
				if !slices.Equal(d.Missing, []string{"sample times"}) {
					t.Errorf("last kilobyte: Missing = %q, want the sample times only", d.Missing)
				}
			} else if !slices.Contains(d.Missing, "build-ids") || !slices.Contains(d.Missing, "hostname") {
				t.Errorf("cut at %d: Missing = %q, want every feature", at, d.Missing)
			}
			// What was read is what the complete file holds (the
			// comm or maps of a sample next to the cut may differ:
			// their COMM or MMAP record may come after it in the file).
			miss := notIn(got, all)
			if miss > len(got)/20 {
				t.Errorf("cut at %d: %d of %d samples are not samples of the complete file", at, miss, len(got))
			}
			t.Logf("cut at %d: %d samples (%d differ from the complete file's), %d bytes unread", at, len(got), miss, unread)
			msg := d.String()
			if !strings.Contains(msg, "cut short") || unread > 0 && !strings.Contains(msg, "partial last record") {
				t.Errorf("cut at %d: %s", at, msg)
			}
		})
	}
}

// notIn counts the samples of got that are not in all (as multisets).
func notIn(got, all []string) int {
	n := map[string]int{}
	for _, s := range all {
		n[s]++
	}
	miss := 0
	for _, s := range got {
		if n[s] == 0 {
			miss++
			continue
		}
		n[s]--
	}
	return miss
}

// TestCutFileLive compares with the perf script of this machine: at
// least as many samples at every cut.
func TestCutFileLive(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not on PATH: the live comparison needs it")
	}
	full := readData(t, "cut")
	le := binary.LittleEndian
	dataOff, dataSize := int(le.Uint64(full[40:])), int(le.Uint64(full[48:]))
	for _, tc := range cutCases {
		at := tc.at(len(full), dataOff, dataOff+dataSize)
		ours := livePerfCompare(t, perf, tc.name, full[:at])
		t.Logf("cut %s (%d bytes): %d samples, perf script %d when the capture was made", tc.name, at, ours, tc.perf)
	}
	killed := readData(t, "killed")
	livePerfCompare(t, perf, "killed", killed)
}

// livePerfCompare runs perf script on data and checks the reader gives
// at least as many samples; it returns the reader's count.
func livePerfCompare(t *testing.T, perf, name string, data []byte) int {
	t.Helper()
	path := writeTemp(t, "x.data", data)
	out, _ := exec.Command(perf, "script", "-i", path).Output() // fails at the cut
	theirs := len(scriptRecords(out))
	_, ours := readAll(t, name, data, Options{})
	if len(ours) < theirs {
		t.Errorf("%s: %d samples, perf script prints %d", name, len(ours), theirs)
	}
	t.Logf("%s: %d samples, perf script here %d", name, len(ours), theirs)
	return len(ours)
}

// TestKilledFile reads the capture of a perf record killed with SIGKILL 2 s
// into a 30 s window (data size 0 in its header, no feature section):
// perf script prints none of its samples.
func TestKilledFile(t *testing.T) {
	const perfSamples = 0 // perf script 6.1.187: "data size field is 0"
	data := readData(t, "killed")
	want, unread := completeRecords(data)
	if want != 332 || unread != 0 {
		t.Fatalf("the killed capture has %d complete samples and %d bytes after them, want 332 and 0", want, unread)
	}
	r, got := readAll(t, "killed.data", data, Options{})
	d := r.Damage()
	if d == nil || !d.Unfinished || d.Cut() || d.DataInFile != int64(len(data)-int(binary.LittleEndian.Uint64(data[40:]))) {
		t.Fatalf("Damage %+v, want an unfinished file read to its end", d)
	}
	if len(got) != want || len(got) <= perfSamples {
		t.Errorf("%d samples, want the %d complete SAMPLE records", len(got), want)
	}
	// The event names perf would give them, from the attributes.
	if ev := r.Capture().Events; !slices.Equal(ev, []string{"cpu-clock:ppp", "dummy:HG"}) {
		t.Errorf("events %q, want cpu-clock:ppp and dummy:HG", ev)
	}
	if c := r.Capture(); c.Host != "" || c.Cmdline != "" || c.First != "" {
		t.Errorf("capture %+v: facts of the lost feature sections, want none", c)
	}
	if msg := d.String(); !strings.HasPrefix(msg, "unfinished") || !strings.Contains(msg, "332 samples") ||
		!strings.Contains(msg, "build-ids from this machine's files") || !strings.Contains(msg, "hostname") {
		t.Errorf("message %q", msg)
	}

	// Killed while writing: a record cut short, or zeros a crash left.
	tail := completeRecordsEnd(data, 200)
	for _, tc := range []struct {
		name    string
		data    []byte
		samples int
		unread  int64
	}{
		{"cut in a record", data[:tail+30], 200, 30},
		{"zeros after", append(bytes.Clone(data), make([]byte, 4096)...), 332, 4096},
		{"nothing written", data[:binary.LittleEndian.Uint64(data[40:])], 0, 0},
	} {
		r, got := readAll(t, tc.name, tc.data, Options{})
		if d := r.Damage(); len(got) != tc.samples || d == nil || d.Unread != tc.unread || !d.Unfinished {
			t.Errorf("%s: %d samples, Damage %+v; want %d samples, %d bytes unread", tc.name, len(got), d, tc.samples, tc.unread)
		}
	}
}

// completeRecordsEnd returns the offset of the end of the record after
// which data holds n SAMPLE records.
func completeRecordsEnd(data []byte, n int) int {
	le := binary.LittleEndian
	off := int(le.Uint64(data[40:]))
	for samples := 0; off+8 <= len(data); {
		size := int(le.Uint16(data[off+6:]))
		if le.Uint32(data[off:]) == recSample {
			samples++
		}
		off += size
		if samples == n {
			break
		}
	}
	return off
}

// TestCutCompressed cuts a perf record -z capture (its records
// re-compressed into many COMPRESSED records that cut records in two, as
// perf's do): the samples are those of the complete COMPRESSED records,
// counted by decompressing them here with the zstd package directly.
func TestCutCompressed(t *testing.T) {
	orig := readData(t, "zstd")
	comp, _ := recompress(t, orig, 999)
	full := rebuild(orig, comp)
	le := binary.LittleEndian
	dataOff, dataSize := int(le.Uint64(full[40:])), int(le.Uint64(full[48:]))
	for _, p := range []int{300, 600, 900} {
		at := dataOff + dataSize*p/1000
		data := full[:at]
		var payloads []byte
		records(t, rebuildCut(data), func(off int, typ uint32, rec []byte) {
			if typ == recCompressed {
				payloads = append(payloads, rec[8:]...)
			}
		})
		dec, err := zstd.NewReader(bytes.NewReader(payloads))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(dec) // ends where the last complete record's data ends
		dec.Close()
		want, rest := 0, len(plain)
		for p := 0; p+8 <= len(plain); {
			size := int(le.Uint16(plain[p+6:]))
			if size < 8 || p+size > len(plain) {
				break
			}
			if le.Uint32(plain[p:]) == recSample {
				want++
			}
			p += size
			rest = len(plain) - p
		}
		r, got := readAll(t, "zstd.data", data, Options{})
		d := r.Damage()
		t.Logf("cut at %d‰ of the data: %d samples, %d decompressed bytes after the last complete record", p, len(got), rest)
		if len(got) != want || want == 0 || d == nil || d.UnreadDecompressed != int64(rest) {
			t.Errorf("cut at %d‰ of the data: %d samples, Damage %+v; want %d samples, %d decompressed bytes unread", p, len(got), d, want, rest)
		}
	}
}

// rebuildCut returns data, a perf.data file cut in its data section, with
// the header's data size set to the complete records it holds.
func rebuildCut(data []byte) []byte {
	le := binary.LittleEndian
	off := int(le.Uint64(data[40:]))
	end := off
	for end+8 <= len(data) {
		size := int(le.Uint16(data[end+6:]))
		if size < 8 || end+size > len(data) {
			break
		}
		end += size
	}
	out := bytes.Clone(data[:end])
	le.PutUint64(out[48:], uint64(end-off))
	return out
}

// TestCutTracepoints cuts a tracepoint capture, whose tracing-data section
// (the tracepoints' formats) is then lost: the formats are taken from a
// tracefs tree (Options.TraceFS), which names and decodes the events as
// the complete file does; without one, the events have perf's type:config
// names.
func TestCutTracepoints(t *testing.T) {
	full := readData(t, "sched")
	le := binary.LittleEndian
	dataOff, dataSize := int(le.Uint64(full[40:])), int(le.Uint64(full[48:]))
	_, all := readAll(t, "sched.data", full, Options{})
	data := full[:dataOff+dataSize*7/10]
	r, got := readAll(t, "sched.data", data, Options{})
	if d := r.Damage(); d == nil || !d.Tracepoints || !slices.Contains(d.Missing, "tracepoint formats") ||
		!strings.Contains(d.String(), "tracepoint formats from this machine's tracefs") {
		t.Fatalf("Damage %+v, want tracepoint formats taken from tracefs", d)
	}
	if ev := r.Capture().Events; !slices.Equal(ev, []string{"sched:sched_switch", "dummy:HG"}) {
		t.Errorf("events %q", ev)
	}
	miss := notIn(got, all)
	if len(got) < 400 || miss > len(got)/20 {
		t.Errorf("%d samples, %d not samples of the complete file", len(got), miss)
	}
	t.Logf("%d of the %d samples; %d differ from the complete file's", len(got), len(all), miss)
	r, _ = readAll(t, "sched.data", data, Options{TraceFS: filepath.Join(t.TempDir(), "none")})
	if d := r.Damage(); d.Tracepoints || !strings.Contains(d.String(), "tracepoint formats") {
		t.Errorf("without tracefs: %s", d)
	}
	if ev := r.Capture().Events; ev[0] != "2:174" {
		t.Errorf("without tracefs: events %q, want 2:174 (type:config in hexadecimal)", ev)
	}
}

// TestDefaultNames checks that the names the reader gives events from
// their attributes (perf's evsel__name, for a file without event
// descriptions) are those perf recorded in every committed capture.
func TestDefaultNames(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.data.gz")
	checked := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".data.gz")
		if name == "pipe" || name == "killed" {
			continue
		}
		data := readData(t, name)
		fi, err := readHeader(bytes.NewReader(data), int64(len(data)), name)
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range fi.attrs {
			a := &fi.attrs[i]
			if a.typ != typeSoftware && a.typ != typeHardware {
				continue
			}
			if got := a.defaultName(); got != a.name {
				t.Errorf("%s: event %q named %q from its attributes", name, a.name, got)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("%d events checked", checked)
	}
}

// TestDamageString checks the one-line descriptions.
func TestDamageString(t *testing.T) {
	for _, tc := range []struct {
		d    Damage
		want string
	}{
		{Damage{Unfinished: true, DataInFile: 1000, Samples: 3, Missing: []string{"build-ids", "hostname"}},
			"unfinished: perf record was killed before it finished the file, or is still writing it (data size 0 in its header); read to the end of the file: 3 samples; its feature sections were never written: build-ids from this machine's files; hostname unknown"},
		{Damage{DataSize: 1234567, DataInFile: 234567, Unread: 52, Samples: 10, Missing: []string{"event names"}},
			"cut short: the file holds 234,567 of the 1,234,567 bytes of its data section (a full disk, a copy cut off, a host that died); read to its last complete record: 10 samples; a partial last record (52 bytes) left out; its feature sections are lost: event names from their attributes"},
		{Damage{DataSize: 100, DataInFile: 100, Samples: 1, Missing: []string{"sample times", "tracepoint formats"}},
			"cut short in its feature sections, after the data: every record read, 1 sample; its feature sections are lost: tracepoint formats, sample times unknown"},
		{Damage{DataSize: 100, DataInFile: 100, Samples: 1, UnreadDecompressed: 7, Missing: []string{"tracepoint formats"}, Tracepoints: true},
			"cut short in its feature sections, after the data: every record read, 1 sample; a partial last compressed record (7 bytes decompressed) left out; its feature sections are lost: tracepoint formats from this machine's tracefs"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.d, got, tc.want)
		}
	}
}
