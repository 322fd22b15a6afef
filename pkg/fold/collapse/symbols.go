package collapse

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"flamekit/pkg/perf/sample"
)

// symCounts counts the frames of kept samples that perf could not name,
// by kind, so that a capture recorded without symbols is told once, with
// the cure, before anyone stares at a graph of [unknown] frames.
//
// Three causes leave a user frame without a name, and perf tells them
// apart by the mapping it found for the address:
//   - a file whose symbols perf could not read (stripped, no debug
//     symbols): the file is named, "[unknown] (/usr/bin/dash)";
//   - anonymous executable memory, where JIT compilers put their code:
//     perf names the mapping "/tmp/perf-PID.map" (or "//anon", "[anon:…]",
//     "/memfd:…"), and the runtime's perf map has no entry;
//   - no mapping at all, "[unknown] ([unknown])": a return address that
//     points nowhere (0x0, 0xa, stack data), as a frame-pointer walk gives
//     once it has gone through code built without frame pointers (Debian's
//     libc, perl, bash). The stack is broken there; what follows is garbage.
//     Such addresses are no frames: they count per sample, and the program
//     (comm) and the file of the last frame before the break are named.
type symCounts struct {
	kernel, kernelUnknown int64
	user, userUnknown     int64            // user frames, addresses in no mapping left out
	jitUnknown            int64            // user frames in anonymous executable memory
	dsoUnknown            map[string]int64 // unresolved user frames per file
	lastDSO               string           // the last key of dsoUnknown counted
	userSamples           int64            // samples with user frames
	broken                int64            // of which: a user frame at an address in no mapping
	brokenZero            bool             // one of those addresses was 0
	brokenComm            map[string]int64 // broken samples per program (comm)
	brokenBelow           map[string]int64 // per file of the frame before the break
	// dwarf: the capture was recorded with --call-graph dwarf, whose
	// user stacks were unwound from stack dumps, not frame pointers.
	dwarf bool
}

// dwarfCmdline reports whether a perf record command line asked for
// --call-graph dwarf.
func dwarfCmdline(cmd string) bool {
	return strings.Contains(cmd, "--call-graph dwarf") || strings.Contains(cmd, "--call-graph=dwarf")
}

func (c *symCounts) merge(o *symCounts) {
	c.kernel += o.kernel
	c.kernelUnknown += o.kernelUnknown
	c.user += o.user
	c.userUnknown += o.userUnknown
	c.jitUnknown += o.jitUnknown
	c.dsoUnknown = mergeCounts(c.dsoUnknown, o.dsoUnknown)
	c.userSamples += o.userSamples
	c.broken += o.broken
	c.brokenZero = c.brokenZero || o.brokenZero
	c.brokenComm = mergeCounts(c.brokenComm, o.brokenComm)
	c.brokenBelow = mergeCounts(c.brokenBelow, o.brokenBelow)
}

// addUnknownDSO counts a user frame without a symbol in the file dso.
// Frames of one file follow each other: the last file's key is kept, so
// that counting allocates once per file, not per frame.
func (c *symCounts) addUnknownDSO(dso []byte) {
	if c.dsoUnknown != nil && string(dso) == c.lastDSO {
		c.dsoUnknown[c.lastDSO]++
		return
	}
	c.lastDSO = string(dso)
	if c.dsoUnknown == nil {
		c.dsoUnknown = make(map[string]int64)
	}
	c.dsoUnknown[c.lastDSO]++
}

func mergeCounts(dst, src map[string]int64) map[string]int64 {
	for k, v := range src {
		if dst == nil {
			dst = make(map[string]int64)
		}
		dst[k] += v
	}
	return dst
}

func addCount(m *map[string]int64, k []byte) {
	if *m == nil {
		*m = make(map[string]int64)
	}
	(*m)[string(k)]++
}

// count counts the frames of one sample of the program comm. It runs for
// every frame of every sample kept, so the common cases (a resolved user or
// kernel frame) cost a few byte comparisons.
func (c *symCounts) count(comm []byte, frames []sample.Frame) {
	c.countAt(comm, len(frames), func(i int) *sample.Frame { return &frames[i] },
		func(i int) frameClass { return classOf(&frames[i]) })
}

// frameClass is what the symbol check makes of one frame.
type frameClass uint8

const (
	classKernel        frameClass = iota + 1
	classKernelUnknown            // a kernel frame without a symbol
	classBroken                   // a user frame at an address in no mapping
	classBrokenZero               // the same, at address 0
	classUser                     // a user frame with a symbol
	classUserJIT                  // without, in anonymous executable memory
	classUserDSO                  // without, in a file (counted by file)
)

// classOf returns the class of f.
func classOf(f *sample.Frame) frameClass {
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
	switch {
	case kernel && unknown:
		return classKernelUnknown
	case kernel:
		return classKernel
	case unknown && string(dso) == "[unknown]":
		if len(bytes.TrimLeft(f.Addr, "0")) == 0 {
			return classBrokenZero
		}
		return classBroken
	case !unknown:
		return classUser
	case isAnonDSO(dso):
		return classUserJIT
	}
	return classUserDSO
}

// countAt is count for the n frames that frame gives, whose classes
// class gives.
func (c *symCounts) countAt(comm []byte, n int, frame func(i int) *sample.Frame, class func(i int) frameClass) {
	brokenAt := -1
	user := false
	for i := range n {
		switch class(i) {
		case classKernel:
			c.kernel++
		case classKernelUnknown:
			c.kernel++
			c.kernelUnknown++
		case classBroken, classBrokenZero:
			// Not a frame: the walk has left the stack (a chain
			// caught in a loop repeats such an address up to perf's
			// depth limit). The sample counts once, below.
			user = true
			if brokenAt < 0 {
				brokenAt = i
			}
			if class(i) == classBrokenZero {
				c.brokenZero = true
			}
		case classUser:
			user = true
			c.user++
		case classUserJIT:
			user = true
			c.user++
			c.userUnknown++
			c.jitUnknown++
		case classUserDSO:
			user = true
			c.user++
			c.userUnknown++
			c.addUnknownDSO(frame(i).DSO)
		}
	}
	if !user {
		return
	}
	c.userSamples++
	if brokenAt < 0 {
		return
	}
	c.broken++
	addCount(&c.brokenComm, comm)
	// The frame before the break (toward the leaf) is the code that ran
	// without a frame pointer, or was called from such code.
	if brokenAt > 0 {
		if f := frame(brokenAt - 1); !isKernelFrame(f) && string(f.DSO) != "[unknown]" {
			dso := f.DSO
			if i := bytes.LastIndexByte(dso, '/'); i >= 0 {
				dso = dso[i+1:]
			}
			addCount(&c.brokenBelow, dso)
		}
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

// isAnonDSO: anonymous executable memory, where JIT compilers put their
// code; perf names it after the perf map it looks in, /tmp/perf-PID.map.
func isAnonDSO(dso []byte) bool {
	return bytes.HasPrefix(dso, []byte("//anon")) || bytes.HasPrefix(dso, []byte("[anon")) ||
		bytes.HasPrefix(dso, []byte("/memfd:")) || isJITModule(dso)
}

// Thresholds of the symbol check.
const (
	kernelUnknownShare = 0.10 // of kernel frames
	userUnknownShare   = 0.20 // of user frames
	minUnknownFrames   = 20
	brokenShare        = 0.10 // of the samples with user frames
	minBroken          = 10
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
	brokenMsg := c.broken >= minBroken && float64(c.broken) >= brokenShare*float64(c.userSamples)
	if brokenMsg {
		where := "addresses in no mapping"
		if c.brokenZero {
			where += ", such as 0x0"
		}
		below := ""
		if len(c.brokenBelow) > 0 {
			below = " (" + topNames(c.brokenBelow) + ")"
		}
		if c.dwarf {
			msgs = append(msgs, fmt.Sprintf("the user stacks of %s are broken (%d%% of the samples with user frames): "+
				"unwinding their stack dumps%s reached %s, as perf's unwinder does. "+
				"The code there has no CFI (JIT code, or objects not on this machine): record it with frame pointers (-g) instead",
				topNames(c.brokenComm), pct(c.broken, c.userSamples), below, where))
		} else {
			msgs = append(msgs, fmt.Sprintf("the user stacks of %s are broken (%d%% of the samples with user frames): "+
				"they run code built without frame pointers%s, where the frame-pointer walk reached %s. "+
				"Record with perf record --call-graph dwarf, or build that code with -fno-omit-frame-pointer",
				topNames(c.brokenComm), pct(c.broken, c.userSamples), below, where))
		}
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
	cure := "install their debug symbols (Debian: the -dbgsym packages) or build with -g"
	if !brokenMsg && !c.dwarf {
		cure += "; short or broken stacks come from code built without frame pointers: build with -fno-omit-frame-pointer or record with --call-graph dwarf"
	}
	msgs = append(msgs, fmt.Sprintf("%d%% of the user frames have no symbol, most in %s: %s",
		pct(dsoUnknown, c.user), topCounts(c.dsoUnknown), cure))
	return msgs
}

// topNames lists the three names of m with the highest counts: "a, b,
// c, ...".
func topNames(m map[string]int64) string { return top(m, false) }

// topCounts is topNames with the counts: "a (12), b (3)".
func topCounts(m map[string]int64) string { return top(m, true) }

func top(m map[string]int64, withCounts bool) string {
	type entry struct {
		name string
		n    int64
	}
	var list []entry
	for k, v := range m {
		list = append(list, entry{k, v})
	}
	slices.SortFunc(list, func(a, b entry) int {
		if a.n != b.n {
			return int(b.n - a.n)
		}
		return strings.Compare(a.name, b.name)
	})
	var names []string
	for i, e := range list {
		if i == 3 {
			names = append(names, "...")
			break
		}
		if withCounts {
			names = append(names, fmt.Sprintf("%s (%s)", e.name, thousands(e.n)))
		} else {
			names = append(names, e.name)
		}
	}
	return strings.Join(names, ", ")
}
