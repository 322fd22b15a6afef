package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// Kernel holds the symbols of one kernel, from a kallsyms file: the
// kernel's own (Table) and each module's.
type Kernel struct {
	// Path is the kallsyms file the symbols came from.
	Path string
	// Table has the kernel's own symbols, at their absolute addresses.
	Table *Table
	// Modules has each module's symbols by name without brackets
	// ("ext4"), at their absolute addresses.
	Modules map[string]*Table
	// Skipped counts the lines of the file that were not understood.
	Skipped int
}

// entryTrampoline is the x86-64 symbol perf drops from kallsyms (the
// trampoline maps refer to the text section instead).
const entryTrampoline = "__entry_SYSCALL_64_trampoline"

// ParseKallsyms builds the tables of a kallsyms file's content (lines
// "ffffffff81000000 T _text", module symbols followed by a tab and
// "[module]") with perf 6.1's rules: symbols of type T, W, D and B in
// either case kept (others dropped, as are names starting with '$');
// ends fixed up to the next symbol, a page past the last kernel or
// module symbol before the other kind starts; duplicates at one address
// resolved by choose_best_symbol (which keeps the last of a run of
// aliases, the only one with a size); then module symbols split off and
// the x86-64 entry trampoline dropped. Lines that are not of that form
// are skipped and counted. path only names the data in errors.
func ParseKallsyms(path string, data []byte) (*Kernel, error) {
	k := &Kernel{Path: path, Modules: map[string]*Table{}}
	var b builder
	// Names are cut from one copy of the file instead of one string each.
	text := string(data)
	base := 0
	allZero, any := true, false
	for line := 1; len(data) > 0; line++ {
		var l []byte
		lineStart := base
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
			base += i + 1
		} else {
			l, data = data, nil
			base += len(l)
		}
		if len(l) == 0 {
			continue
		}
		addr, typ, name, ok := parseKallsymsLine(l)
		if !ok {
			k.Skipped++
			continue
		}
		any = true
		if addr != 0 {
			allZero = false
		}
		if !keepKallsymsType(typ) || name[0] == '$' {
			continue
		}
		off := lineStart + (cap(l) - cap(name))
		b.add(addr, addr, text[off:off+len(name)], kallsymsBind(typ))
	}
	if any && allZero {
		return nil, fmt.Errorf("%s: every address is 0 (kernel.kptr_restrict hides them)", path)
	}
	order := b.inOrder()
	b.fixupEnds(order, true)
	b.removeDuplicates(order)

	// Split the modules off, in tree order, as perf does.
	mods := map[string]*builder{}
	for _, i := range b.inOrder() {
		s := &b.syms[i]
		if tab := strings.IndexByte(s.name, '\t'); tab >= 0 {
			mod := strings.TrimSpace(s.name[tab+1:])
			mod = strings.TrimSuffix(strings.TrimPrefix(mod, "["), "]")
			mb := mods[mod]
			if mb == nil {
				mb = &builder{}
				mods[mod] = mb
			}
			mb.add(s.start, s.end, s.name[:tab], s.bind)
			b.erase(i)
			continue
		}
		if s.name == entryTrampoline {
			b.erase(i)
		}
	}
	k.Table = b.build(nil)
	for name, mb := range mods {
		k.Modules[name] = mb.build(nil)
	}
	return k, nil
}

// parseKallsymsLine splits "ADDR TYPE NAME"; NAME is the rest of the line
// (with its "\t[module]").
func parseKallsymsLine(l []byte) (addr uint64, typ byte, name []byte, ok bool) {
	i := 0
	for ; i < len(l); i++ {
		c := l[i]
		v := lowerHex(c)
		if v < 0 && c >= 'A' && c <= 'F' {
			v = int(c-'A') + 10
		}
		if v < 0 {
			break
		}
		if i >= 16 {
			return 0, 0, nil, false
		}
		addr = addr<<4 | uint64(v)
	}
	if i == 0 || i+3 >= len(l) || l[i] != ' ' || l[i+2] != ' ' {
		return 0, 0, nil, false
	}
	typ = l[i+1]
	name = bytes.TrimSuffix(l[i+3:], []byte("\r"))
	if len(name) == 0 {
		return 0, 0, nil, false
	}
	return addr, typ, name, true
}

func keepKallsymsType(t byte) bool {
	switch t {
	case 'T', 't', 'W', 'w', 'D', 'd', 'B', 'b':
		return true
	}
	return false
}

// kallsymsBind is perf's kallsyms2elf_binding: 'W' weak, other upper-case
// types global, lower-case local.
func kallsymsBind(t byte) elf.SymBind {
	switch {
	case t == 'W':
		return elf.STB_WEAK
	case t >= 'A' && t <= 'Z':
		return elf.STB_GLOBAL
	}
	return elf.STB_LOCAL
}

// kallsymsFunctionAddr returns the address of the first function (type T
// or W, either case) called name, as perf's kallsyms__get_function_start.
func kallsymsFunctionAddr(data []byte, name string) (uint64, bool) {
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		addr, typ, n, ok := parseKallsymsLine(l)
		if !ok || string(n) != name {
			continue
		}
		switch typ {
		case 'T', 't', 'W', 'w':
			return addr, true
		}
	}
	return 0, false
}

// parseBuildIDNotes returns the GNU build-id in ELF notes (the content of
// /sys/kernel/notes or of a note section), "" when there is none.
func parseBuildIDNotes(data []byte, order binary.ByteOrder) string {
	for len(data) >= 12 {
		namesz := order.Uint32(data[0:4])
		descsz := order.Uint32(data[4:8])
		typ := order.Uint32(data[8:12])
		data = data[12:]
		nameEnd := align4(uint64(namesz))
		descEnd := nameEnd + align4(uint64(descsz))
		if descEnd > uint64(len(data)) {
			return ""
		}
		if typ == ntGNUBuildID && namesz == 4 && string(data[:4]) == "GNU\x00" {
			return hex.EncodeToString(data[nameEnd : nameEnd+uint64(descsz)])
		}
		data = data[descEnd:]
	}
	return ""
}

// ntGNUBuildID is the note type of a GNU build-id.
const ntGNUBuildID = 3

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
