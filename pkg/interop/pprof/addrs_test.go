package pprof

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/pkg/folded"
)

// addrRecords are two samples of one process: a stack through libc and
// the program (main inlining helper: one address, two frames), whose
// leaf is in the kernel; and the same stack at another leaf address.
func addrRecords() []folded.Record {
	maps := []folded.Mapping{
		{PID: 7, Start: 0x7f0000001000, Limit: 0x7f0000100000, Offset: 0x1000, File: "/lib/libc.so.6", BuildID: "aa", Symbolizable: true},
		{PID: 7, Start: 0x555500001000, Limit: 0x555500002000, Offset: 0x1000, File: "/bin/app", BuildID: "bb", Symbolizable: true},
		{PID: -1, Start: 0xffffffff81000000, Limit: 0xffffffff82000000, File: "[kernel.kallsyms]", BuildID: "cc"},
	}
	rec := func(t folded.Time, leaf uint64, leafName string) folded.Record {
		return folded.Record{
			Stack: []byte("app;__libc_start_main;main;helper;" + leafName + ";do_syscall_64"),
			Count: 1e7, Time: t, Kind: folded.Timed, PID: 7, TID: 7, Has: folded.HasPID | folded.HasTID,
			Addrs: &folded.Addrs{Maps: maps, Frames: []folded.AddrFrame{
				{PC: 0xffffffff81000100, Map: 2, Names: 1},
				{PC: leaf, Map: 1, Names: 1},
				{PC: 0x555500001100, Map: 1, Names: 2},
				{PC: 0x7f0000002000, Map: 0, Names: 1},
			}},
		}
	}
	return []folded.Record{
		rec(folded.Time(time.Second), 0x555500001200, "work"),
		rec(folded.Time(time.Second+time.Millisecond), 0x555500001204, "work"),
		{Stack: []byte("app;main"), Count: 1e7, Time: folded.Time(time.Second + 2*time.Millisecond), Kind: folded.Timed},
	}
}

// TestAddresses: each address is one location in the mapping of its
// process, with its names as lines (innermost first) or, for the files a
// symbolizer reads, none (AddressesOnly); the executable is the first
// mapping; a record without addresses is located by name, and counted;
// the same whichever way the Builder sums the samples.
func TestAddresses(t *testing.T) {
	ref := folded.WallRef{Wall: time.Unix(1700000000, 0), Perf: 0, Exact: true}
	for _, mode := range []Addresses{WithNames, AddressesOnly} {
		for _, how := range []string{"held", "cut", "aggregate"} {
			name := fmt.Sprintf("%d %s", mode, how)
			opts := Options{Addresses: mode, Ref: &ref, Resolution: time.Millisecond,
				Mappings: []Mapping{{File: "/bin/app", BuildID: "bb"}, {File: "/lib/other.so", BuildID: "dd"}}}
			switch how {
			case "held":
				opts.Resolution = 0
			case "cut":
				opts.HasCut = true
			case "aggregate":
				opts.Aggregate = true
			}
			b := NewBuilder(opts)
			for _, r := range addrRecords() {
				if err := b.Add(&r); err != nil {
					t.Fatal(err)
				}
			}
			p := googleOf(t, b)
			if st := b.Stats(); st.NoAddresses != 1 {
				t.Errorf("%s: %d records without addresses, want 1", name, st.NoAddresses)
			}
			var files []string
			for _, m := range p.Mapping {
				files = append(files, fmt.Sprintf("%s %v", m.File, m.HasFunctions))
			}
			wantFiles := "/bin/app true|/lib/libc.so.6 true|[kernel.kallsyms] true|/lib/other.so false"
			if mode == AddressesOnly {
				wantFiles = "/bin/app false|/lib/libc.so.6 false|[kernel.kallsyms] true|/lib/other.so false"
			}
			if got := strings.Join(files, "|"); got != wantFiles {
				t.Errorf("%s: mappings %s, want %s", name, got, wantFiles)
			}
			locs := map[uint64]string{}
			for _, l := range p.Location {
				var lines []string
				for _, ln := range l.Line {
					lines = append(lines, ln.Function.Name)
				}
				file := ""
				if l.Mapping != nil {
					file = l.Mapping.File
				}
				locs[l.Address] = file + " " + strings.Join(lines, ",")
			}
			want := map[uint64]string{
				0:                  " main", // app and main: no address (the record without), named
				0x555500001200:     "/bin/app work",
				0x555500001204:     "/bin/app work",
				0x555500001100:     "/bin/app helper,main",
				0x7f0000002000:     "/lib/libc.so.6 __libc_start_main",
				0xffffffff81000100: "[kernel.kallsyms] do_syscall_64",
			}
			if mode == AddressesOnly {
				for a, v := range want {
					if strings.HasPrefix(v, "/") {
						want[a] = v[:strings.IndexByte(v, ' ')+1]
					}
				}
			}
			for a, w := range want {
				if a == 0 {
					continue
				}
				if locs[a] != w {
					t.Errorf("%s: location %#x is %q, want %q", name, a, locs[a], w)
				}
			}
			if n := len(p.Location); n != 7 { // app and main (named), 5 addresses
				t.Errorf("%s: %d locations: %v", name, n, locs)
			}
			var total int64
			for _, s := range p.Sample {
				total += s.Value[len(s.Value)-1]
				if root := s.Location[len(s.Location)-1]; root.Mapping != nil || root.Line[0].Function.Name != "app" {
					t.Errorf("%s: root %+v", name, root)
				}
			}
			if total != 3e7 {
				t.Errorf("%s: total %d", name, total)
			}
		}
	}
}

// TestAddressesNone: without Options.Addresses the records' addresses are
// not looked at: the profile is the one of names.
func TestAddressesNone(t *testing.T) {
	write := func(strip bool) []byte {
		b := NewBuilder(Options{Aggregate: true})
		for _, r := range addrRecords() {
			if strip {
				r.Addrs = nil
			}
			if err := b.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
		var buf strings.Builder
		if err := b.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return []byte(buf.String())
	}
	if string(write(false)) != string(write(true)) {
		t.Error("the addresses changed a profile of names")
	}
	p, err := profile.ParseData(write(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Location {
		if l.Address != 0 || l.Mapping != nil {
			t.Errorf("location %+v", l)
		}
	}
}
