package perfdata

import (
	"fmt"
	"strings"
)

// Damage says what is missing from a perf.data file that perf record did
// not finish: killed (SIGKILL, the OOM killer, a host that died) before it
// wrote the header's final values, or cut short (a full disk, a copy cut
// off). perf record writes the header when it starts, with a data size of
// 0, then the records, and only when it ends the data size and the feature
// sections (build-ids, hostname, event names…) after the data.
//
// The Reader reads such a file to its last complete record, and takes what
// the lost feature sections held from elsewhere where it can: symbols from
// this machine's files by path (its running kernel's kallsyms, its vdso,
// the binaries on disk), build-ids from MMAP2 records that carry them,
// event names from the event attributes as perf names them, the clock from
// the attributes, tracepoint formats from this machine's tracefs. What
// cannot be known (hostname, os release, perf version, command line, the
// times of the first and last sample, the clock reference) is left empty.
type Damage struct {
	// Unfinished: the header's data size is 0, as perf record writes it
	// when it starts; the data was read to the end of the file.
	Unfinished bool
	// DataSize is the data section's size the header gives (0 when
	// Unfinished); DataInFile is how many bytes of it the file holds.
	DataSize, DataInFile int64
	// Unread counts the bytes at the end of the data that hold no
	// complete record (a record cut short, or zeros a crash left), and
	// UnreadDecompressed the same in perf record -z's decompressed data.
	// They are known once Next has returned false.
	Unread, UnreadDecompressed int64
	// Samples counts the samples read, once Next has returned false.
	Samples int64
	// Missing names what the lost feature sections held that this
	// reader uses ("build-ids", "hostname", …), in header order.
	Missing []string
	// Tracepoints is true when tracepoint formats were taken from this
	// machine's tracefs (the tracing-data section is lost), false when
	// they were not needed or could not be found.
	Tracepoints bool
}

// features a Damage can report as lost, with where the reader takes
// them from instead ("" when it cannot know them).
var lostFeatures = []struct {
	bit        int
	what, from string
}{
	{featTracingData, "tracepoint formats", ""}, // set by String
	{featBuildID, "build-ids", "from this machine's files"},
	{featEventDesc, "event names", "from their attributes"},
	{featClockData, "clock reference", ""},
	{featHostname, "hostname", ""},
	{featOSRelease, "os release", ""},
	{featVersion, "perf version", ""},
	{featCmdline, "command line", ""},
	{featSampleTime, "sample times", ""},
}

// Cut reports whether the file ends before the end of its data section.
func (d *Damage) Cut() bool { return !d.Unfinished && d.DataInFile < d.DataSize }

// String describes the damage on one line, without the file's name: what
// the file is, what was read, what was lost and what stands for it.
func (d *Damage) String() string {
	var sb strings.Builder
	switch {
	case d.Unfinished:
		fmt.Fprintf(&sb, "unfinished: perf record was killed before it finished the file, or is still writing it (data size 0 in its header); read to the end of the file: %s", samples(d.Samples))
	case d.Cut():
		fmt.Fprintf(&sb, "cut short: the file holds %s of the %s bytes of its data section (a full disk, a copy cut off, a host that died); read to its last complete record: %s",
			thousands(d.DataInFile), thousands(d.DataSize), samples(d.Samples))
	default:
		fmt.Fprintf(&sb, "cut short in its feature sections, after the data: every record read, %s", samples(d.Samples))
	}
	if d.Unread > 0 {
		fmt.Fprintf(&sb, "; a partial last record (%s bytes) left out", thousands(d.Unread))
	}
	if d.UnreadDecompressed > 0 {
		fmt.Fprintf(&sb, "; a partial last compressed record (%s bytes decompressed) left out", thousands(d.UnreadDecompressed))
	}
	var from, unknown []string
	for _, f := range lostFeatures {
		if !d.missing(f.what) {
			continue
		}
		src := f.from
		if f.bit == featTracingData && d.Tracepoints {
			src = "from this machine's tracefs"
		}
		if src == "" {
			unknown = append(unknown, f.what)
		} else {
			from = append(from, f.what+" "+src)
		}
	}
	if len(from)+len(unknown) > 0 {
		if d.Unfinished {
			sb.WriteString("; its feature sections were never written: ")
		} else {
			sb.WriteString("; its feature sections are lost: ")
		}
		sb.WriteString(strings.Join(from, ", "))
		if len(unknown) > 0 {
			if len(from) > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(strings.Join(unknown, ", ") + " unknown")
		}
	}
	return sb.String()
}

func (d *Damage) missing(what string) bool {
	for _, m := range d.Missing {
		if m == what {
			return true
		}
	}
	return false
}

// noteMissing records that feature bit is lost, if it is one the reader
// uses.
func (d *Damage) noteMissing(bit int) {
	for _, f := range lostFeatures {
		if f.bit == bit && !d.missing(f.what) {
			d.Missing = append(d.Missing, f.what)
		}
	}
}

// samples says "1 sample", "2 samples".
func samples(n int64) string {
	if n == 1 {
		return "1 sample"
	}
	return thousands(n) + " samples"
}

// thousands formats n with commas every three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
