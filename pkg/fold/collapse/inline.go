package collapse

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// inliner expands a user-space address into its chain of inlined
// functions with addr2line (binutils), as --inline does in
// stackcollapse-perf.pl. Results are cached per (address, module); it is
// safe for concurrent use.
type inliner struct {
	context bool
	mu      sync.Mutex
	cache   map[string]string
	nm      map[string]string
	warned  bool
	warn    func(format string, args ...any)
}

func newInliner(context bool, warn func(string, ...any)) *inliner {
	return &inliner{context: context, cache: map[string]string{}, nm: map[string]string{}, warn: warn}
}

// resolve returns the frames for pc in module, outermost first, joined by
// ';' ("" when addr2line knows nothing).
func (in *inliner) resolve(pc, rawfunc, module []byte) string {
	key := string(pc) + "\x00" + string(module)
	in.mu.Lock()
	r, ok := in.cache[key]
	in.mu.Unlock()
	if ok {
		return r
	}
	r = in.lookup(string(pc), string(rawfunc), string(module))
	in.mu.Lock()
	in.cache[key] = r
	in.mu.Unlock()
	return r
}

func (in *inliner) lookup(pc, rawfunc, module string) string {
	out, err := exec.Command("addr2line", "-a", pc, "-e", module, "-i", "-f", "-s", "-C").Output()
	if err != nil {
		in.warnOnce("--inline: addr2line -e %s: %v", module, err)
	}
	// Drop the first line (the address).
	if i := bytes.IndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	} else {
		out = nil
	}
	if bytes.Contains(out, []byte("??\n??:0")) {
		// addr2line did not know the address: find the symbol with nm
		// and retry at its address plus the offset perf printed.
		if i := strings.LastIndex(rawfunc, "+0x"); i > 0 && isLowerHexString(rawfunc[i+3:]) {
			fn := rawfunc[:i]
			off, _ := strconv.ParseUint(rawfunc[i+3:], 16, 64)
			if base, ok := in.symbolAddr(module, fn); ok {
				return in.lookup(fmt.Sprintf("0x%x", base+off), "", module)
			}
		}
	}
	var frames []string
	item := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if i := strings.Index(l, " (discriminator "); i >= 0 {
			j := i + len(" (discriminator ")
			k := j
			for k < len(l) && !isSpace(l[k]) {
				k++
			}
			// \S+ is greedy: the ')' is the last one of the run.
			if m := strings.LastIndexByte(l[j:k], ')'); m > 0 {
				l = l[:i] + l[j+m+1:]
			}
		}
		if item == "" {
			item = l
			continue
		}
		if in.context {
			frames = append(frames, item+":"+l)
		} else {
			frames = append(frames, item)
		}
		item = ""
	}
	// addr2line prints the innermost function first.
	for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
		frames[i], frames[j] = frames[j], frames[i]
	}
	return strings.Join(frames, ";")
}

func isLowerHexString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

// symbolAddr finds fn's address in the output of nm module (cached).
func (in *inliner) symbolAddr(module, fn string) (uint64, bool) {
	in.mu.Lock()
	syms, ok := in.nm[module]
	in.mu.Unlock()
	if !ok {
		out, err := exec.Command("nm", module).Output()
		if err != nil {
			in.warnOnce("--inline: nm %s: %v", module, err)
		}
		syms = string(out)
		in.mu.Lock()
		in.nm[module] = syms
		in.mu.Unlock()
	}
	for _, l := range strings.Split(syms, "\n") {
		// "0000000000001139 T outer"
		addr, rest, ok := strings.Cut(l, " ")
		if !ok || len(rest) < 3 || rest[1] != ' ' || rest[2:] != fn || !isLowerHexString(addr) {
			continue
		}
		v, err := strconv.ParseUint(addr, 16, 64)
		return v, err == nil
	}
	return 0, false
}

func (in *inliner) warnOnce(format string, args ...any) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.warned || in.warn == nil {
		return
	}
	in.warned = true
	in.warn(format, args...)
}
