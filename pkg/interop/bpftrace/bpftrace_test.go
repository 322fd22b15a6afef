package bpftrace

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
)

// fold runs Collapse on text and returns the folded output.
func fold(t *testing.T, text string, opt Options) (string, Summary, error) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Collapse(strings.NewReader(text), "in.bt", opt, &out)
	return out.String(), sum, err
}

func TestFoldShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  Options
		want string
	}{
		{
			name: "kstack ustack comm",
			in: "Attaching 1 probe...\n\n\n@[\n    do_syscall_64+113\n    entry_SYSCALL_64_after_hwframe+118\n, \n" +
				"    __GI___write+79\n    main+849\n, cpu spin]: 12\n",
			want: "cpu spin;main;__GI___write;entry_SYSCALL_64_after_hwframe;do_syscall_64 12\n",
		},
		{
			name: "kernel annotation",
			in:   "@[\n    do_syscall_64+113\n, \n    main+849\n, sh]: 3\n",
			opt:  Options{Kernel: true},
			want: "sh;main;do_syscall_64_[k] 3\n",
		},
		{
			name: "empty kstack first: the stack after it is the user stack",
			in:   "@[, \n    inner+3\n    main+849\n, sh]: 5\n",
			opt:  Options{Kernel: true},
			want: "sh;main;inner 5\n",
		},
		{
			name: "both stacks empty",
			in:   "@[, , swapper/0]: 7\n",
			want: "swapper/0 7\n",
		},
		{
			name: "empty ustack at the end",
			in:   "@[\n    schedule+35\n, ]: 2\n",
			opt:  Options{Kernel: true},
			want: "schedule_[k] 2\n",
		},
		{
			name: "kstack alone, with its user-mode samples",
			in:   "@[\n    vfs_read+10\n    ksys_read+5\n]: 4\n@[]: 9\n",
			opt:  Options{Kernel: true},
			want: " 9\nksys_read_[k];vfs_read_[k] 4\n",
		},
		{
			name: "comm first: still the root",
			in:   "@c[templates, \n    mas_walk+63\n    exc_page_fault+308\n]: 2\n@c[templates, ]: 206\n",
			opt:  Options{Kernel: true},
			want: "templates 206\ntemplates;exc_page_fault_[k];mas_walk_[k] 2\n",
		},
		{
			name: "perf mode, user stack first in the key: addresses decide",
			in: "@[\n\t55b2c442d28e (anonymous namespace)::hidden_mix(unsigned long)+21 (/tmp/bpfw/templates)\n" +
				"\t7f9d7e24524a __libc_start_call_main+122 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n, \n" +
				"\tffffffff8225f2d9 pvm_irq_enable+25\n\tffffffff81000130 entry_SYSCALL_64_after_hwframe+118\n]: 1\n",
			opt:  Options{Kernel: true},
			want: "__libc_start_call_main;(anonymous namespace)::hidden_mix(unsigned long);entry_SYSCALL_64_after_hwframe_[k];pvm_irq_enable_[k] 1\n",
		},
		{
			name: "unresolved frames",
			in: "@[\n\t55d296d9413e 0x55d296d9413e ([unknown])\n\t7ff7a2eb224a 0x7ff7a2eb224a (/usr/lib/libc.so.6)\n, ]: 3\n" +
				"@[\n    0x55d296d94143\n    0x7ff7a2eb224a\n]: 13\n",
			want: "[libc.so.6];[unknown] 3\n[unknown];[unknown] 13\n",
		},
		{
			name: "unresolved frames with addresses",
			in:   "@[\n\t55d296d9413e 0x55d296d9413e ([unknown])\n\t7ff7a2eb224a 0x7ff7a2eb224a (/usr/lib/libc.so.6)\n, ]: 3\n",
			opt:  Options{Addrs: true},
			want: "[libc.so.6 <0x7ff7a2eb224a>];[unknown <0x55d296d9413e>] 3\n",
		},
		{
			name: "raw mode",
			in:   "@[\nffffffff8133ca03\nffffffff81000e06\n, \n55d296d9413e\n, t]: 3\n",
			opt:  Options{Kernel: true, Addrs: true},
			want: "t;[unknown <0x55d296d9413e>];[unknown <0xffffffff81000e06>]_[k];[unknown <0xffffffff8133ca03>]_[k] 3\n",
		},
		{
			name: "offsets summed into one frame; blanks and C++ names kept",
			in: "@[\n    std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke(std::_Any_data const&, int&&, int&&)+0\n    main+805\n]: 1\n" +
				"@[\n    std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke(std::_Any_data const&, int&&, int&&)+2\n    main+805\n]: 4\n",
			want: "main;std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke(std::_Any_data const&, int&&, int&&) 5\n",
		},
		{
			name: "Go names and versioned symbols",
			in:   "@[\n    runtime.goexit.abi0+1\n    memcpy@GLIBC_2.14+5\n    puts@plt\n]: 2\n",
			want: "puts@plt;memcpy@GLIBC_2.14;runtime.goexit.abi0 2\n",
		},
		{
			name: "debug info and inlined frames (show_debug_info)",
			in:   "@[\n    [inlined] helper@/src/a.c:10\n    main+12@/src/a.c:42\n]: 2\n",
			want: "main;helper 2\n",
		},
		{
			name: "unwind failure",
			in:   "@[\n    leaf+1\n    <unwind failure>\n]: 2\n",
			want: "<unwind failure>;leaf 2\n",
		},
		{
			name: "semicolons in names",
			in:   "@[\n    a;b+1\n, x;y]: 2\n",
			want: "x:y;a:b 2\n",
		},
		{
			name: "CRLF",
			in:   "@[\r\n    f+1\r\n, \r\n    g+2\r\n, c]: 2\r\n",
			want: "c;g;f 2\n",
		},
		{
			name: "trailing blanks stripped by an editor",
			in:   "@[\n    f+1\n,\n    g+2\n, c]: 2\n",
			want: "c;g;f 2\n",
		},
		{
			name: "scalar keys only, named",
			in:   "@n[9144, cpu spin, 3]: 181\n@n[9144, ponger, 3]: 1\n",
			opt:  Options{Map: "n"},
			want: "9144;cpu spin;3 181\n9144;ponger;3 1\n",
		},
		{
			name: "keyless map, named",
			in:   "@m: 182\n",
			opt:  Options{Map: "@m"},
			want: " 182\n",
		},
		{
			name: "string key holding ', ' and ']: '",
			in:   "@str[a, b]: 3]: 182\n",
			opt:  Options{Map: "@str"},
			want: "a;b]:_3 182\n",
		},
		{
			name: "a stack ending in a number is not read as a count",
			in:   "@[, Worker 2]: 7\n@[\n    f+1\n, x 1.5]: 2\n",
			want: "Worker_2 7\nx 1.5;f 2\n",
		},
		{
			name: "zero values dropped",
			in:   "@[\n    f+1\n]: 0\n@[\n    g+1\n]: 3\n",
			want: "g 3\n",
		},
		{
			name: "2^53, the largest count",
			in:   "@[\n    f+1\n]: 9007199254740992\n",
			want: "f 9007199254740992\n",
		},
		{
			name: "concatenated dumps and periodic prints add up",
			in:   "@[\n    f+1\n]: 3\n\n@[\n    f+2\n]: 4\n",
			want: "f 7\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := fold(t, tt.in, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if sum.Skipped.Count != 0 {
				t.Errorf("skipped %v", sum.Skipped)
			}
		})
	}
}

func TestChooseMap(t *testing.T) {
	dump := "Attaching 2 probes...\n\n\n" +
		"@bytes[\n    write+5\n, sh]: 100\n" +
		"@cpu[]: 50\n" + // user-mode samples of @cpu[kstack], before any stack
		"@cpu[\n    vfs_write+9\n]: 5\n" +
		"@samples: 55\n" +
		"@size: \n[4, 8)    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n" +
		"@start[1234]: 99\n"
	tests := []struct {
		name      string
		in        string
		opt       Options
		want      string
		wantMap   string
		wantErr   error
		wantTotal float64
	}{
		{name: "first map with a stack", in: dump, want: "sh;write 100\n", wantMap: "@bytes", wantTotal: 100},
		{name: "named, with its stackless entries read before a stack", in: dump, opt: Options{Map: "@cpu"}, want: " 50\nvfs_write 5\n", wantMap: "@cpu", wantTotal: 55},
		{name: "name without @", in: dump, opt: Options{Map: "cpu"}, want: " 50\nvfs_write 5\n", wantMap: "@cpu", wantTotal: 55},
		{name: "stackless entries kept until the map shows a stack", in: "@k[]: 180\n@k[\n    f+1\n]: 1\n", want: " 180\nf 1\n", wantMap: "@k", wantTotal: 181},
		{name: "a map without stacks is passed over", in: "@start[1234]: 99\n@[\n    f+1\n]: 1\n", want: "f 1\n", wantMap: "@", wantTotal: 1},
		{name: "histogram named", in: dump, opt: Options{Map: "@size"}, wantErr: ErrUnfoldable},
		{name: "no such map", in: dump, opt: Options{Map: "@nope"}, wantErr: ErrNoSuchMap},
		{name: "no map with a stack", in: "@start[1234]: 99\n@m: 5\n", wantErr: ErrNoStackMap},
		{name: "empty input", in: "", want: ""},
		{name: "no maps at all", in: "Attaching 1 probe...\nhello from printf\n", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := fold(t, tt.in, tt.opt)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got != tt.want || sum.Map != tt.wantMap || sum.Total != tt.wantTotal {
				t.Errorf("got %q map %q total %v, want %q map %q total %v", got, sum.Map, sum.Total, tt.want, tt.wantMap, tt.wantTotal)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	dump := "Attaching 2 probes...\nprintf line\n" +
		"@a[\n    f+1\n]: 3\n" +
		"@a[\n    g+1\n]: 4\n" +
		"@h[sh]:\n[1]  1 |@|\n\n" +
		"@s[x]: count 3, average 5, total 15\n"
	_, sum, err := fold(t, dump, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []MapInfo{
		{Name: "@a", Entries: 2, Stacks: true, Folded: true},
		{Name: "@h", Entries: 1, Unfoldable: "histogram"},
		{Name: "@s", Entries: 1, Unfoldable: "non-integer values"},
	}
	if len(sum.Maps) != len(want) {
		t.Fatalf("maps %+v", sum.Maps)
	}
	for i := range want {
		if sum.Maps[i] != want[i] {
			t.Errorf("map %d: %+v, want %+v", i, sum.Maps[i], want[i])
		}
	}
	if sum.Other != 2 || sum.Entries != 2 || sum.Total != 7 || sum.Skipped.Count != 0 {
		t.Errorf("summary %+v", sum)
	}
}

func TestSkipped(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		opt      Options
		want     string
		wantLine int
		wantErr  error
	}{
		{name: "cut at the end", in: "@[\n    f+1\n]: 2\n@[\n    g+1\n", want: "f 2\n", wantLine: 4, wantErr: ErrTruncated},
		{name: "cut by the next map", in: "@[\n    g+1\n@[\n    f+1\n]: 2\n", want: "f 2\n", wantLine: 1, wantErr: ErrTruncated},
		{name: "negative value", in: "@[\n    f+1\n]: 2\n@[\n    g+1\n]: -5\n", want: "f 2\n", wantLine: 4, wantErr: ErrValue},
		{name: "string value", in: "@x[a]: 1\n@x[b]: hello\n", opt: Options{Map: "x"}, want: "a 1\n", wantLine: 2, wantErr: ErrValue},
		// bpftrace counts are u64: an underflowed one is 2^64-1, which
		// no float64 holds; 2^53 is the largest kept, exactly.
		{name: "u64 max", in: "@[\n    f+1\n]: 2\n@[\n    g+1\n]: 18446744073709551615\n", want: "f 2\n", wantLine: 4, wantErr: folded.ErrCountRange},
		{name: "beyond 2^53", in: "@[\n    f+1\n]: 9007199254740993\n@[\n    g+1\n]: 9007199254740992\n", want: "g 9007199254740992\n", wantLine: 1, wantErr: folded.ErrCountRange},
		{name: "beyond 2^64", in: "@x[a]: 1\n@x[b]: 99999999999999999999999\n", opt: Options{Map: "x"}, want: "a 1\n", wantLine: 2, wantErr: folded.ErrCountRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := fold(t, tt.in, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if sum.Skipped.Count != 1 || sum.Skipped.First == nil {
				t.Fatalf("skipped %+v", sum.Skipped)
			}
			first := sum.Skipped.First
			if first.File != "in.bt" || first.Line != tt.wantLine || !errors.Is(first, tt.wantErr) {
				t.Errorf("first skip %v, want line %d: %v", first, tt.wantLine, tt.wantErr)
			}
		})
	}
}

func TestEmitError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Fold(strings.NewReader("@[\n    f+1\n]: 2\n"), "in.bt", Options{}, func(*folded.Record) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
}

type failReader struct{ err error }

func (f failReader) Read([]byte) (int, error) { return 0, f.err }

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Fold(io.MultiReader(strings.NewReader("@[\n"), failReader{boom}), "in.bt", Options{}, func(*folded.Record) error { return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "in.bt") {
		t.Fatalf("err = %v", err)
	}
}

func TestLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	got, _, err := fold(t, "@[\n    "+long+"+1\n, c]: 2\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got != "c;"+long+" 2\n" {
		t.Errorf("long frame lost: %d bytes", len(got))
	}
}

// TestRealCaptures folds the real dumps of testdata/bpf and checks the
// totals against the sums of the values in the dumps (added up here with
// no parsing beyond "]: N" at the end of a line of the chosen map).
func TestRealCaptures(t *testing.T) {
	tests := []struct {
		file      string
		opt       Options
		golden    string
		wantMap   string
		wantTotal float64
		entries   int
	}{
		{"bpftrace-profile.txt.gz", Options{}, "profile.folded", "@", 260, 7},
		{"bpftrace-profile.txt.gz", Options{Kernel: true}, "profile-kernel.folded", "@", 260, 7},
		{"bpftrace-maps.txt.gz", Options{}, "maps.folded", "@bytes", 31589438, 3},
		{"bpftrace-maps.txt.gz", Options{Map: "@cpu", Kernel: true}, "maps-cpu-kernel.folded", "@cpu", 78, 7},
		{"bpftrace-edge.txt.gz", Options{Kernel: true}, "edge-kernel.folded", "@", 182, 5},
		{"bpftrace-edge.txt.gz", Options{Map: "@u", Addrs: true}, "edge-u-addrs.folded", "@u", 182, 3},
		{"bpftrace-edge.txt.gz", Options{Map: "@k"}, "edge-k.folded", "@k", 182, 3},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			raw := readCapture(t, tt.file)
			if got := sumValues(raw, tt.wantMap); got != tt.wantTotal {
				t.Fatalf("the dump's own total for %s is %v, want %v", tt.wantMap, got, tt.wantTotal)
			}
			var out bytes.Buffer
			sum, err := Collapse(bytes.NewReader(raw), tt.file, tt.opt, &out)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Map != tt.wantMap || sum.Total != tt.wantTotal || sum.Entries != tt.entries || sum.Skipped.Count != 0 {
				t.Errorf("summary %+v, want map %s total %v entries %d", sum, tt.wantMap, tt.wantTotal, tt.entries)
			}
			var outTotal float64
			rd := folded.NewReader(bytes.NewReader(out.Bytes()), "out")
			for rd.Next() {
				outTotal += rd.Record().Count
			}
			if rd.Err() != nil || outTotal != tt.wantTotal {
				t.Errorf("folded output total %v (err %v), want %v", outTotal, rd.Err(), tt.wantTotal)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.golden), out.Bytes())
		})
	}
}

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	rc, err := decompress.Open(filepath.Join("..", "..", "..", "testdata", "bpf", name))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sumValues adds the values of the "]: N" lines (and "@name: N") that
// belong to map name, tracking the current map by its "@name" lines.
func sumValues(raw []byte, name string) float64 {
	var total float64
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "@") {
			i := strings.IndexAny(line, "[:")
			if i > 0 {
				cur = line[:i]
			}
		}
		if cur != name {
			continue
		}
		i := strings.LastIndex(line, "]: ")
		if i < 0 {
			continue
		}
		var n float64
		ok := true
		for _, c := range line[i+3:] {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + float64(c-'0')
		}
		if ok {
			total += n
		}
	}
	return total
}
