package collapse

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"flamekit/pkg/sample"
)

// symCounts counts the frames of kept samples that perf could not name,
// by kind, so that a capture recorded without symbols is told once, with
// the cure, before anyone stares at a graph of [unknown] frames.
type symCounts struct {
	kernel, kernelUnknown int64
	user, userUnknown     int64
	jitUnknown            int64            // user frames in anonymous memory
	dsoUnknown            map[string]int64 // unresolved user frames per file
}

func (c *symCounts) merge(o *symCounts) {
	c.kernel += o.kernel
	c.kernelUnknown += o.kernelUnknown
	c.user += o.user
	c.userUnknown += o.userUnknown
	c.jitUnknown += o.jitUnknown
	for k, v := range o.dsoUnknown {
		if c.dsoUnknown == nil {
			c.dsoUnknown = make(map[string]int64)
		}
		c.dsoUnknown[k] += v
	}
}

// count counts the frames of one sample. It runs for every frame of every
// sample kept, so the common cases (a resolved user or kernel frame) cost a
// few byte comparisons.
func (c *symCounts) count(frames []sample.Frame) {
	for i := range frames {
		f := &frames[i]
		sym, dso := f.Symbol, f.DSO
		unknown := len(sym) == len("[unknown]") && string(sym) == "[unknown]" ||
			len(sym) >= 4 && isLowerHex(sym[0]) && (sym[1] == 'x' || isLowerHex(sym[1]) && isLowerHex(sym[2])) && unresolved(sym)
		var kernel bool
		switch {
		case len(dso) >= 7 && dso[1] == 'k' && string(dso[:7]) == "[kernel":
			kernel = true
		case unknown:
			kernel = isKernelFrame(f)
		case len(dso) > 0 && dso[len(dso)-1] == 'x':
			kernel = bytes.HasSuffix(dso, []byte("vmlinux"))
		}
		if kernel {
			c.kernel++
			if unknown {
				c.kernelUnknown++
			}
			continue
		}
		c.user++
		if !unknown {
			continue
		}
		c.userUnknown++
		if isAnonDSO(dso) {
			c.jitUnknown++
			continue
		}
		if c.dsoUnknown == nil {
			c.dsoUnknown = make(map[string]int64)
		}
		c.dsoUnknown[string(dso)]++
	}
}

// unresolved reports whether perf printed no symbol: "[unknown]" or a
// bare address.
func unresolved(sym []byte) bool {
	if string(sym) == "[unknown]" {
		return true
	}
	s := bytes.TrimPrefix(sym, []byte("0x"))
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if !isLowerHex(c) && !(c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(s) >= 4 // a short all-hex word may be a real name ("add")
}

// isKernelFrame: the kernel image, a kernel module, or an unknown module
// at a kernel address (perf prints "[unknown] ([unknown])" when it cannot
// read the kernel's symbols).
func isKernelFrame(f *sample.Frame) bool {
	if bytes.HasPrefix(f.DSO, []byte("[kernel")) || bytes.HasSuffix(f.DSO, []byte("vmlinux")) {
		return true
	}
	if string(f.DSO) == "[unknown]" || len(f.DSO) > 1 && f.DSO[0] == '[' && bytes.HasSuffix(f.DSO, []byte(".ko]")) {
		return len(f.Addr) >= 16 && bytes.HasPrefix(f.Addr, []byte("ffff"))
	}
	return false
}

// isAnonDSO: code that is in no file perf knows, where JIT compilers put
// theirs (or a perf map that lacks the address).
func isAnonDSO(dso []byte) bool {
	return string(dso) == "[unknown]" || bytes.HasPrefix(dso, []byte("//anon")) || bytes.HasPrefix(dso, []byte("[anon")) ||
		bytes.HasPrefix(dso, []byte("/memfd:")) || isJITModule(dso)
}

// Thresholds of the symbol check.
const (
	kernelUnknownShare = 0.10 // of kernel frames
	userUnknownShare   = 0.20 // of user frames
	minUnknownFrames   = 20
)

// messages returns the symbol warnings, one per kind, or none.
func (c *symCounts) messages() []string {
	var msgs []string
	pct := func(n, of int64) int { return int(100*float64(n)/float64(of) + 0.5) }
	if c.kernelUnknown >= minUnknownFrames && float64(c.kernelUnknown) >= kernelUnknownShare*float64(c.kernel) {
		msgs = append(msgs, fmt.Sprintf("%d%% of the kernel frames have no symbol ([unknown]): perf could not read the kernel's symbols. "+
			"Run perf script (or perf record) as root, or allow it with sysctl kernel.kptr_restrict=0 and kernel.perf_event_paranoid=1 (or lower), then run perf script again",
			pct(c.kernelUnknown, c.kernel)))
	}
	if c.userUnknown < minUnknownFrames || float64(c.userUnknown) < userUnknownShare*float64(c.user) {
		return msgs
	}
	dsoUnknown := c.userUnknown - c.jitUnknown
	if c.jitUnknown >= dsoUnknown {
		msgs = append(msgs, fmt.Sprintf("%d%% of the user frames are in anonymous memory with no symbol, as JIT-compiled code is: "+
			"have the runtime write /tmp/perf-PID.map (Java: -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit or perf-map-agent; Node: --perf-basic-prof), "+
			"then run perf script again while the map is there", pct(c.jitUnknown, c.user)))
		return msgs
	}
	type dso struct {
		name string
		n    int64
	}
	var list []dso
	for k, v := range c.dsoUnknown {
		list = append(list, dso{k, v})
	}
	slices.SortFunc(list, func(a, b dso) int {
		if a.n != b.n {
			return int(b.n - a.n)
		}
		return strings.Compare(a.name, b.name)
	})
	var names []string
	for i, d := range list {
		if i == 3 {
			names = append(names, "...")
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", d.name, thousands(d.n)))
	}
	msgs = append(msgs, fmt.Sprintf("%d%% of the user frames have no symbol, most in %s: install their debug symbols (Debian: the -dbgsym packages) "+
		"or build with -g; short or broken stacks come from code built without frame pointers: build with -fno-omit-frame-pointer or record with --call-graph dwarf",
		pct(c.userUnknown, c.user), strings.Join(names, ", ")))
	return msgs
}
