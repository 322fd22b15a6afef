package bpftrace

import (
	"bytes"
	"strconv"
)

// kernelHalf is the lowest kernel address on 64-bit Linux (x86-64,
// arm64): kernel addresses have the top bit set, user addresses do not.
const kernelHalf = 1 << 63

// frame is one frame line of a stack, parsed.
type frame struct {
	name    []byte // symbol without offset, or nil when unresolved
	module  []byte // module basename from perf mode, or nil
	addr    uint64
	hasAddr bool
}

// parseFrame parses one frame line (already known to belong to a stack) in
// any of bpftrace's stack modes: "name+offset" (kstack, ustack, with
// "0x7f…" for addresses it could not resolve), "\tADDR name+offset
// (module)" (kstack(perf), ustack(perf)) and bare hex addresses (raw).
// Newer bpftrace adds "@file:line" and "[inlined] " with show_debug_info;
// both are read. ok is false for a blank line.
func parseFrame(line []byte) (f frame, ok bool) {
	line = bytes.TrimRight(line, " \t\r")
	indented := len(line) > 0 && (line[0] == ' ' || line[0] == '\t')
	perfMode := len(line) > 0 && line[0] == '\t'
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		return f, false
	}
	if perfMode {
		// "ADDR sym+off (module)", "ADDR sym+off" (kernel), "ADDR 0xADDR ([unknown])"
		if sp := bytes.IndexByte(line, ' '); sp > 0 {
			if a, err := strconv.ParseUint(string(line[:sp]), 16, 64); err == nil {
				f.addr, f.hasAddr = a, true
				line = line[sp+1:]
				line, f.module = splitModule(line)
			}
		}
	} else if !indented {
		// raw mode: a bare hex address
		if a, err := strconv.ParseUint(string(line), 16, 64); err == nil {
			f.addr, f.hasAddr = a, true
			return f, true
		}
	}
	line = bytes.TrimPrefix(line, []byte("[inlined] "))
	line = stripDebugInfo(line)
	if a, ok := hexAddr(line); ok {
		f.addr, f.hasAddr = a, true
		return f, true
	}
	if string(line) == "[unknown]" {
		return f, true
	}
	f.name = stripOffset(line)
	return f, true
}

// splitModule splits "sym+off (module)" into the symbol text and the
// module's basename. "(inlined)" and "([unknown])" give no module.
func splitModule(b []byte) (sym, module []byte) {
	if len(b) == 0 || b[len(b)-1] != ')' {
		return b, nil
	}
	i := bytes.LastIndex(b, []byte(" ("))
	if i < 0 {
		return b, nil
	}
	sym, module = b[:i], b[i+2:len(b)-1]
	if string(module) == "inlined" || string(module) == "[unknown]" || len(module) == 0 {
		return sym, nil
	}
	if j := bytes.LastIndexByte(module, '/'); j >= 0 && j < len(module)-1 {
		module = module[j+1:]
	}
	return sym, module
}

// hexAddr parses "0x" followed by hex digits only (an unresolved frame).
func hexAddr(b []byte) (uint64, bool) {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') {
		return 0, false
	}
	a, err := strconv.ParseUint(string(b[2:]), 16, 64)
	return a, err == nil
}

// stripDebugInfo removes the "@dir/file:line" bpftrace appends with
// show_debug_info ("main+12@/src/main.c:42"). Only a suffix after the last
// '@' that ends in ":digits" is removed, so versioned names such as
// "memcpy@GLIBC_2.14" and "puts@plt" are kept.
func stripDebugInfo(b []byte) []byte {
	at := bytes.LastIndexByte(b, '@')
	if at <= 0 {
		return b
	}
	colon := bytes.LastIndexByte(b, ':')
	if colon < at || colon == len(b)-1 {
		return b
	}
	for _, c := range b[colon+1:] {
		if c < '0' || c > '9' {
			return b
		}
	}
	return b[:at]
}

// stripOffset removes a trailing "+digits" (bpftrace prints decimal
// offsets) or "+0xhex".
func stripOffset(b []byte) []byte {
	i := len(b)
	for i > 0 && b[i-1] >= '0' && b[i-1] <= '9' {
		i--
	}
	if i < len(b) && i > 1 && b[i-1] == '+' {
		return b[:i-1]
	}
	if j := bytes.LastIndex(b, []byte("+0x")); j > 0 {
		if _, ok := hexAddr(b[j+1:]); ok {
			return b[:j]
		}
	}
	return b
}

// appendName appends the folded name of f: the symbol, or for an
// unresolved frame "[module]" / "[unknown]", with " <addr>" inside the
// brackets when addrs is set; ';' is replaced by ':'.
func appendName(dst []byte, f *frame, addrs bool) []byte {
	if f.name != nil {
		start := len(dst)
		dst = append(dst, f.name...)
		for i := start; i < len(dst); i++ {
			if dst[i] == ';' {
				dst[i] = ':'
			}
		}
		return dst
	}
	dst = append(dst, '[')
	if f.module != nil {
		start := len(dst)
		dst = append(dst, f.module...)
		for i := start; i < len(dst); i++ {
			if dst[i] == ';' {
				dst[i] = ':'
			}
		}
	} else {
		dst = append(dst, "unknown"...)
	}
	if addrs && f.hasAddr {
		dst = append(dst, " <0x"...)
		dst = strconv.AppendUint(dst, f.addr, 16)
		dst = append(dst, '>')
	}
	return append(dst, ']')
}
