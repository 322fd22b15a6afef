package symbols

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
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

	// refs has the address of the first function line of each of perf's
	// reference symbols (refSymbols) found in the file.
	refs [len(refSymbols)]struct {
		addr  uint64
		found bool
	}
}

// refSymbols are the symbols perf takes as the kernel's reference for
// relocation (its ref_reloc_sym_names): the "[kernel.kallsyms]_text"
// MMAP record names one of them. Their addresses are kept while parsing,
// so that KernelSymbolAddr need not read the file again.
var refSymbols = [...]string{"_text", "_stext"}

// refAddr returns the address of the first function (a line of type T
// or W, either case) called name, as perf's kallsyms__get_function_start
// finds it, when name is one of refSymbols (known reports that it is).
func (k *Kernel) refAddr(name string) (addr uint64, found, known bool) {
	for i, n := range refSymbols {
		if n == name {
			return k.refs[i].addr, k.refs[i].found, true
		}
	}
	return 0, false, false
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
	return parseKallsyms(path, string(data), nil, kallsymsParts(len(data), runtime.GOMAXPROCS(0)))
}

// parseKallsyms is ParseKallsyms on the file's text, from which the
// names are cut (one copy of the file, or its mapping m, instead of one
// string per name), its lines read in parts pieces, each on its own
// goroutine (see kallsymsParts).
func parseKallsyms(path, text string, m *mapping, parts int) (k *Kernel, err error) {
	if m != nil {
		defer faultsPanic()()
		defer onFault(func(r any) { k, err = nil, fmt.Errorf("%s: file changed while read (%v)", path, r) })
	}
	k = &Kernel{Path: path}
	if ok, hidden := parseKallsymsFlat(k, text, m, parts); ok {
		if hidden {
			return nil, fmt.Errorf("%s: every address is 0 (kernel.kptr_restrict hides them)", path)
		}
		return k, nil
	}
	return parseKallsymsTree(path, text, m)
}

// parseKallsymsTree is parseKallsyms by replaying perf's tree (builder),
// for the files parseKallsymsFlat cannot read flat (and for the tests,
// which compare the two).
func parseKallsymsTree(path, text string, m *mapping) (*Kernel, error) {
	k := &Kernel{Path: path, Modules: map[string]*Table{}}
	b := builder{text: text, backing: m, syms: make([]sym, 0, strings.Count(text, "\n")+1)}
	allZero, any := true, false
	for rest := text; len(rest) > 0; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
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
		if isFunctionType(typ) && (len(name) == 5 || len(name) == 6) {
			for i, n := range refSymbols {
				if name == n && !k.refs[i].found {
					k.refs[i].addr, k.refs[i].found = addr, true
				}
			}
		}
		if !keepKallsymsType(typ) || name[0] == '$' {
			continue
		}
		b.add(addr, addr, name, kallsymsBind(typ))
	}
	if any && allZero {
		return nil, fmt.Errorf("%s: every address is 0 (kernel.kptr_restrict hides them)", path)
	}
	b.sortByStart()
	order := b.inOrder()
	b.fixupEnds(order, true)
	b.removeDuplicates(order)

	// Split the modules off, in tree order, as perf does.
	mods := map[string]*builder{}
	var mod string
	var mb *builder
	for _, i := range order {
		s := &b.syms[i]
		if s.gone {
			continue
		}
		name := b.name(i)
		if tab := strings.IndexByte(name, '\t'); tab >= 0 {
			if m := name[tab+1:]; mb == nil || m != mod {
				// Module symbols come in runs of one module.
				mod = m
				key := strings.TrimSpace(m)
				key = strings.TrimSuffix(strings.TrimPrefix(key, "["), "]")
				if mb = mods[key]; mb == nil {
					mb = &builder{text: text, backing: b.backing}
					// The key is the callers' (Modules).
					mods[strings.Clone(key)] = mb
				}
			}
			mb.add(s.start, s.end, name[:tab], elf.SymBind(s.bind))
			b.erase(i)
			continue
		}
		if name == entryTrampoline {
			b.erase(i)
		}
	}
	k.Table = b.build()
	for name, mb := range mods {
		k.Modules[name] = mb.build()
	}
	return k, nil
}

func isFunctionType(t byte) bool {
	switch t {
	case 'T', 't', 'W', 'w':
		return true
	}
	return false
}

// parseKallsymsLine splits "ADDR TYPE NAME"; NAME is the rest of the line
// (with its "\t[module]").
func parseKallsymsLine(l string) (addr uint64, typ byte, name string, ok bool) {
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
			return 0, 0, "", false
		}
		addr = addr<<4 | uint64(v)
	}
	if i == 0 || i+3 >= len(l) || l[i] != ' ' || l[i+2] != ' ' {
		return 0, 0, "", false
	}
	typ = l[i+1]
	name = strings.TrimSuffix(l[i+3:], "\r")
	if len(name) == 0 {
		return 0, 0, "", false
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
	for rest := string(data); len(rest) > 0; {
		l := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		addr, typ, n, ok := parseKallsymsLine(l)
		if ok && n == name && isFunctionType(typ) {
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
