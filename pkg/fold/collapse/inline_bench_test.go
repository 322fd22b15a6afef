package collapse

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// BenchmarkInline resolves the inline chains of addresses of a real -O2
// C++ binary (templates, lambdas, std::function: every 8th address of
// its code, about 700) as --inline does, from a cold cache each time:
// "addr2line" the way it was done before package dwarfline (one
// addr2line per address, nm on a miss, as stackcollapse-perf.pl), and
// "dwarfline", reading the DWARF in the process.
//
//	go test -run '^$' -bench BenchmarkInline -benchtime 1x ./pkg/fold/collapse
func BenchmarkInline(b *testing.B) {
	data, err := golden.Read("../../perf/dwarfline/testdata/templates.gz")
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "templates")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	var pcs [][]byte
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			for a := s.Addr; a < s.Addr+s.Size; a += 8 {
				pcs = append(pcs, []byte(strconv.FormatUint(a, 16)))
			}
		}
	}
	f.Close()
	mod := []byte(bin)
	b.Run("addr2line", func(b *testing.B) {
		if _, err := exec.LookPath("addr2line"); err != nil {
			b.Skip("no addr2line")
		}
		for b.Loop() {
			in := &execInliner{cache: map[string]string{}, nm: map[string]string{}}
			for _, pc := range pcs {
				in.lookup(string(pc), "", string(mod))
			}
		}
		b.ReportMetric(float64(len(pcs)), "addresses")
	})
	b.Run("dwarfline", func(b *testing.B) {
		for b.Loop() {
			in := newInliner(false, nil)
			for _, pc := range pcs {
				in.resolve(pc, nil, mod)
			}
		}
		b.ReportMetric(float64(len(pcs)), "addresses")
	})
}

// execInliner is --inline as it was before package dwarfline: addr2line
// run per address, nm on a miss (kept for the benchmark only).
type execInliner struct {
	cache map[string]string
	nm    map[string]string
}

func (in *execInliner) lookup(pc, rawfunc, module string) string {
	out, _ := exec.Command("addr2line", "-a", pc, "-e", module, "-i", "-f", "-s", "-C").Output()
	if i := bytes.IndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	} else {
		out = nil
	}
	if bytes.Contains(out, []byte("??\n??:0")) {
		if i := strings.LastIndex(rawfunc, "+0x"); i > 0 && isLowerHexString(rawfunc[i+3:]) {
			off, _ := strconv.ParseUint(rawfunc[i+3:], 16, 64)
			if base, ok := in.symbolAddr(module, rawfunc[:i]); ok {
				return in.lookup(fmt.Sprintf("0x%x", base+off), "", module)
			}
		}
	}
	var frames []string
	item := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if item == "" {
			item = l
			continue
		}
		frames = append(frames, item)
		item = ""
	}
	for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
		frames[i], frames[j] = frames[j], frames[i]
	}
	return strings.Join(frames, ";")
}

func (in *execInliner) symbolAddr(module, fn string) (uint64, bool) {
	syms, ok := in.nm[module]
	if !ok {
		out, _ := exec.Command("nm", module).Output()
		syms = string(out)
		in.nm[module] = syms
	}
	for _, l := range strings.Split(syms, "\n") {
		addr, rest, ok := strings.Cut(l, " ")
		if ok && len(rest) >= 3 && rest[1] == ' ' && rest[2:] == fn && isLowerHexString(addr) {
			v, err := strconv.ParseUint(addr, 16, 64)
			return v, err == nil
		}
	}
	return 0, false
}
