package symbols

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"
)

// cacheTables returns tables to write and read back: the fixture's, one
// with every kind of lazy name (raw, PLT, alias, extra), and the system's
// C and C++ libraries when present (real PLTs, aliases, mangled names).
func cacheTables(t *testing.T) map[string]*Table {
	t.Helper()
	tables := map[string]*Table{}
	for _, p := range []string{"testdata/elf/fixture", "testdata/elf/libfixture.so",
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"} {
		ef, err := openELF(p)
		if err != nil {
			continue
		}
		tb, err := elfTable(ef, ef, 2)
		ef.Close()
		if err != nil {
			t.Fatal(err)
		}
		tables[p] = tb
	}
	lazy := &Table{
		start:    []uint64{0x10, 0x20, 0x30, 0x40},
		size0:    []bool{false, true, false, false},
		refs:     []nameRef{{0, 3}, {3, 9}, {0, extraName}, {21, 4}},
		text:     "foo_ZN1a1bEv_ZN3fooEvputs",
		extra:    []string{"extra_name"},
		raw:      []bool{false, true, false, true},
		segStart: []uint64{0x10, 0x18, 0x20, 0x21, 0x30, 0x40, 0x50},
		segSym:   []int32{0, -1, 1, -1, 2, 3, -1},
		alias:    map[int32]string{1: "_ZN1a1bEv_alias"},
		plt:      map[int32]bool{3: true},
	}
	lazy.prepareNames()
	tables["lazy"] = lazy
	return tables
}

func encodeForTest(t *testing.T, k [32]byte, tb *Table) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeTable(&buf, k, tb, false); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeBytes is readTable on an entry held in memory.
func decodeBytes(b []byte, k [32]byte) (*Table, error) {
	return decodeTable(bytes.Clone(b), nil, k, "", nil)
}

// sameTable fails t unless got holds what want holds and finds the same
// symbol at every address where a lookup can change.
func sameTable(t *testing.T, name string, got, want *Table) {
	t.Helper()
	for _, f := range []struct {
		what      string
		got, want any
	}{
		{"start", got.start, want.start}, {"refs", got.refs, want.refs}, {"size0", got.size0, want.size0},
		{"segStart", got.segStart, want.segStart}, {"segSym", got.segSym, want.segSym},
		{"segIndex", got.segIndex, want.segIndex}, {"raw", got.raw, want.raw},
		{"extra", got.extra, want.extra}, {"alias", got.alias, want.alias}, {"plt", got.plt, want.plt},
		{"text", got.text, want.text},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s: %s differs after the cache", name, f.what)
		}
	}
	for _, a := range want.segStart {
		for _, addr := range []uint64{a - 1, a, a + 1} {
			g, gok := got.Lookup(addr)
			w, wok := want.Lookup(addr)
			if g != w || gok != wok {
				t.Fatalf("%s: Lookup(%#x) = %+v %v after the cache, want %+v %v", name, addr, g, gok, w, wok)
			}
		}
	}
}

func TestTableCacheRoundTrip(t *testing.T) {
	k := [32]byte{1, 2, 3}
	for name, tb := range cacheTables(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got, err := decodeBytes(encodeForTest(t, k, tb), k)
			if err != nil {
				t.Fatal(err)
			}
			sameTable(t, name, got, tb)
		})
	}
}

// TestTableCacheRefuses: an entry that is not exactly what was written
// for this key is refused, never trusted nor a panic.
func TestTableCacheRefuses(t *testing.T) {
	k := [32]byte{7}
	good := encodeForTest(t, k, cacheTables(t)["lazy"])
	le := binary.LittleEndian
	arrays := tableHeaderSize // start of the arrays: start, then refs
	nsym := 4
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		key  [32]byte
	}{
		{"other key", func(b []byte) []byte { return b }, [32]byte{8}},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, k},
		{"cut short", func(b []byte) []byte { return b[:len(b)-1] }, k},
		{"longer", func(b []byte) []byte { return append(b, 0) }, k},
		{"header only", func(b []byte) []byte { return b[:tableHeaderSize] }, k},
		{"empty", func(b []byte) []byte { return nil }, k},
		{"huge count", func(b []byte) []byte { le.PutUint64(b[40:], 1<<40); return b }, k},
		{"unknown flag", func(b []byte) []byte { le.PutUint32(b[68:], 6); return b }, k},
		{"name past text", func(b []byte) []byte { le.PutUint32(b[arrays+8*nsym:], 1000); return b }, k},
		{"extra past list", func(b []byte) []byte { le.PutUint32(b[arrays+8*nsym+16:], 5); return b }, k},
		{"segment symbol past symbols", func(b []byte) []byte {
			segSym := arrays + 16*nsym + 8*7
			le.PutUint32(b[segSym:], 4)
			return b
		}, k},
		{"segments out of order", func(b []byte) []byte {
			segStart := arrays + 16*nsym
			le.PutUint64(b[segStart+8:], 0)
			return b
		}, k},
		{"bool not 0 or 1", func(b []byte) []byte {
			size0 := arrays + 16*nsym + 8*7 + 32
			b[size0] = 2
			return b
		}, k},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(good))
			if tb, err := decodeBytes(b, c.key); err == nil {
				t.Fatalf("accepted: %d symbols", len(tb.start))
			}
		})
	}
}

// cachedFixture returns a copy of the ELF fixture, whose table the cache
// keeps during the test (tables of any size are cached).
func cachedFixture(t *testing.T) string {
	old := tableCacheMinSymbols
	tableCacheMinSymbols = 1
	t.Cleanup(func() { tableCacheMinSymbols = old })
	bin := filepath.Join(t.TempDir(), "fixture")
	copyFile(t, "testdata/elf/fixture", bin)
	return bin
}

// TestResolverTableCache: a second Resolver reads the tables the first
// wrote, and finds the same symbols; a changed file is built again.
func TestResolverTableCache(t *testing.T) {
	dir := t.TempDir()
	bin := cachedFixture(t)
	lookups := func(c *TableCache) []Symbol {
		r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), TableCache: c})
		tb := r.DSOTable(bin, "")
		if tb == nil {
			t.Fatalf("no table: %v", r.Missing())
		}
		var out []Symbol
		for _, a := range tb.segStart {
			s, _ := tb.Lookup(a)
			out = append(out, s)
		}
		return out
	}
	open := func() *TableCache {
		c, err := OpenTableCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c1 := open()
	want := lookups(c1)
	if c1.Hits() != 0 || c1.Stores() != 1 {
		t.Fatalf("first run: %d hits, %d stores, want 0 and 1", c1.Hits(), c1.Stores())
	}
	c2 := open()
	if got := lookups(c2); !reflect.DeepEqual(got, want) {
		t.Fatalf("from the cache: %v\nwant %v", got, want)
	}
	if c2.Hits() != 1 {
		t.Fatalf("second run: %d hits, want 1", c2.Hits())
	}
	// The file changed (its times do): the entry is not its table.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	c3 := open()
	lookups(c3)
	if c3.Hits() != 0 || c3.Stores() != 1 {
		t.Fatalf("after the change: %d hits, %d stores, want 0 and 1", c3.Hits(), c3.Stores())
	}
}

func TestOpenTableCacheRefusesShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTableCache(dir); err == nil {
		t.Fatal("a directory others may write to was accepted")
	}
	// Nor a private directory in one others may write to (they could
	// swap it for a link).
	if _, err := OpenTableCache(filepath.Join(dir, "symbols")); err == nil {
		t.Fatal("a directory in a directory others may write to was accepted")
	}
}

func FuzzDecodeTable(f *testing.F) {
	k := [32]byte{9}
	var buf bytes.Buffer
	lazy := &Table{start: []uint64{1, 2}, size0: []bool{false, false}, refs: []nameRef{{0, 1}, {0, extraName}},
		text: "ab", extra: []string{"x"}, raw: []bool{true, false}, segStart: []uint64{1, 2, 3},
		segSym: []int32{0, 1, -1}, alias: map[int32]string{0: "y"}, plt: map[int32]bool{1: true}}
	if err := writeTable(&buf, k, lazy, false); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 40 {
			copy(b[8:40], k[:]) // past the key, to what is checked next
		}
		tb, err := decodeBytes(b, k)
		if err != nil {
			return
		}
		for _, a := range tb.segStart {
			tb.Lookup(a)
		}
		for i := range tb.start {
			tb.Lookup(tb.start[i])
		}
	})
}

// kernelsForCache returns kallsyms files and their kernels: the fixture
// (modules, duplicates, skipped lines) and the running kernel's when
// readable.
func kernelsForCache(t *testing.T) map[string]*Kernel {
	t.Helper()
	out := map[string]*Kernel{}
	for _, p := range []string{"testdata/kallsyms/fixture.txt", "/proc/kallsyms"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		k, err := ParseKallsyms(p, data)
		if err != nil {
			continue // kptr_restrict
		}
		out[p] = k
	}
	return out
}

func TestKernelCacheRoundTrip(t *testing.T) {
	key := [32]byte{4}
	for p, want := range kernelsForCache(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeKernel(&buf, key, want); err != nil {
				t.Fatal(err)
			}
			got, err := decodeKernel(bytes.Clone(buf.Bytes()), nil, key, p, want.Table.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.refs != want.refs || got.Skipped != want.Skipped || got.Path != p || len(got.Modules) != len(want.Modules) {
				t.Fatalf("kernel facts differ: %+v %d %d modules, want %+v %d %d", got.refs, got.Skipped, len(got.Modules), want.refs, want.Skipped, len(want.Modules))
			}
			sameTable(t, p, got.Table, want.Table)
			for name, w := range want.Modules {
				sameTable(t, p+" "+name, got.Modules[name], w)
			}
			// Another kallsyms (another length) does not take it.
			if _, err := decodeKernel(buf.Bytes(), nil, key, p, want.Table.text+"x", nil); err == nil {
				t.Fatal("tables accepted for a text of another length")
			}
		})
	}
}

// TestResolverKernelCache: the kernel's tables of a kallsyms copy in the
// build-id cache come from the table cache the second time.
func TestResolverKernelCache(t *testing.T) {
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	ids := t.TempDir()
	id := "0123456789abcdef0123456789abcdef01234567"
	dir := filepath.Join(ids, "[kernel.kallsyms]", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kallsyms"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	run := func() (*TableCache, []Symbol) {
		c, err := OpenTableCache(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		r := NewResolver(Options{BuildIDDir: ids, KernelNotes: "/nonexistent", TableCache: c})
		var out []Symbol
		for _, a := range []uint64{0xffffffff81000010, 0xffffffff81000305, 0xffffffff81001000} {
			s, _ := r.Kernel(id, a)
			out = append(out, s)
		}
		s, _ := r.Module(id, "mod_b", 0xffffffffa0000104)
		out = append(out, s)
		addr, ok := r.KernelSymbolAddr(id, "_text")
		out = append(out, Symbol{Name: "_text", Offset: addr, ZeroSize: ok})
		return c, out
	}
	c1, want := run()
	if c1.Stores() != 1 || c1.Hits() != 0 {
		t.Fatalf("first run: %d stores, %d hits; want 1 and 0", c1.Stores(), c1.Hits())
	}
	c2, got := run()
	if c2.Hits() != 1 {
		t.Fatalf("second run: %d hits, want 1", c2.Hits())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("from the cache: %+v\nwant %+v", got, want)
	}
	if want[0].Name != "local_startup_alias_long" || want[3].Name != "mod_b_func" || !want[4].ZeroSize {
		t.Fatalf("unexpected symbols %+v", want)
	}
}

func FuzzDecodeKernel(f *testing.F) {
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		f.Fatal(err)
	}
	kern, err := ParseKallsyms("fixture", data)
	if err != nil {
		f.Fatal(err)
	}
	key := [32]byte{5}
	var buf bytes.Buffer
	if err := writeKernel(&buf, key, kern); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	text := string(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 40 {
			copy(b[8:40], key[:])
		}
		k, err := decodeKernel(b, nil, key, "fixture", text, nil)
		if err != nil {
			return
		}
		for _, tb := range append([]*Table{k.Table}, slices.Collect(maps.Values(k.Modules))...) {
			for _, a := range tb.segStart {
				tb.Lookup(a)
			}
		}
	})
}

// TestTableCacheEvicts: past tableCacheMax entries, the oldest quarter
// goes.
func TestTableCacheEvicts(t *testing.T) {
	c, err := OpenTableCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := tableCacheMax + 4
	base := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(c.Dir(), fmt.Sprintf("%04d.fkst", i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Second)
		os.Chtimes(p, at, at)
	}
	c.evict()
	left, _ := filepath.Glob(filepath.Join(c.Dir(), "*.fkst"))
	if want := n - n/4; len(left) != want {
		t.Fatalf("%d entries left, want %d", len(left), want)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "0000.fkst")); err == nil {
		t.Fatal("the oldest entry was kept")
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), fmt.Sprintf("%04d.fkst", n-1))); err != nil {
		t.Fatal("the newest entry was removed")
	}
}

// TestTableCacheKeepsUsed: an entry read is marked as used, so that the
// eviction keeps it however long ago it was written; one read within
// the hour is not written to again.
func TestTableCacheKeepsUsed(t *testing.T) {
	c, err := OpenTableCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := tableCacheMax + 4
	base := time.Now().Add(-48 * time.Hour)
	key := func(i int) [32]byte { return [32]byte{byte(i), byte(i >> 8)} }
	for i := range n {
		p := c.path(key(i))
		if err := os.WriteFile(p, []byte("entry"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Second)
		os.Chtimes(p, at, at)
	}
	// The first written, read now: the newest by use.
	f, _, ok := c.open(key(0))
	if !ok {
		t.Fatal("entry 0 not opened")
	}
	f.Close()
	fi, _ := os.Stat(c.path(key(0)))
	if time.Since(fi.ModTime()) > time.Minute {
		t.Fatalf("entry 0 read, not marked as used: %v", fi.ModTime())
	}
	c.evict()
	if _, err := os.Stat(c.path(key(0))); err != nil {
		t.Error("the entry read was evicted")
	}
	if _, err := os.Stat(c.path(key(1))); err == nil {
		t.Error("the least recently used entry was kept")
	}
	// Read again within the hour: left as it is.
	recent := time.Now().Add(-time.Minute).Truncate(time.Second)
	os.Chtimes(c.path(key(0)), recent, recent)
	if f, _, ok := c.open(key(0)); ok {
		f.Close()
	}
	if fi, _ := os.Stat(c.path(key(0))); !fi.ModTime().Equal(recent) {
		t.Errorf("entry used a minute ago written to again: %v", fi.ModTime())
	}
}

// sparseEntry leaves a sparse file of size bytes where an entry goes.
func sparseEntry(size int64) func(t *testing.T, entry string) {
	return func(t *testing.T, e string) {
		f, err := os.OpenFile(e, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Skip("no sparse file here:", err)
		}
	}
}

// TestTableCacheHostileEntries: an entry's name holding what another
// process could leave there is never read as a table, never blocks, and
// the table is built again: a FIFO, a link to /dev/zero, a huge sparse
// file, a file of another user, one others may write to.
func TestTableCacheHostileEntries(t *testing.T) {
	bin := cachedFixture(t)
	for _, c := range []struct {
		name  string
		leave func(t *testing.T, entry string)
	}{
		{"fifo", func(t *testing.T, e string) {
			if err := syscall.Mkfifo(e, 0o600); err != nil {
				t.Skip("no FIFO here:", err)
			}
		}},
		{"link to /dev/zero", func(t *testing.T, e string) {
			if err := os.Symlink("/dev/zero", e); err != nil {
				t.Fatal(err)
			}
		}},
		{"huge sparse file", sparseEntry(8 << 30)},
		{"sparse file under the bound", sparseEntry(512 << 20)},
		{"another user's", func(t *testing.T, e string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away")
			}
			if err := os.WriteFile(e, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(e, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"writable by others", func(t *testing.T, e string) {
			if err := os.WriteFile(e, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(e, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c1, err := OpenTableCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), TableCache: c1})
			want := r.DSOTable(bin, "")
			entries, _ := filepath.Glob(filepath.Join(dir, "*.fkst"))
			if want == nil || len(entries) != 1 {
				t.Fatalf("first run: table %v, %d entries", want != nil, len(entries))
			}
			os.Remove(entries[0])
			c.leave(t, entries[0])
			c2, err := OpenTableCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan *Table)
			go func() {
				r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), TableCache: c2})
				done <- r.DSOTable(bin, "")
			}()
			select {
			case got := <-done:
				if c2.Hits() != 0 || got == nil || !reflect.DeepEqual(got.start, want.start) {
					t.Fatalf("%d hits, table %v: want the table built again", c2.Hits(), got != nil)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("reading the cache blocked")
			}
		})
	}
}
