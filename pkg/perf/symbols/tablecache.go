package symbols

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"flamekit/internal/base/safefile"
)

// TableCache keeps the tables a Resolver builds from ELF files on disk,
// so that a later run needing the table of the same files reads it
// rather than builds it again: a system-wide capture has samples in tens
// of objects, and building their tables is most of what a small capture
// costs (a batch job over a host's captures builds the same ones each
// time, as perf script does).
//
// An entry is named by a hash of what the table was built from: the
// identity (device, inode, size, modification and change times) of the
// ELF files read, and of the running executable, so that a rebuilt
// flamekit or a replaced library never meets a table of another. Its
// header repeats the hash, and every index and reference in it is
// checked when it is read; an entry that fails is ignored (and rebuilt).
// The directory and its files must belong to the effective user and be
// writable by no one else: anything else is refused. Entries are written
// to a temporary file and renamed, so that runs sharing the cache (make
// -j) never see half an entry; when the directory holds more than
// tableCacheMax entries the oldest quarter is removed.
type TableCache struct {
	dir string
	exe [32]byte // the running executable's identity
	uid uint32

	hits, stores atomic.Int64
	evicted      sync.Once // the directory is looked at once a run
}

// Cache limits: more than tableCacheMax entries start an eviction; an
// entry is at most tableCacheMaxSize bytes.
const (
	tableCacheMax     = 1024
	tableCacheMaxSize = 1 << 30
)

// tableCacheMinSymbols: tables of fewer symbols are built rather than
// read (tens of microseconds; the small libraries of a capture with 100
// to 1,000 symbols took about 250 µs each to build, 50 to read). A
// variable for the tests.
var tableCacheMinSymbols = 100

// OpenTableCache returns the cache kept in dir, making dir (mode 0700)
// when missing. It fails when dir, or the directory holding it, is not a
// directory of the effective user that only that user may write to: in
// a directory another user may write to, they could swap the cache for a
// link to where root would then write its entries.
func OpenTableCache(dir string) (*TableCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	uid := uint32(os.Geteuid())
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := privateDir(d, uid); err != nil {
			return nil, err
		}
	}
	c := &TableCache{dir: dir, uid: uid}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	id, ok := pathIdentity(exe)
	if !ok {
		return nil, fmt.Errorf("%s: cannot tell which build it is", exe)
	}
	c.exe = sha256.Sum256(id)
	return c, nil
}

// DefaultCacheDir returns flamekit's cache directory by the XDG rule:
// $XDG_CACHE_HOME/flamekit, else $HOME/.cache/flamekit; "" when the home
// directory does not belong to the effective user (sudo may keep the
// invoking user's $HOME: root's tables are not kept there). getenv reads
// the environment (nil: os.Getenv).
func DefaultCacheDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if home == "" || !ownedBy(home, uint32(os.Geteuid())) {
		return ""
	}
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "flamekit")
}

// Dir returns the cache's directory.
func (c *TableCache) Dir() string { return c.dir }

// Hits returns how many tables were read from the cache, and Stores how
// many were written to it.
func (c *TableCache) Hits() int64   { return c.hits.Load() }
func (c *TableCache) Stores() int64 { return c.stores.Load() }

// key returns the hash that names the table built from syms and runtime,
// ok false when a file has no identity (it is in memory).
func (c *TableCache) key(syms, runtime *elfFile) (k [32]byte, ok bool) {
	if c == nil || syms.file == nil || runtime.file == nil {
		return k, false
	}
	return c.keyOf("flamekit symbol table 1", syms.file, runtime.file)
}

// keyOf hashes what names an entry: kind (the entry's layout), the
// running executable's identity and that of each file it is built from.
func (c *TableCache) keyOf(kind string, files ...*os.File) (k [32]byte, ok bool) {
	h := sha256.New()
	h.Write([]byte(kind + "\x00"))
	h.Write(c.exe[:])
	for _, f := range files {
		id, ok := fileIdentity(f)
		if !ok {
			return k, false
		}
		h.Write(id)
	}
	h.Sum(k[:0])
	return k, true
}

func (c *TableCache) path(k [32]byte) string {
	return filepath.Join(c.dir, hex.EncodeToString(k[:20])+".fkst")
}

// load returns the cached table built from syms and runtime, nil when
// there is none (or the entry is not sound).
func (c *TableCache) load(syms, runtime *elfFile) *Table {
	k, ok := c.key(syms, runtime)
	if !ok {
		return nil
	}
	f, size, ok := c.open(k)
	if !ok {
		return nil
	}
	defer f.Close()
	t, err := readTable(f, size, k)
	if err != nil {
		return nil
	}
	c.hits.Add(1)
	return t
}

// store writes t, built from syms and runtime, to the cache. Failing to
// is not an error: the next run builds the table again.
func (c *TableCache) store(syms, runtime *elfFile, t *Table) {
	if t == nil || len(t.start) < tableCacheMinSymbols {
		return
	}
	if k, ok := c.key(syms, runtime); ok {
		c.write(k, func(w io.Writer) error { return writeTable(w, k, t, false) })
	}
}

// write makes the entry of key k with write: in a temporary file, renamed
// once whole, so that runs sharing the cache never see half an entry.
func (c *TableCache) write(k [32]byte, write func(io.Writer) error) {
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	err = write(tmp)
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(k))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	c.stores.Add(1)
	c.evicted.Do(c.evict)
}

// open opens the entry of key k, with its size, when there is one that
// belongs to the user and no one else may write to.
func (c *TableCache) open(k [32]byte) (*os.File, int64, bool) {
	path := c.path(k)
	f, info, err := safefile.OpenInfo(path, safefile.Rule{What: "symbol table cache", Max: tableCacheMaxSize, Owners: []uint32{c.uid}, Private: true})
	if err != nil {
		return nil, 0, false
	}
	used(path, info.ModTime)
	return f, info.Size, true
}

// usedEvery is how often a hit marks its entry as used (see used).
const usedEvery = time.Hour

// used marks the entry at path, last marked at mod, as used now, at most
// once usedEvery (one utimensat an hour; the time is the one the open's
// fstat read), so that evict removes the entries used least recently: by
// the time of their writing, it removed the first tables a host's runs
// stored, libc's and the kernel's, which every run reads.
func used(path string, mod time.Time) {
	if time.Since(mod) > usedEvery {
		now := time.Now()
		os.Chtimes(path, now, now)
	}
}

// evict removes the quarter of the entries used least recently (see
// used) when there are more than tableCacheMax. A run evicts once, at
// its first store: a cold run of a system-wide capture stores tens of
// tables, and reading the directory after each cost a millisecond each
// at a thousand entries.
func (c *TableCache) evict() {
	ents, err := os.ReadDir(c.dir)
	if err != nil || len(ents) <= tableCacheMax {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	stale := time.Now().Add(-time.Hour).UnixNano()
	for _, e := range ents {
		fi, err := e.Info()
		switch {
		case err != nil || !fi.Mode().IsRegular():
		case filepath.Ext(e.Name()) == ".fkst":
			all = append(all, aged{e.Name(), fi.ModTime().UnixNano()})
		case strings.HasPrefix(e.Name(), ".tmp-") && fi.ModTime().UnixNano() < stale:
			// Left by a run that was killed while writing.
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return int(min(max(a.mod-b.mod, -1), 1)) })
	for _, a := range all[:len(all)/4] {
		os.Remove(filepath.Join(c.dir, a.name))
	}
}

// The layout of an entry, little-endian: a header (tableHeaderSize
// bytes), the arrays, each padded to 8 bytes, then the names: the
// table's text, then the pool the extra and alias names are cut from.
//
//	magic [8]byte, key [32]byte,
//	nsym, nseg uint64, nextra, nalias, nplt, flags uint32, textLen, poolLen uint64
//	start [nsym]uint64, refs [nsym]{off, n uint32}, segStart [nseg]uint64,
//	segSym [nseg]int32, size0 [nsym]uint8, raw [nsym]uint8 (flags&1),
//	plt [nplt]int32, extra [nextra]{off, n uint32},
//	alias [nalias]{slot int32, off, n uint32, pad uint32}
//	text [textLen], pool [poolLen]
const (
	tableMagic      = "FKSTAB01"
	tableHeaderSize = 96
	tableHasRaw     = 1
	// tableTextOutside: the text is not in the entry (see writeTable).
	tableTextOutside = 2
	tableMaxCount    = 1 << 28
)

var errBadTable = errors.New("not a sound table cache entry")

type tableHeader struct {
	nsym, nseg                 uint64
	nextra, nalias, nplt, flag uint32
	textLen, poolLen           uint64
}

// arraysSize returns the size of the arrays of a table of h's counts.
func (h *tableHeader) arraysSize() uint64 {
	n := 8*h.nsym + 8*h.nsym + 8*h.nseg + pad8(4*h.nseg) + pad8(h.nsym) +
		pad8(4*uint64(h.nplt)) + 8*uint64(h.nextra) + 16*uint64(h.nalias)
	if h.flag&tableHasRaw != 0 {
		n += pad8(h.nsym)
	}
	return n
}

// writeTable writes t as an entry of key k; with textOutside its text is
// left out (a kernel's tables are cut from the kallsyms file, which the
// entry's reader maps itself).
func writeTable(w io.Writer, k [32]byte, t *Table, textOutside bool) (err error) {
	// t's text may be a mapped file's: one truncated meanwhile is an
	// error, not a crash.
	defer faultsPanic()()
	defer onFault(func(r any) { err = fmt.Errorf("table text unreadable: %v", r) })
	var pool []byte
	extra := make([]nameRef, len(t.extra))
	for i, s := range t.extra {
		extra[i] = nameRef{uint32(len(pool)), uint32(len(s))}
		pool = append(pool, s...)
	}
	alias := make([]aliasEnt, 0, len(t.alias))
	for slot, s := range t.alias {
		alias = append(alias, aliasEnt{slot: slot, off: uint32(len(pool)), n: uint32(len(s))})
		pool = append(pool, s...)
	}
	slices.SortFunc(alias, func(a, b aliasEnt) int { return int(a.slot - b.slot) })
	plt := make([]int32, 0, len(t.plt))
	for slot := range t.plt {
		plt = append(plt, slot)
	}
	slices.Sort(plt)
	if uint64(len(pool)) >= uint64(extraName) || uint64(len(t.text)) >= uint64(extraName) {
		return errors.New("table too large to cache")
	}
	h := tableHeader{nsym: uint64(len(t.start)), nseg: uint64(len(t.segStart)),
		nextra: uint32(len(extra)), nalias: uint32(len(alias)), nplt: uint32(len(plt)),
		textLen: uint64(len(t.text)), poolLen: uint64(len(pool))}
	if t.raw != nil {
		h.flag |= tableHasRaw
	}
	if textOutside {
		h.flag |= tableTextOutside
	}
	buf := make([]byte, tableHeaderSize, tableHeaderSize+h.arraysSize())
	copy(buf, tableMagic)
	copy(buf[8:], k[:])
	le := binary.LittleEndian
	le.PutUint64(buf[40:], h.nsym)
	le.PutUint64(buf[48:], h.nseg)
	le.PutUint32(buf[56:], h.nextra)
	le.PutUint32(buf[60:], h.nalias)
	le.PutUint32(buf[64:], h.nplt)
	le.PutUint32(buf[68:], h.flag)
	le.PutUint64(buf[72:], h.textLen)
	le.PutUint64(buf[80:], h.poolLen)
	buf = appendRaw(buf, t.start)
	buf = appendRaw(buf, t.refs)
	buf = appendRaw(buf, t.segStart)
	buf = appendRaw(buf, t.segSym)
	buf = appendRaw(buf, t.size0)
	if t.raw != nil {
		buf = appendRaw(buf, t.raw)
	}
	buf = appendRaw(buf, plt)
	buf = appendRaw(buf, extra)
	buf = appendRaw(buf, alias)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if !textOutside {
		if _, err := io.WriteString(w, t.text); err != nil {
			return err
		}
	}
	_, err = w.Write(pool)
	return err
}

// entrySize returns the size of an entry of h's counts.
func (h *tableHeader) entrySize() uint64 {
	n := tableHeaderSize + h.arraysSize() + h.poolLen
	if h.flag&tableTextOutside == 0 {
		n += h.textLen
	}
	return n
}

// aliasEnt is an alias's entry: its symbol and its name in the pool.
type aliasEnt struct {
	slot   int32
	off, n uint32
	_      uint32
}

// pad8 rounds n up to a multiple of 8: every array and name of an entry
// starts on 8 bytes.
func pad8(n uint64) uint64 { return (n + 7) &^ 7 }

// appendRaw appends the bytes of s, padded to 8 bytes.
func appendRaw[T any](dst []byte, s []T) []byte {
	n := len(s) * int(unsafe.Sizeof(*new(T)))
	if n > 0 {
		dst = append(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n)...)
	}
	return append(dst, make([]byte, pad8(uint64(len(dst)))-uint64(len(dst)))...)
}

// readTable reads the entry of key k from f, size bytes long: mapped
// (read when it cannot be), its arrays used in place once checked. A
// mapped entry costs no fresh memory: reading the arrays of the go
// command's table into the heap took 600 page faults, more time than
// building the table.
func readTable(f *os.File, size int64, k [32]byte) (t *Table, err error) {
	if size < tableHeaderSize || !entryOf(f, tableMagic, k) {
		return nil, errBadTable
	}
	data, m, ok := mapFile(f, 0, size, true)
	if !ok {
		data = make([]byte, size)
		if _, err := f.ReadAt(data, 0); err != nil {
			return nil, err
		}
	} else {
		// Checking reads every page: a file truncated meanwhile is an
		// error, not a crash.
		defer faultsPanic()()
		defer onFault(func(r any) { t, err = nil, errBadTable })
	}
	return decodeTable(data, m, k, "", nil)
}

// entryOf reports whether f starts as an entry of layout magic and key k
// does, read before the file is mapped: mapping whole (populated) a large
// file that is not one would read all of it (512 MB of holes: 1.5 s).
func entryOf(f *os.File, magic string, k [32]byte) bool {
	var hb [40]byte
	if _, err := f.ReadAt(hb[:], 0); err != nil {
		return false
	}
	return string(hb[:8]) == magic && [32]byte(hb[8:40]) == k
}

// decodeTable checks the entry b of key k (mapped by m, nil when in
// memory) and makes its table, whose arrays are b's, and its text b's or,
// for an entry written without it, text (of mapping tm): every count
// against b's size, every index and reference against the counts.
func decodeTable(b []byte, m *mapping, k [32]byte, text string, tm *mapping) (*Table, error) {
	if len(b) < tableHeaderSize || string(b[:8]) != tableMagic || [32]byte(b[8:40]) != k {
		return nil, errBadTable
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		// The arrays are used in place: a mapping (page-aligned) or a
		// buffer the allocator gives (8-aligned) never fails this.
		return nil, errBadTable
	}
	le := binary.LittleEndian
	h := tableHeader{nsym: le.Uint64(b[40:]), nseg: le.Uint64(b[48:]),
		nextra: le.Uint32(b[56:]), nalias: le.Uint32(b[60:]), nplt: le.Uint32(b[64:]), flag: le.Uint32(b[68:]),
		textLen: le.Uint64(b[72:]), poolLen: le.Uint64(b[80:])}
	if h.nsym > tableMaxCount || h.nseg > tableMaxCount || h.nextra > tableMaxCount || h.nalias > tableMaxCount ||
		h.nplt > tableMaxCount || h.flag&^(tableHasRaw|tableTextOutside) != 0 || h.textLen >= uint64(extraName) || h.poolLen >= uint64(extraName) {
		return nil, errBadTable
	}
	arrays := h.arraysSize()
	outside := h.flag&tableTextOutside != 0
	if uint64(len(b)) != h.entrySize() || outside && uint64(len(text)) != h.textLen {
		return nil, errBadTable
	}
	mem := b[tableHeaderSize : tableHeaderSize+arrays]
	t := &Table{}
	t.start = takeRaw[uint64](&mem, h.nsym)
	t.refs = takeRaw[nameRef](&mem, h.nsym)
	t.segStart = takeRaw[uint64](&mem, h.nseg)
	t.segSym = takeRaw[int32](&mem, h.nseg)
	size0 := takeRaw[uint8](&mem, h.nsym)
	var raw []uint8
	if h.flag&tableHasRaw != 0 {
		raw = takeRaw[uint8](&mem, h.nsym)
	}
	plt := takeRaw[int32](&mem, uint64(h.nplt))
	extra := takeRaw[nameRef](&mem, uint64(h.nextra))
	alias := takeRaw[aliasEnt](&mem, uint64(h.nalias))

	nsym := int64(h.nsym)
	for _, r := range t.refs {
		if r.n == extraName {
			if uint64(r.off) >= uint64(h.nextra) {
				return nil, errBadTable
			}
		} else if uint64(r.off)+uint64(r.n) > h.textLen {
			return nil, errBadTable
		}
	}
	for i, s := range t.segSym {
		if s < -1 || int64(s) >= nsym || i > 0 && t.segStart[i] < t.segStart[i-1] {
			return nil, errBadTable
		}
	}
	for _, v := range size0 {
		if v > 1 {
			return nil, errBadTable
		}
	}
	for _, v := range raw {
		if v > 1 {
			return nil, errBadTable
		}
	}
	t.size0 = unsafe.Slice((*bool)(unsafe.Pointer(unsafe.SliceData(size0))), len(size0))
	if raw != nil {
		t.raw = unsafe.Slice((*bool)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw))
	}
	if (len(plt) > 0 || len(alias) > 0) && raw == nil {
		return nil, errBadTable
	}
	pool := b[len(b)-int(h.poolLen):]
	cut := func(off, n uint32) (string, bool) {
		if uint64(off)+uint64(n) > h.poolLen {
			return "", false
		}
		return string(pool[off : off+n]), true // a copy: not of the mapping
	}
	for _, r := range extra {
		s, ok := cut(r.off, r.n)
		if !ok {
			return nil, errBadTable
		}
		t.extra = append(t.extra, s)
	}
	for _, slot := range plt {
		if slot < 0 || int64(slot) >= nsym {
			return nil, errBadTable
		}
		if t.plt == nil {
			t.plt = map[int32]bool{}
		}
		t.plt[slot] = true
	}
	for _, a := range alias {
		s, ok := cut(a.off, a.n)
		if !ok || a.slot < 0 || int64(a.slot) >= nsym {
			return nil, errBadTable
		}
		if t.alias == nil {
			t.alias = map[int32]string{}
		}
		t.alias[a.slot] = s
	}
	t.arrays = m
	if outside {
		t.text, t.backing = text, tm
	} else {
		t.text, t.backing = bytesToString(b[tableHeaderSize+arrays:tableHeaderSize+arrays+h.textLen]), m
	}
	t.index()
	t.prepareNames()
	return t, nil
}

// takeRaw cuts n elements of T off the front of *mem (then past its
// padding to 8 bytes).
func takeRaw[T any](mem *[]byte, n uint64) []T {
	size := int(n) * int(unsafe.Sizeof(*new(T)))
	var s []T
	if n > 0 {
		s = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(*mem))), n)
	}
	*mem = (*mem)[pad8(uint64(size)):]
	return s
}

// A kernel's tables (its own and its modules') are one entry, keyed by
// the identity of the kallsyms file they were read from, whose text they
// keep using: the entry holds their arrays only. Its layout, after the
// header (kernelMagic, key [32]byte, ntables, skipped uint32, textLen
// uint64, then the address and found flag, uint64 each, of each of
// refSymbols), is for each table, the kernel's first, the modules' by
// name: the name's length (uint32), 4 bytes of padding, the table
// entry's length (uint64), the name and the entry (writeTable without its
// text), each padded to 8 bytes.
const (
	kernelMagic      = "FKKERN01"
	kernelHeaderSize = 96
)

// kernelKey returns the hash that names the tables of the kallsyms file
// f.
func (c *TableCache) kernelKey(f *os.File) (k [32]byte, ok bool) {
	if c == nil {
		return k, false
	}
	return c.keyOf("flamekit kernel tables 1", f)
}

// loadKernel returns the cached tables of the kallsyms file f, of size
// bytes, named path; nil when there are none. The file is mapped for the
// names, a page read when a name on it is first looked up.
func (c *TableCache) loadKernel(f *os.File, path string, size int64) *Kernel {
	k, ok := c.kernelKey(f)
	if !ok {
		return nil
	}
	ef, esize, ok := c.open(k)
	if !ok {
		return nil
	}
	defer ef.Close()
	if esize < kernelHeaderSize || !entryOf(ef, kernelMagic, k) {
		return nil
	}
	data, m, mapped := mapFile(ef, 0, esize, true)
	if !mapped {
		return nil
	}
	text, tm, mapped := mapFile(f, 0, size, false)
	if !mapped {
		return nil
	}
	kern, err := decodeKernel(data, m, k, path, bytesToString(text), tm)
	if err != nil {
		return nil
	}
	c.hits.Add(1)
	return kern
}

// decodeKernel is decodeTable for a kernel's entry b (see kernelMagic).
func decodeKernel(b []byte, m *mapping, k [32]byte, path, text string, tm *mapping) (kern *Kernel, err error) {
	if m != nil {
		defer faultsPanic()()
		defer onFault(func(r any) { kern, err = nil, errBadTable })
	}
	if len(b) < kernelHeaderSize || string(b[:8]) != kernelMagic || [32]byte(b[8:40]) != k {
		return nil, errBadTable
	}
	le := binary.LittleEndian
	ntables, skipped, textLen := le.Uint32(b[40:]), le.Uint32(b[44:]), le.Uint64(b[48:])
	if textLen != uint64(len(text)) || ntables == 0 || ntables > tableMaxCount {
		return nil, errBadTable
	}
	kern = &Kernel{Path: path, Skipped: int(skipped), Modules: map[string]*Table{}}
	for i := range kern.refs {
		kern.refs[i].addr = le.Uint64(b[56+16*i:])
		switch le.Uint64(b[64+16*i:]) {
		case 0:
		case 1:
			kern.refs[i].found = true
		default:
			return nil, errBadTable
		}
	}
	rest := b[kernelHeaderSize:]
	for i := range ntables {
		if len(rest) < 16 {
			return nil, errBadTable
		}
		nameLen, entryLen := uint64(le.Uint32(rest)), le.Uint64(rest[8:])
		rest = rest[16:]
		if pad8(nameLen) > uint64(len(rest)) {
			return nil, errBadTable
		}
		name := string(rest[:nameLen])
		rest = rest[pad8(nameLen):]
		if entryLen > uint64(len(rest)) || pad8(entryLen) > uint64(len(rest)) {
			return nil, errBadTable
		}
		t, err := decodeTable(rest[:entryLen], m, k, text, tm)
		if err != nil {
			return nil, err
		}
		rest = rest[pad8(entryLen):]
		switch {
		case i == 0 && name == "":
			kern.Table = t
		case i > 0 && name != "" && kern.Modules[name] == nil:
			kern.Modules[name] = t
		default:
			return nil, errBadTable
		}
	}
	if len(rest) != 0 {
		return nil, errBadTable
	}
	return kern, nil
}

// storeKernel writes the tables of the kallsyms file f to the cache.
func (c *TableCache) storeKernel(f *os.File, kern *Kernel) {
	k, ok := c.kernelKey(f)
	if ok && kern != nil && kern.Table != nil {
		c.write(k, func(w io.Writer) error { return writeKernel(w, k, kern) })
	}
}

// writeKernel writes kern's tables as an entry of key k.
func writeKernel(w io.Writer, k [32]byte, kern *Kernel) error {
	le := binary.LittleEndian
	hb := make([]byte, kernelHeaderSize)
	copy(hb, kernelMagic)
	copy(hb[8:], k[:])
	names := make([]string, 0, len(kern.Modules))
	for name := range kern.Modules {
		names = append(names, name)
	}
	slices.Sort(names)
	le.PutUint32(hb[40:], uint32(1+len(names)))
	le.PutUint32(hb[44:], uint32(kern.Skipped))
	le.PutUint64(hb[48:], uint64(len(kern.Table.text)))
	for i, r := range kern.refs {
		le.PutUint64(hb[56+16*i:], r.addr)
		if r.found {
			le.PutUint64(hb[64+16*i:], 1)
		}
	}
	var buf bytes.Buffer
	buf.Write(hb)
	var entry bytes.Buffer
	for i := -1; i < len(names); i++ {
		t, name := kern.Table, ""
		if i >= 0 {
			name = names[i]
			t = kern.Modules[name]
		}
		if t == nil || t.text != kern.Table.text {
			return errors.New("a kernel table not cut from its kallsyms")
		}
		entry.Reset()
		if err := writeTable(&entry, k, t, true); err != nil {
			return err
		}
		var lens [16]byte
		le.PutUint32(lens[:], uint32(len(name)))
		le.PutUint64(lens[8:], uint64(entry.Len()))
		buf.Write(lens[:])
		buf.Write(appendRaw(nil, []byte(name)))
		buf.Write(appendRaw(nil, entry.Bytes()))
	}
	_, err := w.Write(buf.Bytes())
	return err
}
