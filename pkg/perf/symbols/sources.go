package symbols

import (
	"bufio"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"flamekit/internal/base/safefile"
	"flamekit/pkg/perf/debuginfod"
	"flamekit/pkg/perf/jitdump"
)

// The rules every file a capture names is opened by (see safefile): a
// regular file, of bounded size. Perf maps and jitdump files, which the
// profiled process writes in a directory anyone may write to, must not
// be symbolic links and must be owned by root, the reader or the
// process's user.
var (
	ruleELF      = safefile.Rule{What: "object", Max: 16 << 30, FollowSymlink: true}
	ruleKallsyms = safefile.Rule{What: "kallsyms", Max: 1 << 30, FollowSymlink: true}
	ruleVDSO     = safefile.Rule{What: "vdso image", Max: 64 << 20, FollowSymlink: true}
)

func (r *Resolver) processRule(what string, max int64, pid int) safefile.Rule {
	return safefile.Rule{What: what, Max: max, Owners: safefile.Trusted(r.proc(pid).uid), Force: r.opts.Force}
}

// Errors a Missing's Err wraps, telling why an object has no symbols.
var (
	// ErrStripped: the object was found, without a symbol table.
	ErrStripped = errors.New("stripped: no .symtab")
	// ErrProcessGone: the object is not on this host and the processes
	// that mapped it have ended: in a container, its files went with it.
	ErrProcessGone = errors.New("gone with its process")
	// ErrNoJIT: no jitdump nor perf map for a process's JIT code.
	ErrNoJIT = errors.New("no jitdump nor perf map")
)

// sources is what the Resolver learns about processes from a capture: who
// mapped which file (for /proc/PID/root) and where jitdump files are.
type sources struct {
	mu     sync.Mutex
	mapped map[string][]int // path → pids that mapped it (a few)
	jit    map[int]string   // pid → its jit-PID.dump, as recorded
	procs  map[int]*procInfo
	jits   map[int]*jitLoad
	notes  map[string]error // path → why its symbols are partial
}

type jitLoad struct {
	once     sync.Once
	dump     *jitdump.Dump
	err      error
	path     string // the file read
	reported bool   // err is in Missing; Resolver.mu
}

// procInfo is what /proc says of a process of the capture, read once.
type procInfo struct {
	alive   bool
	root    string // /proc/PID/root
	nspid   int    // its pid in its own pid namespace (NSpid's last)
	uid     int    // its real uid, -1 when unknown
	otherNS bool   // in a mount namespace other than ours
}

var jitDumpName = regexp.MustCompile(`^jit-([0-9]+)\.dump$`)

// Mapped tells the Resolver that process pid mapped path (an MMAP record
// of the capture): while the process lives, a path that is not on this
// host is looked for under /proc/PID/root, as perf's nsinfo does for
// processes in containers; and a mapped jit-PID.dump (JITs map it as a
// marker) names the process's jitdump file.
func (r *Resolver) Mapped(pid int, path string) {
	if pid <= 0 || !strings.HasPrefix(path, "/") {
		return
	}
	s := &r.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if jitDumpName.MatchString(filepath.Base(path)) {
		if s.jit == nil {
			s.jit = map[int]string{}
		}
		s.jit[pid] = path
		return
	}
	if s.mapped == nil {
		s.mapped = map[string][]int{}
	}
	pids := s.mapped[path]
	for _, p := range pids {
		if p == pid {
			return
		}
	}
	if len(pids) < 8 {
		s.mapped[path] = append(pids, pid)
	}
}

// proc returns what /proc says of pid, read once.
func (r *Resolver) proc(pid int) procInfo {
	s := &r.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.procs[pid]; p != nil {
		return *p
	}
	if s.procs == nil {
		s.procs = map[int]*procInfo{}
	}
	p := readProc(r.opts.Proc, pid)
	s.procs[pid] = &p
	return p
}

func readProc(procfs string, pid int) procInfo {
	p := procInfo{uid: -1, nspid: pid}
	if pid <= 0 {
		return p
	}
	dir := filepath.Join(procfs, strconv.Itoa(pid))
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return p
	}
	defer f.Close()
	p.alive = true
	p.root = filepath.Join(dir, "root")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "Uid":
			p.uid, _ = strconv.Atoi(fields[0])
		case "NSpid":
			p.nspid, _ = strconv.Atoi(fields[len(fields)-1])
		}
	}
	theirs, err1 := os.Readlink(filepath.Join(dir, "ns", "mnt"))
	ours, err2 := os.Readlink(filepath.Join(procfs, "self", "ns", "mnt"))
	p.otherNS = err1 == nil && err2 == nil && theirs != ours
	return p
}

// containerPaths returns path under the root of each living process that
// mapped it from another mount namespace.
func (r *Resolver) containerPaths(path string) []string {
	r.src.mu.Lock()
	pids := append([]int(nil), r.src.mapped[path]...)
	r.src.mu.Unlock()
	var out []string
	for _, pid := range pids {
		if p := r.proc(pid); p.alive && p.otherNS {
			out = append(out, p.root+path)
		}
	}
	return out
}

// gone returns ErrProcessGone, with the pids, when path is not on this
// host and every process that mapped it has ended: a process of one of
// those pids that does not map path now is another that was given the
// pid (pids are reused; on a busy host within minutes).
func (r *Resolver) gone(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	r.src.mu.Lock()
	pids := append([]int(nil), r.src.mapped[path]...)
	r.src.mu.Unlock()
	if len(pids) == 0 {
		return nil
	}
	for _, pid := range pids {
		if r.proc(pid).alive && mapsFile(r.opts.Proc, pid, path) {
			return nil
		}
	}
	ps := make([]string, len(pids))
	for i, p := range pids {
		ps[i] = strconv.Itoa(p)
	}
	return fmt.Errorf("%w (pid %s ended; in a container, its files went with it)", ErrProcessGone, strings.Join(ps, ", "))
}

// mapsFile reports whether process pid maps path now (its
// /proc/PID/maps names it, deleted or not).
func mapsFile(procfs string, pid int, path string) bool {
	f, err := os.Open(filepath.Join(procfs, strconv.Itoa(pid), "maps"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<20))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := strings.TrimSuffix(sc.Text(), " (deleted)")
		if strings.HasSuffix(l, path) && strings.HasSuffix(strings.TrimSuffix(l, path), " ") {
			return true
		}
	}
	return false
}

// fetch asks debuginfod for the file kind of buildID; "" and the reason
// when it has none.
func (r *Resolver) fetch(buildID string, kind debuginfod.Kind) (string, error) {
	c := r.opts.Debuginfod
	if !c.Enabled() || buildID == "" {
		return "", nil
	}
	return c.Fetch(context.Background(), buildID, kind)
}

// prefetch starts fetching, in the background and several at once, the
// files of an object that is plainly not here (neither its path nor the
// build-id cache has it): the loads that need them then wait for less.
func (r *Resolver) prefetch(path, buildID string) {
	c := r.opts.Debuginfod
	if !c.Enabled() || buildID == "" || path == "[vdso]" || isRegular(path) ||
		isRegular(r.buildIDPath(buildID, "elf")) || isRegular(r.buildIDPath(buildID, "debug")) {
		return
	}
	c.Prefetch(context.Background(), debuginfod.Debuginfo, buildID)
	c.Prefetch(context.Background(), debuginfod.Executable, buildID)
}

// note records why path's symbols are partial (a stripped object read
// from its .dynsym), for Why.
func (r *Resolver) note(path string, err error) {
	r.src.mu.Lock()
	defer r.src.mu.Unlock()
	if r.src.notes == nil {
		r.src.notes = map[string]error{}
	}
	r.src.notes[path] = err
}

// readPerfMap reads process pid's perf map as perf's dso__find_perf_map
// looks for it: for a process in another mount namespace, first
// /tmp/perf-NSPID.map inside it (NSPID its pid there), then
// PerfMapDir/perf-PID.map here.
func (r *Resolver) readPerfMap(pid int) ([]byte, string, error) {
	rule := r.processRule("perf map", 1<<30, pid)
	host := filepath.Join(r.opts.PerfMapDir, "perf-"+strconv.Itoa(pid)+".map")
	if p := r.proc(pid); p.alive && p.otherNS {
		inside := p.root + "/tmp/perf-" + strconv.Itoa(p.nspid) + ".map"
		if data, err := safefile.ReadFile(inside, rule); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return data, inside, err
		}
	}
	data, err := safefile.ReadFile(host, rule)
	if errors.Is(err, fs.ErrNotExist) {
		// The frames name the map already: no path to repeat.
		err = fmt.Errorf("%w: %w", ErrNoJIT, fs.ErrNotExist)
	}
	return data, host, err
}

// jitDump returns process pid's jitdump, read once; nil when the capture
// named none or it cannot be read.
func (r *Resolver) jitDump(pid int) *jitdump.Dump {
	s := &r.src
	s.mu.Lock()
	path, ok := s.jit[pid]
	if !ok {
		s.mu.Unlock()
		return nil
	}
	if s.jits == nil {
		s.jits = map[int]*jitLoad{}
	}
	l := s.jits[pid]
	if l == nil {
		l = &jitLoad{}
		s.jits[pid] = l
	}
	s.mu.Unlock()
	l.once.Do(func() {
		l.path = path
		if r.opts.JITDumpDir != "" {
			l.path = filepath.Join(r.opts.JITDumpDir, filepath.Base(path))
		} else if p := r.proc(pid); p.alive && p.otherNS {
			l.path = p.root + path
		}
		f, _, err := safefile.Open(l.path, r.processRule("jitdump", 4<<30, pid))
		if err != nil {
			l.err = err
			return
		}
		defer f.Close()
		l.dump, l.err = jitdump.Read(f)
	})
	if l.err != nil {
		r.mu.Lock()
		if !l.reported {
			l.reported = true
			r.missing = append(r.missing, Missing{Path: l.path, Err: l.err})
		}
		r.mu.Unlock()
		return nil
	}
	return l.dump
}

// jitSymbol looks addr up in process pid's jitdump: the code at addr at
// time t (see PerfMap).
func (r *Resolver) jitSymbol(pid int, addr, t uint64) (Symbol, bool) {
	d := r.jitDump(pid)
	if d == nil {
		return Symbol{}, false
	}
	reg, ok := d.Lookup(addr, t)
	if !ok {
		return Symbol{}, false
	}
	return Symbol{Name: reg.Name, Offset: addr - reg.Start}, true
}

// JITReuses returns the times at which process pid's JIT loaded code over
// code it had loaded before (jitdump.Dump.Reuses), in the jitdump's
// clock, CLOCK_MONOTONIC nanoseconds: between two of them, PerfMap gives
// an address one answer, which it gives at the later one less 1. It is
// nil when every time has the same answers, that of ^uint64(0): the
// capture mapped no jitdump for pid, it cannot be read, its JIT reused no
// memory, or its times are the CPU's counter (FlagArchTimestamp), which
// no perf record -k clock is.
func (r *Resolver) JITReuses(pid int) []uint64 {
	d := r.jitDump(pid)
	if d == nil || d.Flags&jitdump.FlagArchTimestamp != 0 {
		return nil
	}
	return d.Reuses()
}

// Why says why the object path (as Missing and perf script name it) has
// frames without symbols, and how to fix it; "" when nothing is known.
func (r *Resolver) Why(path string) string {
	var err error
	for _, m := range r.Missing() {
		if m.Path == path {
			err = m.Err
		}
	}
	if err == nil {
		r.src.mu.Lock()
		err = r.src.notes[path]
		r.src.mu.Unlock()
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Asked now, once the capture is read, not when its table was
		// looked for: a preload runs ahead of the records that say
		// which processes mapped it. A debuginfod server that could
		// not be asked stays the reason: that is what to fix.
		if _, unasked := debuginfod.Unasked(err); !unasked {
			if g := r.gone(path); g != nil {
				err = g
			}
		}
	}
	if pid, ok := perfMapPID(path); ok && err == nil {
		if r.jitDump(pid) != nil {
			return ""
		}
		// Its map was read from PerfMapDir, or inside a container.
		name := "perf-" + strconv.Itoa(pid) + ".map"
		if p := r.proc(pid); p.nspid != pid {
			name = "perf-" + strconv.Itoa(p.nspid) + ".map"
		}
		for _, m := range r.Missing() {
			if filepath.Base(m.Path) == name || filepath.Base(m.Path) == "perf-"+strconv.Itoa(pid)+".map" {
				err = m.Err
			}
		}
		if err == nil {
			err = ErrNoJIT
		}
		r.src.mu.Lock()
		l := r.src.jits[pid]
		r.src.mu.Unlock()
		if l != nil && l.err != nil && !errors.As(err, new(*safefile.Error)) {
			// The capture mapped a jitdump that cannot be read.
			err = fmt.Errorf("%w (the jitdump %s: %v)", ErrNoJIT, l.path, l.err)
		}
	}
	if err == nil {
		return ""
	}
	return reason(err, r.opts.Debuginfod.Enabled())
}

// reason words err as a diagnosis with its fix.
func reason(err error, dbg bool) string {
	var de *debuginfod.Error
	var se *safefile.Error
	unasked, _ := debuginfod.Unasked(err)
	switch {
	case errors.As(err, &se):
		return se.Error()
	case errors.Is(err, ErrNoExecutable):
		return err.Error()
	case errors.Is(err, ErrNoJIT):
		return err.Error() + ": run the JIT with its perf support (node --perf-prof, or --perf-basic-prof for a map; java with a perf agent), recording with perf record -k mono for jitdump"
	case unasked != nil:
		return unasked.Error() // why the servers could not be asked, and what to do
	case errors.As(err, &de) && !errors.Is(err, debuginfod.ErrDisabled):
		return "debuginfod miss: " + de.Error() + "; publish its debug file to a server, or install it locally"
	case errors.Is(err, ErrProcessGone):
		return err.Error() + ": read the capture while the process runs, or keep its files with perf archive (perf record's build-id cache), or serve its debug file with debuginfod"
	case errors.Is(err, ErrStripped):
		fix := "install its debug symbols (Debian: the -dbgsym package), or set DEBUGINFOD_URLS"
		if dbg {
			fix = "install its debug symbols (Debian: the -dbgsym package)"
		}
		return "stripped (only exported symbols): " + fix
	case errors.Is(err, ErrBuildIDMismatch):
		return "another version is here (" + err.Error() + "): run perf archive where it was recorded, or set DEBUGINFOD_URLS"
	case errors.Is(err, fs.ErrNotExist):
		return "not found: run perf archive where it was recorded and unpack it in ~/.debug, or set DEBUGINFOD_URLS"
	}
	return err.Error()
}

// debugOnly reports whether ef is a debug file without code (objcopy
// --only-keep-debug): its program headers no longer say where code is in
// the executable, so it cannot map addresses alone.
func (ef *elfFile) debugOnly() bool {
	_, text := ef.section(".text")
	return text != nil && text.Type == elf.SHT_NOBITS
}

// ErrNoExecutable: only a debug file was found, which cannot place
// addresses without the executable.
var ErrNoExecutable = errors.New("a debug file without its executable")

// FileBuildID returns the GNU build-id of the ELF file at path, in
// hexadecimal ("" when it has none), reading it as the Resolver reads
// objects (debuginfod checks what it fetched with it).
func FileBuildID(path string) (string, error) {
	ef, err := openELF(path)
	if err != nil {
		return "", err
	}
	defer ef.Close()
	return ef.buildID(), nil
}
