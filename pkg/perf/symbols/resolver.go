package symbols

import (
	"encoding/binary"
	"errors"
	"flamekit/internal/base/safefile"
	"flamekit/pkg/perf/debuginfod"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Options says where a Resolver looks for symbols. Empty fields take
// perf's defaults.
type Options struct {
	// BuildIDDir is perf's build-id cache (default $HOME/.debug), where
	// perf record saves kallsyms, the vdso and every binary with samples.
	BuildIDDir string
	// DebugDir holds separate debug files (default /usr/lib/debug).
	DebugDir string
	// Kallsyms is the running kernel's symbol list (default
	// /proc/kallsyms), used for a capture of the running kernel when the
	// build-id cache has no copy.
	Kallsyms string
	// KernelNotes holds the running kernel's build-id (default
	// /sys/kernel/notes).
	KernelNotes string
	// PerfMapDir holds the JIT perf maps perf-PID.map (default /tmp).
	PerfMapDir string
	// Debuginfod fetches debug files and executables by build-id when
	// none is found here (nil: never).
	Debuginfod *debuginfod.Client
	// Force reads perf maps and jitdump files whoever owns them (perf's
	// -f); else only those of root, the reader or the process's user.
	Force bool
	// Proc is where the processes of the capture are looked at while they
	// live (default /proc): their mount namespaces (/proc/PID/root) and
	// their pids in their own pid namespaces (NSpid).
	Proc string
	// JITDumpDir, when set, is where jit-PID.dump files are read, rather
	// than the paths the capture recorded.
	JITDumpDir string
	// VDSO is a file holding the vdso image (an ELF file) that stands
	// for the running machine's: perf gives "[vdso]" the vdso of its own
	// process when the build-id cache has no copy of the recorded one,
	// or the capture recorded no build-id (perf record -B,
	// --switch-output). Default: this process's own vdso, read from
	// memory; "-": none.
	VDSO string
	// TableCache, when not nil, keeps the tables built from ELF files
	// for later runs (see TableCache).
	TableCache *TableCache
}

func (o *Options) fill() {
	if o.BuildIDDir == "" {
		home, _ := os.UserHomeDir()
		o.BuildIDDir = filepath.Join(home, ".debug")
	}
	if o.DebugDir == "" {
		o.DebugDir = "/usr/lib/debug"
	}
	if o.Kallsyms == "" {
		o.Kallsyms = "/proc/kallsyms"
	}
	if o.KernelNotes == "" {
		o.KernelNotes = "/sys/kernel/notes"
	}
	if o.PerfMapDir == "" {
		o.PerfMapDir = "/tmp"
	}
	if o.Proc == "" {
		o.Proc = "/proc"
	}
}

// Missing is an object whose symbols could not be loaded: perf script,
// run here, prints [unknown] for its frames as well, but on the host the
// capture comes from (or after `perf archive`) it may not.
type Missing struct {
	// Path is the object as the caller named it: a file, "[vdso]",
	// "[kernel.kallsyms]" or a perf map's path.
	Path string
	// BuildID is the build-id the caller gave, "" when none.
	BuildID string
	// Err says why: not found, a different build-id, unreadable.
	Err error
}

// ErrBuildIDMismatch is wrapped by a Missing's Err when files were found
// but none had the recorded build-id.
var ErrBuildIDMismatch = errors.New("build-id differs")

// Resolver finds the symbols perf script prints for addresses, loading
// each object's table on first use and keeping it. A Resolver is safe for
// concurrent use, and so are the Tables it returns. Preload and
// PreloadKernel load tables in the background, on another core, before
// they are needed.
type Resolver struct {
	opts Options

	mu          sync.Mutex
	kernels     map[string]*load[*Kernel]
	dsos        map[dsoKey]*load[*Table]
	perfMaps    map[int]*load[*Table]
	kaddrs      map[kaddrKey]kaddr // KernelSymbolAddr of other names
	missing     []Missing
	refusedSaid map[string]bool // the files TakeRefused returned
	queue       []func()        // Preload's loads not started yet, in order
	working     bool            // a background goroutine takes from queue

	runningOnce sync.Once
	running     string // the running kernel's build-id

	vdsoOnce sync.Once
	vdso     *vdsoImage // the running vdso (Options.VDSO)

	src sources // processes, containers, jitdump (sources.go)
}

type dsoKey struct{ path, buildID string }

type kaddrKey struct{ path, name string }

type kaddr struct {
	addr uint64
	ok   bool
}

// load is one object's table, loaded once by whoever starts it first: a
// lookup, or the background goroutine of Preload.
type load[T any] struct {
	started  bool
	done     chan struct{} // closed when val, misses and panicked are set
	val      T
	misses   []Missing // why it is missing, reported when first asked
	asked    bool      // a lookup has asked for it (misses reported)
	panicked any       // a panic of the load, raised again in the asker
}

// NewResolver returns a Resolver looking for symbols where opts says.
func NewResolver(opts Options) *Resolver {
	opts.fill()
	return &Resolver{
		opts:     opts,
		kernels:  map[string]*load[*Kernel]{},
		dsos:     map[dsoKey]*load[*Table]{},
		perfMaps: map[int]*load[*Table]{},
		kaddrs:   map[kaddrKey]kaddr{},
	}
}

// get returns the value of m[k], loading it with fn unless that is done
// or under way (then it waits for it, running queued loads meanwhile when
// help is set; else idle, so that the load's own goroutines have the
// core). The first time a lookup asks for it, what it could not load is
// added to Missing, so that Missing lists objects in the order lookups
// asked for them, preloaded or not.
func get[K comparable, T any](r *Resolver, m map[K]*load[T], k K, help bool, fn func(*[]Missing) T) T {
	r.mu.Lock()
	l := m[k]
	if l != nil && l.asked {
		// Loaded and reported: the common case.
		r.mu.Unlock()
		if l.panicked != nil {
			panic(l.panicked)
		}
		return l.val
	}
	if l == nil {
		l = &load[T]{done: make(chan struct{})}
		m[k] = l
	}
	mine := !l.started
	l.started = true
	r.mu.Unlock()
	switch {
	case mine:
		run(l, fn)
	case help:
		r.help(l.done)
	default:
		<-l.done
	}
	if l.panicked != nil {
		panic(l.panicked)
	}
	r.mu.Lock()
	if !l.asked {
		l.asked = true
		r.missing = append(r.missing, l.misses...)
	}
	r.mu.Unlock()
	return l.val
}

// run loads l with fn and marks it done, keeping a panic, with the stack
// it happened on, for the askers (a bug: loading turns bad input into
// errors).
func run[T any](l *load[T], fn func(*[]Missing) T) {
	defer close(l.done)
	defer func() {
		if p := recover(); p != nil {
			l.panicked = fmt.Sprintf("%v\n\nwhile loading symbols:\n%s", p, debug.Stack())
		}
	}()
	l.val = fn(&l.misses)
}

// preload queues the load of m[k] for the background goroutine, unless
// it is known or under way already.
func preload[K comparable, T any](r *Resolver, m map[K]*load[T], k K, fn func(*[]Missing) T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m[k] != nil {
		return
	}
	l := &load[T]{done: make(chan struct{})}
	m[k] = l
	r.queue = append(r.queue, func() {
		r.mu.Lock()
		mine := !l.started
		l.started = true
		r.mu.Unlock()
		if mine {
			run(l, fn)
		}
	})
	if !r.working {
		r.working = true
		go r.work()
	}
}

// work runs the queued loads one after the other, then ends. One
// goroutine is enough: the caller, busy with its own work, loads what it
// needs before the queue reaches it itself, and helps (see help) when it
// has to wait.
func (r *Resolver) work() {
	for {
		r.mu.Lock()
		f := r.popLocked()
		if f == nil {
			r.working = false
		}
		r.mu.Unlock()
		if f == nil {
			return
		}
		f()
	}
}

// next takes the first queued load, nil when none is left.
func (r *Resolver) next() func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.popLocked()
}

// popLocked is next with r.mu held.
func (r *Resolver) popLocked() func() {
	if len(r.queue) == 0 {
		return nil
	}
	f := r.queue[0]
	r.queue[0] = nil
	r.queue = r.queue[1:]
	return f
}

// help waits for done, running queued loads meanwhile: a lookup that
// waits for a table another goroutine is loading keeps its core busy
// with the next tables of the queue instead of idling. (On a 10 MB
// system-wide capture the folding goroutines waited 0.1 s in all for
// tables while the one background goroutine loaded them in turn.)
func (r *Resolver) help(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		f := r.next()
		if f == nil {
			<-done
			return
		}
		f()
	}
}

// Preload starts loading in the background the table DSOTable(path,
// buildID) returns, and returns at once; a lookup that needs it before it
// is loaded waits for it (or loads it itself if the background goroutine
// has not started on it). Tables are loaded one at a time in the order of
// the calls, by one goroutine, so that a caller reading a capture on one
// core has its tables loaded on the other. Preloading changes no answer,
// nor what Missing reports (an object is reported when a lookup first
// asks for it).
func (r *Resolver) Preload(path, buildID string) {
	if pid, ok := perfMapPID(path); ok {
		preload(r, r.perfMaps, pid, func(miss *[]Missing) *Table { return r.loadPerfMap(pid, miss) })
		return
	}
	r.prefetch(path, strings.ToLower(buildID))
	preload(r, r.dsos, dsoKey{path, buildID}, func(miss *[]Missing) *Table {
		// One core: the caller is busy on the other.
		return r.loadDSO(path, strings.ToLower(buildID), 1, miss)
	})
}

// PreloadKernel is Preload for KernelSymbols(buildID).
func (r *Resolver) PreloadKernel(buildID string) {
	buildID = strings.ToLower(buildID)
	preload(r, r.kernels, buildID, func(miss *[]Missing) *Kernel { return r.loadKernelMiss(buildID, miss) })
}

// Missing returns the objects whose symbols could not be loaded so far,
// in the order they were asked for.
func (r *Resolver) Missing() []Missing {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Missing(nil), r.missing...)
}

// TakeRefused returns why each file a capture named was refused as unsafe
// to read (not a regular file, another owner, too large: see
// internal/base/safefile), in the order they were asked for, each once
// over the Resolver's life: a refusal returned is not returned again.
// Their frames are left without symbols.
func (r *Resolver) TakeRefused() []error {
	var errs []error
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.missing {
		var se *safefile.Error
		if errors.As(m.Err, &se) && !r.refusedSaid[se.Path] {
			if r.refusedSaid == nil {
				r.refusedSaid = map[string]bool{}
			}
			r.refusedSaid[se.Path] = true
			errs = append(errs, m.Err)
		}
	}
	return errs
}

// DSO returns the symbol for addr in the object perf script names path
// (a file, "[vdso]", or "/tmp/perf-PID.map"), addr being the
// file-relative address perf prints in callchains (ip - map start + map
// pgoff; absolute for a perf map). buildID is the build-id the capture
// recorded for it in hex, "" when it recorded none.
func (r *Resolver) DSO(path, buildID string, addr uint64) (Symbol, bool) {
	return r.DSOTable(path, buildID).Lookup(addr)
}

// DSOTable returns the table DSO uses for path and buildID, loading it on
// first use; nil when it has no symbols.
func (r *Resolver) DSOTable(path, buildID string) *Table {
	if pid, ok := perfMapPID(path); ok {
		return r.PerfMapTable(pid)
	}
	return get(r, r.dsos, dsoKey{path, buildID}, true, func(miss *[]Missing) *Table {
		// The caller waits: every core helps.
		return r.loadDSO(path, strings.ToLower(buildID), runtime.GOMAXPROCS(0), miss)
	})
}

// perfMapPID returns the pid of a perf map's path, "/tmp/perf-PID.map".
func perfMapPID(path string) (int, bool) {
	if !strings.HasPrefix(path, "/tmp/perf-") || !strings.HasSuffix(path, ".map") {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/tmp/perf-"), ".map"))
	return pid, err == nil
}

// Kernel returns the kernel symbol (not a module's) for the absolute
// address addr, from the kallsyms of the kernel with build-id buildID.
func (r *Resolver) Kernel(buildID string, addr uint64) (Symbol, bool) {
	k := r.KernelSymbols(buildID)
	if k == nil {
		return Symbol{}, false
	}
	return k.Table.Lookup(addr)
}

// Module returns the symbol for the absolute address addr in a module
// ("ext4" or "[ext4]") of the kernel with build-id buildID, from its
// kallsyms (perf prefers the module's .ko file when it finds one; this
// package does not read .ko files). perf script prints such a frame with
// the module's map name as its object, "([ext4])", and resolves it only
// when the capture has a map for that module (a kernel MMAP record named
// after it); the offset is the same whether counted from the absolute
// address or from the map's start.
func (r *Resolver) Module(buildID, module string, addr uint64) (Symbol, bool) {
	k := r.KernelSymbols(buildID)
	if k == nil {
		return Symbol{}, false
	}
	module = strings.TrimSuffix(strings.TrimPrefix(module, "["), "]")
	return k.Modules[module].Lookup(addr)
}

// KernelSymbols returns the symbols of the kernel with build-id buildID
// ("" for the running kernel), loading them on first use: the copy perf
// saved in the build-id cache, [kernel.kallsyms]/BUILDID/kallsyms, else
// Options.Kallsyms when buildID is the running kernel's. nil when
// neither is there.
func (r *Resolver) KernelSymbols(buildID string) *Kernel {
	buildID = strings.ToLower(buildID)
	// A caller waiting for the kernel does not run other loads: the
	// kernel's lines are read on every core (readKallsyms), and a load
	// begun meanwhile would hold up the caller after the kernel is done.
	return get(r, r.kernels, buildID, false, func(miss *[]Missing) *Kernel { return r.loadKernelMiss(buildID, miss) })
}

func (r *Resolver) loadKernelMiss(buildID string, miss *[]Missing) *Kernel {
	k, err := r.loadKernel(buildID)
	if err != nil {
		*miss = append(*miss, Missing{Path: "[kernel.kallsyms]", BuildID: buildID, Err: err})
	}
	return k
}

// KernelSymbolAddr returns the address that the kallsyms file Kernel uses
// for buildID gives to the function name. perf compares it for its
// reference symbol (the "_text" of the capture's "[kernel.kallsyms]_text"
// MMAP record, whose pgoff holds the address at record time): when they
// differ the kernel was relocated (KASLR) between the capture and the
// file, and perf shifts kernel addresses by the difference (table -
// recorded) before looking them up; modules are not shifted. The
// addresses of perf's reference symbols ("_text", "_stext") are kept
// when the file is parsed; another name's is looked for in the file once
// and kept.
func (r *Resolver) KernelSymbolAddr(buildID, name string) (uint64, bool) {
	k := r.KernelSymbols(buildID)
	if k == nil {
		return 0, false
	}
	if addr, ok, known := k.refAddr(name); known {
		return addr, ok
	}
	key := kaddrKey{k.Path, name}
	r.mu.Lock()
	a, cached := r.kaddrs[key]
	r.mu.Unlock()
	if cached {
		return a.addr, a.ok
	}
	if data, err := safefile.ReadFile(k.Path, ruleKallsyms); err == nil {
		a.addr, a.ok = kallsymsFunctionAddr(data, name)
	}
	r.mu.Lock()
	r.kaddrs[key] = a
	r.mu.Unlock()
	return a.addr, a.ok
}

// PerfMap returns the JIT symbol for the absolute address addr of
// process pid at time t.
//
// JIT code is looked up first in the process's jitdump file, when the
// capture mapped one (see Mapped), as perf inject --jit would name it:
// the code loaded at addr last at or before t, in the jitdump's clock
// (CLOCK_MONOTONIC nanoseconds, perf record -k mono's); t = ^uint64(0)
// for the code loaded there last of all. Then in its perf map, which
// has no times, found as perf's dso__find_perf_map finds it.
func (r *Resolver) PerfMap(pid int, addr, t uint64) (Symbol, bool) {
	if s, ok := r.jitSymbol(pid, addr, t); ok {
		return s, true
	}
	return r.PerfMapTable(pid).Lookup(addr)
}

// PerfMapTable returns the table of perf-PID.map, loading it on first
// use; nil when the file cannot be read.
func (r *Resolver) PerfMapTable(pid int) *Table {
	return get(r, r.perfMaps, pid, true, func(miss *[]Missing) *Table { return r.loadPerfMap(pid, miss) })
}

func (r *Resolver) loadPerfMap(pid int, miss *[]Missing) *Table {
	data, path, err := r.readPerfMap(pid)
	if err != nil {
		*miss = append(*miss, Missing{Path: path, Err: err})
		return nil
	}
	t, _ := ParsePerfMap(data)
	return t
}

func (r *Resolver) runningKernel() string {
	r.runningOnce.Do(func() {
		if data, err := os.ReadFile(r.opts.KernelNotes); err == nil {
			r.running = parseBuildIDNotes(data, binary.NativeEndian)
		}
	})
	return r.running
}

func (r *Resolver) loadKernel(buildID string) (*Kernel, error) {
	var tried []string
	if buildID != "" {
		p := filepath.Join(r.opts.BuildIDDir, "[kernel.kallsyms]", buildID, "kallsyms")
		if isRegular(p) {
			return readKallsyms(p, r.opts.TableCache)
		}
		tried = append(tried, p)
	}
	if buildID == "" || buildID == r.runningKernel() {
		return readKallsyms(r.opts.Kallsyms, r.opts.TableCache)
	}
	return nil, fmt.Errorf("no kallsyms for build-id %s (not in %s; the running kernel is %s)",
		buildID, strings.Join(tried, ", "), orNone(r.runningKernel()))
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// readKallsyms parses a kallsyms file, mapped when it can be (a copy in
// the build-id cache; /proc/kallsyms cannot), on every core: a perf.data
// reader waits for the kernel's table at its first kernel sample.
// A copy's tables are taken from c, and kept there, when c is not nil.
func readKallsyms(path string, c *TableCache) (*Kernel, error) {
	f, size, err := safefile.Open(path, ruleKallsyms)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > 0 {
		if k := c.loadKernel(f, path, size); k != nil {
			return k, nil
		}
		if data, m, ok := mapFile(f, 0, size, true); ok {
			k, err := parseKallsyms(path, bytesToString(data), m, kallsymsParts(len(data), runtime.GOMAXPROCS(0)))
			if err == nil {
				c.storeKernel(f, k)
			}
			return k, err
		}
	}
	// /proc/kallsyms: size 0 to stat, read to its end, within the bound.
	data, err := io.ReadAll(io.LimitReader(f, ruleKallsyms.Max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > ruleKallsyms.Max {
		return nil, &safefile.Error{Path: path, What: ruleKallsyms.What, Err: safefile.ErrTooLarge}
	}
	return parseKallsyms(path, bytesToString(data), nil, kallsymsParts(len(data), runtime.GOMAXPROCS(0)))
}

func isRegular(p string) bool {
	_, ok := regularFile(p)
	return ok
}

// regularFile returns what os.Stat says of p, ok when it is a regular
// file.
func regularFile(p string) (fi fs.FileInfo, ok bool) {
	fi, err := os.Stat(p)
	return fi, err == nil && fi.Mode().IsRegular()
}

// buildIDPath returns the build-id cache's entry for id: the link
// .build-id/xx/rest when it is a file (old layout), else the file called
// base inside the directory it links to.
func (r *Resolver) buildIDPath(id, base string) string {
	if len(id) < 3 {
		return ""
	}
	link := filepath.Join(r.opts.BuildIDDir, ".build-id", id[:2], id[2:])
	if isRegular(link) {
		return link
	}
	return filepath.Join(link, base)
}

// loadDSO finds an object's symbol sources as perf 6.1's dso__load does,
// trying in order: the .gnu_debuglink file (next to the object, in its
// .debug directory, under DebugDir), the build-id cache's copy and its
// debug file, DebugDir/PATH.debug, DebugDir/PATH,
// DebugDir/.build-id/xx/rest.debug, and the object itself. A file whose
// build-id is not the recorded one is never used. The first file with a
// .symtab gives the symbols, the first with a .dynsym gives the runtime
// view (program headers, PLT). The table is built on up to workers
// goroutines; what could not be loaded is added to miss.
func (r *Resolver) loadDSO(path, buildID string, workers int, miss *[]Missing) *Table {
	vdso := path == "[vdso]"
	if !vdso && (!strings.HasPrefix(path, "/") || pseudoFile(path)) {
		// [heap], [stack], //anon, /memfd:…: nothing to load.
		return nil
	}
	// The object itself, opened once: for its build-id when none was
	// recorded, its .gnu_debuglink, and as a candidate, under its own
	// name or another (the build-id cache links the files it holds).
	var self *elfFile
	var selfInfo fs.FileInfo
	if !vdso {
		if fi, ok := regularFile(path); ok {
			if ef, err := openELF(path); err == nil {
				self, selfInfo = ef, fi
			}
		}
	}
	defer func() {
		if self != nil {
			self.Close()
		}
	}()
	if buildID == "" && self != nil {
		buildID = self.buildID()
	}

	var cands []string
	if vdso {
		if buildID != "" {
			cands = append(cands, r.buildIDPath(buildID, "vdso"),
				filepath.Join(r.opts.BuildIDDir, "[vdso]", buildID, "vdso"))
		}
	} else {
		cands = append(cands, r.debuglinkCandidates(self)...)
		if buildID != "" {
			cands = append(cands, r.buildIDPath(buildID, "elf"), r.buildIDPath(buildID, "debug"))
		}
		cands = append(cands, filepath.Join(r.opts.DebugDir, path+".debug"), filepath.Join(r.opts.DebugDir, path))
		if buildID != "" && len(buildID) > 2 {
			cands = append(cands, filepath.Join(r.opts.DebugDir, ".build-id", buildID[:2], buildID[2:]+".debug"))
		}
		// A process in another mount namespace (a container) mapped
		// its own file of that name: perf's nsinfo reads it there first.
		cands = append(cands, r.containerPaths(path)...)
		cands = append(cands, path)
	}

	var syms, runtime *elfFile
	// take keeps ef as the symbol table and as the runtime (dynamic
	// symbols) file where they are still missing, closes it when it is
	// neither, and reports whether both are found.
	take := func(ef *elfFile) bool {
		used := false
		if syms == nil && ef.hasSymtab() {
			syms, used = ef, true
		}
		if runtime == nil && ef.hasDynsym() {
			runtime, used = ef, true
		}
		if !used {
			ef.Close()
		}
		return syms != nil && runtime != nil
	}
	found := false // a file of the recorded build-id
	var mismatch []string
	var readErr error
	// The files read so far, with their build-ids: a link to one of them
	// (the build-id cache's copy of an object is a hard link to it) adds
	// nothing but its name in the messages, and is not read again.
	type seenFile struct {
		fi      fs.FileInfo
		buildID string
	}
	var seen []seenFile
	for _, c := range cands {
		if c == "" {
			continue
		}
		fi, ok := regularFile(c)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(seen, func(s seenFile) bool { return os.SameFile(s.fi, fi) }); i >= 0 {
			if got := seen[i].buildID; buildID != "" && got != buildID {
				mismatch = append(mismatch, fmt.Sprintf("%s has %s", c, orNone(got)))
			} else {
				found = true
			}
			continue
		}
		var ef *elfFile
		if self != nil && os.SameFile(selfInfo, fi) {
			ef, self = self, nil
			ef.path = c
		} else {
			var err error
			if ef, err = openELF(c); err != nil {
				readErr = err
				continue
			}
		}
		if buildID != "" {
			got := ef.buildID()
			seen = append(seen, seenFile{fi, got})
			if got != buildID {
				mismatch = append(mismatch, fmt.Sprintf("%s has %s", c, orNone(got)))
				ef.Close()
				continue
			}
		} else {
			seen = append(seen, seenFile{fi, ""})
		}
		found = true
		if take(ef) {
			break
		}
	}
	var fetchErr error
	if !vdso && syms == nil && buildID != "" {
		// Not here: debuginfod, for the debug file, and for the
		// executable when no file of this build-id is here at all.
		for _, kind := range []debuginfod.Kind{debuginfod.Debuginfo, debuginfod.Executable} {
			if kind == debuginfod.Executable && runtime != nil {
				break
			}
			p, err := r.fetch(buildID, kind)
			if err != nil {
				fetchErr = err
				continue
			}
			if p == "" {
				break
			}
			ef, err := openELF(p)
			if err != nil || ef.buildID() != buildID {
				// debuginfod checked it; it changed since.
				if ef != nil {
					ef.Close()
				}
				continue
			}
			if take(ef) {
				break
			}
		}
	}
	if syms != nil && runtime == nil && syms.debugOnly() {
		// Addresses are file offsets of the executable, which a debug
		// file's program headers no longer give: no symbol rather than a
		// wrong one.
		readErr = fmt.Errorf("%w (%s): install the program, or serve it with debuginfod", ErrNoExecutable, syms.path)
		syms.Close()
		syms = nil
	}
	if !vdso && syms == nil && runtime != nil {
		// perf reads the exported symbols of .dynsym: some frames of a
		// stripped object have names, the others none; say why.
		why := error(ErrStripped)
		if fetchErr != nil {
			why = fmt.Errorf("%w; %w", ErrStripped, fetchErr)
		}
		r.note(path, why)
	}
	if vdso && syms == nil && runtime == nil {
		// perf's last try: its own process's vdso, copied to a file.
		ef, other, err := r.vdsoELF(buildID)
		switch {
		case ef != nil:
			syms, runtime = ef, ef
		case other != "":
			mismatch = append(mismatch, other)
		case readErr == nil:
			readErr = err
		}
	}
	defer func() {
		if syms != nil {
			syms.Close()
		}
		if runtime != nil && runtime != syms {
			runtime.Close()
		}
	}()
	if syms == nil && runtime == nil {
		var err error
		switch {
		case len(mismatch) > 0:
			err = fmt.Errorf("%w: recorded %s, %s", ErrBuildIDMismatch, buildID, strings.Join(mismatch, ", "))
		case readErr != nil:
			err = readErr
		case found:
			err = fmt.Errorf("%w nor .dynsym", ErrStripped)
		default:
			// Why says whether it went with its process, once the
			// capture is read (see gone).
			err = fmt.Errorf("no file with its symbols: %w", fs.ErrNotExist)
		}
		if fetchErr != nil {
			err = fmt.Errorf("%w; %w", err, fetchErr)
		}
		*miss = append(*miss, Missing{Path: path, BuildID: buildID, Err: err})
		return nil
	}
	if syms == nil {
		syms = runtime
	}
	if runtime == nil {
		runtime = syms
	}
	if t := r.opts.TableCache.load(syms, runtime); t != nil {
		return t
	}
	t, err := elfTable(syms, runtime, workers)
	if err != nil {
		*miss = append(*miss, Missing{Path: path, BuildID: buildID, Err: err})
		return nil
	}
	r.opts.TableCache.store(syms, runtime, t)
	return t
}

// pseudoFile reports whether path names a mapping that is not a file
// perf could read symbols from: anonymous and shared memory, devices,
// memfd files. perf tries them and finds nothing, as here; they are not
// reported as missing.
func pseudoFile(path string) bool {
	for _, p := range []string{"//", "/dev/", "/anon_hugepage", "/memfd:", "/SYSV"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// debuglinkCandidates returns where perf looks for the file named by
// the object's .gnu_debuglink (ef, nil when it could not be opened):
// next to it, in its .debug directory and under DebugDir. (perf also
// tries the bare name in its working directory; that is not done here.)
func (r *Resolver) debuglinkCandidates(ef *elfFile) []string {
	if ef == nil {
		return nil
	}
	link := ef.debuglink()
	if link == "" {
		return nil
	}
	dir := filepath.Dir(ef.path)
	for _, c := range []string{
		filepath.Join(dir, link),
		filepath.Join(dir, ".debug", link),
		filepath.Join(r.opts.DebugDir, dir, link),
	} {
		if isRegular(c) {
			return []string{c}
		}
	}
	return nil
}
