package perfdata

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// Options configure a Reader.
type Options struct {
	// Symbolizer resolves addresses to the symbols perf prints; nil
	// prints every symbol as "[unknown]" (addresses and DSOs are still
	// those perf prints).
	Symbolizer Symbolizer
	// AllowForeign reads a capture made on another host even when the
	// kernel or binaries it has samples in are not on this machine (by
	// build-id): their frames are then [unknown], as perf script here
	// would print them. Without it Open returns an *UnsupportedError
	// for such a capture (run perf archive on its host, or perf script
	// there).
	AllowForeign bool
	// TraceFS is the tracefs directory whose format files stand for the
	// tracing-data section of a file perf record did not finish (see
	// Damage), which names and decodes tracepoint events. Default:
	// /sys/kernel/tracing, else /sys/kernel/debug/tracing.
	TraceFS string
	// ModTime, when not zero, is when the capture was written, for its
	// "captured on" (which perf takes from the file's modification
	// time): the original's, for a file that is a copy of it (a
	// decompressed perf.data.gz, standard input), whose own time is that
	// of the copying.
	ModTime time.Time
	// NoModTime says the file is a copy and nothing tells when the
	// capture was written (standard input, gzip -n, zstd): it then has no
	// "captured on", and no wall clock unless it recorded one (perf
	// record -k) — rather than the time of the copying, hours off.
	NoModTime bool
}

// Stats counts what a Reader read and what it skipped.
type Stats struct {
	Samples       int64 // samples delivered
	Records       int64 // records read, decompressed ones included
	Unknown       int64 // records of a type this reader does not know, skipped by their size
	Lost          int64 // events the kernel reported lost (LOST records)
	LostSamples   int64 // samples the kernel reported lost (LOST_SAMPLES records)
	DroppedChains int64 // samples whose call chain perf drops (a bad context marker)
	GuestSamples  int64 // samples of a virtual machine's guest, which perf script skips
	Unordered     int64 // records older than what was already delivered (perf's "out of order")
	// Unwind counts where the user stacks of a --call-graph dwarf
	// capture ended, per cause.
	Unwind UnwindStops
}

// Reader reads the samples of a perf.data file, in the order and with the
// fields `perf script` prints them. Use it as a bufio.Scanner:
//
//	r, err := perfdata.Open(path, perfdata.Options{})
//	...
//	defer r.Close()
//	for r.Next() {
//		s := r.Sample()
//	}
//	if err := r.Err(); err != nil { ... }
type Reader struct {
	name string
	f    *os.File
	fi   *fileInfo
	opt  Options
	out  [typeMax + 1]outFields

	br      peeker
	ra      *readAhead // br, for a large data section
	pos     int64      // file offset of the next record
	end     int64      // end of the data section
	q       queue
	flushTo uint64 // deliver queued records up to this time
	final   bool   // the end was reached: deliver everything

	zs      *zstdStream
	pend    []byte // decompressed records not yet processed
	pendOff int

	m      *machine
	th     *thread // the current sample's
	rec    sampleRec
	s      sample.Sample
	buf    []byte   // bytes of the current sample's fields
	chain  []uint32 // the current sample's frames, as locations
	locs   locations
	cache  *locCache // made at first use (see location)
	keys   spareKeys
	slab   byteSlab          // the bytes of the locations it makes
	noMaps map[uint64]uint32 // locations of addresses in no map
	odd    map[oddKey]uint32
	namer  *namer
	// framesMade says whether s.Frames holds the frames of r.chain.
	framesMade bool
	scratch    []byte
	// printsFrames is the ip field of the current sample's event type.
	printsFrames bool
	// deferred: the frames are resolved by FrameCaches (DeferFrames);
	// the current sample's kernel map was loaded at its frame loadAt
	// (-1: not), before which the frames see the world loadFrom.
	deferred bool
	dropped  bool     // the current sample's chain is dropped (deferred)
	ips      []uint64 // its call chain, decoded by scanFrames (deferred)
	loadAt   int32
	loadFrom *world
	world    *world // the current world (see curWorld)
	worldGen uint64
	shared   *sharedLocs    // the locations of the FrameCaches
	dwarf    *dwarfUnwinder // for --call-graph dwarf samples
	cfi      *cfiObjects    // the CFI of their objects (cfiTables)
	// The current sample's user stack, when its unwinding is left to a
	// FrameCache (see unwindUser): what Keep keeps of it, its stack dump
	// and maps.
	unw        keptUnwind
	unwPending bool
	unwStack   []byte
	unwList    []mapping
	unwChunk   *chunk    // the queue's chunk unwStack is in, if it is
	pushRec    sampleRec // pushSample's
	dumps      bool      // some events record user stack dumps
	recChunk   *chunk    // the chunk of the record being delivered
	// jitClock says that every sample has a time in the clock of
	// jitdump files, CLOCK_MONOTONIC (perf record -k mono).
	jitClock bool
	stats    Stats
	stopErr  error // why reading stopped; Err once the queue is empty
	err      error
}

// outFields are the fields perf script prints by default for one type of
// event (builtin-script.c's output[] after perf_session__check_output_opt).
type outFields struct {
	tid, cpu, time, period, ip, trace bool
}

// Open opens a perf.data file and reads its header. The error is an
// *UnsupportedError when the file is valid but needs perf script (pipe
// mode, --call-graph dwarf not of x86-64, LBR call stacks, a big-endian file, a capture
// from another host whose objects are not here), a *FormatError when it
// is not a perf.data file. The capture's "captured on" is the file's
// modification time, as perf prints it (see Options.ModTime for a copy).
func Open(path string, opt Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := newReader(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// file is what a Reader needs of its input.
type file interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
}

func newReader(f file, name string, opt Options) (*Reader, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	fi, err := readHeader(f, st.Size(), name)
	if err != nil {
		return nil, err
	}
	switch {
	case opt.NoModTime:
	case !opt.ModTime.IsZero():
		fi.capture.CapturedOn = ctime(opt.ModTime)
	default:
		fi.capture.CapturedOn = ctime(st.ModTime())
	}
	if fi.damage != nil && fi.tracing == nil {
		fi.tracing = lostTracing(fi, opt.TraceFS)
	}
	fi.finish()
	r := &Reader{name: name, fi: fi, opt: opt}
	if err := r.checkSupported(); err != nil {
		return nil, err
	}
	if err := r.checkForeign(); err != nil {
		return nil, err
	}
	r.preload()
	r.setFields()
	r.m = newMachine(fi.buildIDs)
	r.jitClock = fi.jitClock()
	for i := range fi.attrs {
		r.dumps = r.dumps || fi.attrs[i].sampleType&sampleStackUser != 0
	}
	r.pos = int64(fi.data.off)
	r.end = int64(fi.data.off + fi.data.size)
	// Buffers: 1 MiB, less for a small file (records are at most 64 KiB),
	// and the queue's chunks 256 KiB; or, for a large section, the
	// read-ahead's blocks, which are the queue's chunks, 512 KiB, two
	// read ahead (see smallBuffers).
	if r.end-r.pos >= readAheadMin {
		r.q.chunk = readAheadBlock
		r.ra = newReadAhead(f, r.pos, r.end-r.pos, &r.q, 2)
		r.br = r.ra
	} else {
		bufSize := int(min(1<<20, max(64<<10, r.end-r.pos)))
		r.br = bufio.NewReaderSize(io.NewSectionReader(f, r.pos, r.end-r.pos), bufSize)
		r.q.chunk = min(bufSize, smallBuffers)
	}
	r.namer = &namer{sy: opt.Symbolizer}
	r.s.Reset()
	return r, nil
}

// smallBuffers sizes the read-ahead's blocks and the queue's chunks.
// Memory a process touches for the first time costs its zeroing, 3 to 5
// ms a megabyte on the virtual machines measured (more than reading it
// from the page cache): with four 1 MiB blocks and 1 MiB chunks (and
// chunks pinned by --call-graph dwarf batches, see keepUnwind)
// stackcollapse on a 494 MB dwarf capture touched 58 MB, with 256 KiB
// chunks and three 512 KiB blocks 47 MB. Blocks of 256 KiB made twice
// the context switches (each block is a hand-over between goroutines).
// Since the queue holds records in the blocks they were read in, two
// blocks read ahead keep the memory of a 517 MB dwarf capture at what
// copying into 256 KiB chunks touched (about 49 MB), as fast as three.
const smallBuffers = 256 << 10

// readAheadBlock is the size of the read-ahead's blocks (a variable for
// the tests, which make records cross many).
var readAheadBlock = 2 * smallBuffers

// clockMonotonic is CLOCK_MONOTONIC's clock id.
const clockMonotonic = 1

// jitClock reports whether every event's samples have a time, in the
// clock of jitdump files, CLOCK_MONOTONIC: perf record -k mono, which
// perf inject --jit requires.
func (fi *fileInfo) jitClock() bool {
	for i := range fi.attrs {
		a := &fi.attrs[i]
		if a.flags&flagUseClockID == 0 || a.clockID != clockMonotonic || a.sampleType&sampleTime == 0 {
			return false
		}
	}
	return len(fi.attrs) > 0
}

// lostTracing returns the formats of the capture's tracepoints from this
// machine's tracefs, for a file that lost its tracing-data section; nil
// when it has no tracepoint event or they are not found.
func lostTracing(fi *fileInfo, dir string) *tracingData {
	want := map[uint64]bool{}
	for i := range fi.attrs {
		if fi.attrs[i].typ == typeTracepoint {
			want[fi.attrs[i].config] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	dirs := []string{dir}
	if dir == "" {
		dirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}
	}
	td := tracefsFormats(dirs, want)
	fi.damage.Tracepoints = td != nil
	return td
}

// checkSupported rejects captures whose stacks perf script builds with
// what this reader does not do.
func (r *Reader) checkSupported() error {
	for i := range r.fi.attrs {
		a := &r.fi.attrs[i]
		switch {
		case a.sampleType&sampleStackUser != 0 && r.fi.arch != "" && r.fi.arch != "x86_64":
			return &UnsupportedError{File: r.name, Reason: "--call-graph dwarf capture of " + r.fi.arch + " (its user stacks need a DWARF unwinder for " + r.fi.arch + "; only x86-64 stacks are unwound)"}
		case a.sampleType&sampleBranchStack != 0 && a.branchType&branchCallStack != 0:
			return &UnsupportedError{File: r.name, Reason: "--call-graph lbr capture (LBR call stacks)"}
		case a.sampleType&sampleBranchStack != 0 && a.sampleType&sampleCallchain == 0:
			return &UnsupportedError{File: r.name, Reason: "branch-stack capture without call chains"}
		}
	}
	return nil
}

// preloader is a Symbolizer that can load tables in the background
// (*symbols.Resolver does).
type preloader interface {
	Preload(path, buildID string)
	PreloadKernel(buildID string)
}

// preload asks the Symbolizer to load, on another goroutine, the tables of
// every object the capture has samples in (its build-id table), the kernel
// first, then the others by name: while this goroutine reads records, the
// other core loads symbols. It changes no answer.
func (r *Reader) preload() {
	p, ok := r.opt.Symbolizer.(preloader)
	if !ok {
		return
	}
	var names []string
	for name, b := range r.fi.buildIDs {
		switch {
		case name == "[kernel.kallsyms]":
			p.PreloadKernel(hexID(b.id))
		case !b.kernel && (strings.HasPrefix(name, "/") || name == "[vdso]"):
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p.Preload(name, hexID(r.fi.buildIDs[name].id))
	}
}

// hostname is the local host's name (a variable for the tests).
var hostname = os.Hostname

// checkForeign rejects a capture from another host whose kernel or
// binaries with samples (those of its build-id table) cannot be found
// here by build-id.
func (r *Reader) checkForeign() error {
	sy := r.opt.Symbolizer
	host := r.fi.capture.Host
	if sy == nil || r.opt.AllowForeign || host == "" {
		return nil
	}
	if here, err := hostname(); err == nil && here == host {
		return nil
	}
	before := len(sy.Missing())
	total := 0
	for name, b := range r.fi.buildIDs {
		id := hexID(b.id)
		switch {
		case name == "[kernel.kallsyms]":
			total++
			sy.KernelSymbols(id)
		case b.kernel:
			// modules: found with the kernel's kallsyms
		case strings.HasPrefix(name, "/") || name == "[vdso]":
			total++
			sy.DSOTable(name, id)
		}
	}
	var missing []string
	for _, m := range sy.Missing()[before:] {
		missing = append(missing, m.Path+" "+m.BuildID)
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return &UnsupportedError{File: r.name, Reason: fmt.Sprintf(
		"captured on host %q: %d of its %d objects with samples are not on this machine by build-id (%s); run perf archive on %s",
		host, len(missing), total, strings.Join(missing[:min(3, len(missing))], ", "), host)}
}

// setFields computes the fields perf script prints per type of event.
func (r *Reader) setFields() {
	useChain := false
	for i := range r.fi.attrs {
		if r.fi.attrs[i].sampleType&sampleCallchain != 0 {
			useChain = true
		}
	}
	for t := 0; t <= typeMax; t++ {
		of := outFields{tid: true, cpu: true, time: true, period: true, ip: true}
		if t == typeTracepoint {
			of = outFields{tid: true, cpu: true, time: true, trace: true}
		}
		var first *attr
		for i := range r.fi.attrs {
			if r.fi.attrs[i].outType == t {
				first = &r.fi.attrs[i]
				break
			}
		}
		if first != nil && t != typeMax && !(first.typ == typeSoftware && first.config == 9) {
			st := first.sampleType
			if st&sampleIP == 0 {
				of.ip = false
			}
			if st&sampleTID == 0 {
				of.tid = false
			}
			if st&sampleTime == 0 {
				of.time = false
			}
			if st&sampleCPU == 0 {
				of.cpu = false
			}
		}
		r.out[t] = of
	}
	if useChain {
		for i := range r.fi.attrs {
			a := &r.fi.attrs[i]
			if a.typ == typeTracepoint && a.sampleType&sampleCallchain != 0 {
				r.out[typeTracepoint].ip = true
				break
			}
		}
	}
}

// Capture returns what the file's header says about the capture, with the
// values perf script --header prints.
func (r *Reader) Capture() *sample.Capture { return &r.fi.capture }

// Damage describes what is missing from a file that perf record did not
// finish (killed, or cut short), nil for a finished file. Its Unread
// counts are known once Next has returned false.
func (r *Reader) Damage() *Damage { return r.fi.damage }

// Stats returns the counts so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	s.Unordered = r.q.unordered
	if r.cfi != nil {
		for i := range s.Unwind {
			s.Unwind[i] += r.cfi.stops[i].Load()
		}
	}
	return s
}

// Sample returns the sample read by the last call to Next. It and the
// slices it holds are valid until the next call to Next.
func (r *Reader) Sample() *sample.Sample {
	if !r.framesMade {
		r.framesMade = true
		frames := r.s.Frames[:0]
		for _, l := range r.chain {
			frames = append(frames, r.namer.frame(r.locs.at(l)))
		}
		r.s.Frames = frames
	}
	return &r.s
}

// Head returns the sample read by the last call to Next without its
// frames (Frames is empty): what Sample returns but the symbols of its
// frames, which Head does not look up. It is valid until the next call to
// Next.
func (r *Reader) Head() *sample.Sample {
	r.s.Frames = r.s.Frames[:0]
	r.framesMade = false
	return &r.s
}

// PrintsFrames reports whether perf script prints frames for the sample
// read by the last call to Next: false for an event whose default fields
// have no instruction pointer (a tracepoint recorded without -g). perf
// script prints such a sample on one line with no blank line after it,
// a form stackcollapse-perf.pl's rules drop, while a sample whose call
// chain is empty (Frames empty, PrintsFrames true) is followed by a blank
// line and folds to its comm alone.
func (r *Reader) PrintsFrames() bool { return r.printsFrames }

// Err returns the first error met, nil at a clean end of the file.
func (r *Reader) Err() error { return r.err }

// Close releases the file and the decompressor.
func (r *Reader) Close() error {
	if r.ra != nil {
		r.ra.close()
	}
	if r.zs != nil {
		r.zs.close()
		r.zs = nil
	}
	if r.f != nil {
		err := r.f.Close()
		r.f = nil
		return err
	}
	return nil
}

// Next reads the next sample; false at the end of the samples or on an
// error (see Err). A file that ends early, or a record that cannot be
// read, stops the reading: the samples already queued are delivered
// first, then Err reports where it stopped.
func (r *Reader) Next() bool {
	r.unwindPending()
	if r.err != nil {
		return false
	}
	for {
		// Queued records whose round is over, in time order.
		if t, ok := r.q.peek(); ok && (r.final || t <= r.flushTo) {
			e := r.q.pop()
			r.recChunk = e.ck
			got := r.deliver(e.rec)
			r.recChunk = nil
			r.q.release(e)
			if got {
				return true
			}
			continue
		}
		if r.final {
			r.err = r.stopErr
			if d := r.fi.damage; d != nil {
				d.Samples = r.stats.Samples
			}
			return false
		}
		// Records decompressed from a COMPRESSED record.
		if rec, ok := r.nextPending(); ok {
			if r.handle(rec, -1, nil) {
				return true
			}
			continue
		}
		if r.stopErr != nil {
			r.final = true
			continue
		}
		rec, off, ck, ok := r.nextFileRecord()
		if !ok {
			if r.stopErr == nil && r.pendOff < len(r.pend) {
				if d := r.fi.damage; d != nil {
					d.UnreadDecompressed = int64(len(r.pend) - r.pendOff)
				} else {
					r.fail(-1, "compressed data ends inside a record (%d bytes left)", len(r.pend)-r.pendOff)
				}
			}
			r.final = true
			continue
		}
		if r.handle(rec, off, ck) {
			return true
		}
	}
}

// nextFileRecord reads the next record of the data section, at off. The
// bytes are valid until the next read, or, when the record is in a block
// of the read-ahead (ck), as long as the queue holds it there.
func (r *Reader) nextFileRecord() (rec []byte, off int64, ck *chunk, ok bool) {
	if r.pos >= r.end {
		return nil, 0, nil, false
	}
	off = r.pos
	h, err := r.br.Peek(8)
	if err != nil {
		r.failCut(off, "record header truncated (%d bytes left in the data section)", r.end-off)
		return nil, 0, nil, false
	}
	size := int(le16(h[6:]))
	typ := le32(h)
	if size < 8 {
		r.failCut(off, "record of type %d has size %d", typ, size)
		return nil, 0, nil, false
	}
	rec, err = r.br.Peek(size)
	if err != nil {
		r.failCut(off, "record of type %d and size %d truncated", typ, size)
		return nil, 0, nil, false
	}
	if r.ra != nil {
		ck = r.ra.block()
	}
	r.br.Discard(size)
	r.pos += int64(size)
	if typ == recAuxtrace {
		// The AUX data follows the record.
		if len(rec) >= 16 {
			n := le64(rec[8:])
			if n > uint64(r.end-r.pos) {
				r.pos = off
				r.failCut(off, "AUXTRACE data beyond the end of the data section")
				return nil, 0, nil, false
			}
			// Keep the record: copy it before skipping.
			rec, ck = append([]byte(nil), rec...), nil
			if _, err := r.br.Discard(int(n)); err != nil {
				r.fail(off, "AUXTRACE data truncated")
				return nil, 0, nil, false
			}
			r.pos += int64(n)
		}
	}
	return rec, off, ck, true
}

// nextPending returns the next complete decompressed record, if any; a
// record that continues in the next COMPRESSED record stays pending.
func (r *Reader) nextPending() ([]byte, bool) {
	p := r.pend[r.pendOff:]
	if len(p) < 8 || r.stopErr != nil {
		return nil, false
	}
	size := int(le16(p[6:]))
	if size < 8 {
		r.fail(-1, "compressed record of type %d has size %d", le32(p), size)
		return nil, false
	}
	if size > len(p) {
		return nil, false
	}
	r.pendOff += size
	return p[:size], true
}

// failCut stops the reading at the record at off, which cannot be read:
// in a file perf record did not finish (Damage), where the records end;
// in a finished file, an error.
func (r *Reader) failCut(off int64, format string, args ...any) {
	if d := r.fi.damage; d != nil {
		d.Unread = r.end - off
		r.pos = r.end
		return
	}
	r.fail(off, format, args...)
}

// fail stops the reading at a record that cannot be read (off is its
// file offset, -1 inside compressed data): what is queued is delivered,
// then Err returns the error.
func (r *Reader) fail(off int64, format string, args ...any) {
	if r.stopErr == nil {
		r.stopErr = &FormatError{File: r.name, Offset: off, What: fmt.Sprintf(format, args...)}
	}
}

// handle processes one record as perf's session does when reading it:
// perf's own records at once, kernel records through the queue (or at
// once when they have no time). A record in a read-ahead block (ck) is
// queued there, any other copied. It reports whether a sample was made.
func (r *Reader) handle(rec []byte, off int64, ck *chunk) bool {
	r.stats.Records++
	typ := le32(rec)
	if typ >= recUserStart {
		switch typ {
		case recFinishedRound:
			r.flushTo = r.q.round()
		case recCompressed, recCompressed2:
			r.decompress(typ, rec, off)
		case recBuildID:
			// perf inject -b puts build-ids in the data section.
			r.m.addBuildIDs(readBuildIDs(rec, map[string]buildID{}))
		case recHeaderAttr, recEventType, recTracingData, recIDIndex,
			recAuxtraceInfo, recAuxtrace, recAuxtraceError, recThreadMap, recCPUMap,
			recStatConfig, recStat, recStatRound, recEventUpdate, recTimeConv,
			recHeaderFeature, recFinishedInit:
		default:
			r.stats.Unknown++
		}
		return false
	}
	if typ == 0 || typ >= recKernelMax {
		r.stats.Unknown++
		return false
	}
	t, ok := r.recordTime(typ, rec[8:])
	if !ok || t == 0 || t == ^uint64(0) {
		return r.deliver(rec)
	}
	switch {
	case ck != nil:
		// Queued where it was read: nothing copied, so nothing to cut
		// (the block is held whatever the record's size).
		r.q.pushIn(t, rec, ck)
	case typ == recSample && r.dumps:
		r.pushSample(t, rec)
	default:
		r.q.push(t, rec)
	}
	return false
}

// pushSample copies into the queue a SAMPLE record that may carry a user
// stack dump (--call-graph dwarf) without the bytes of the dump past its
// valid ones (dyn_size): the dump's size then reads dyn_size, the sample
// the same. A dump of 8 KB holds 6.5 on average on a busy machine: the
// queue copies and holds a fifth less.
func (r *Reader) pushSample(t uint64, rec []byte) {
	s := &r.pushRec
	if !r.parseSample(le16(rec[4:]), rec[8:], s) || s.stack == nil || s.stackSize-len(s.stack) < 64 {
		r.q.push(t, rec)
		return
	}
	from, to := 8+s.stackOff+len(s.stack), 8+s.stackOff+s.stackSize
	q := r.q.pushCut(t, rec, from, to)
	binary.LittleEndian.PutUint16(q[6:], uint16(len(q)))
	binary.LittleEndian.PutUint64(q[8+s.stackOff-8:], uint64(len(s.stack)))
	*s = sampleRec{}
}

// decompress decodes a COMPRESSED record's payload into the pending
// records.
func (r *Reader) decompress(typ uint32, rec []byte, off int64) {
	payload := rec[8:]
	if typ == recCompressed2 {
		if len(payload) < 8 {
			r.fail(off, "COMPRESSED2 record too short")
			return
		}
		n := le64(payload)
		payload = payload[8:]
		if n > uint64(len(payload)) {
			r.fail(off, "COMPRESSED2 data size %d beyond the record", n)
			return
		}
		payload = payload[:n]
	}
	if r.zs == nil {
		r.zs = newZstdStream()
	}
	// Keep the undecoded tail of the previous payloads.
	rest := r.pend[r.pendOff:]
	r.pend = append(r.pend[:0], rest...)
	r.pendOff = 0
	var err error
	r.pend, err = r.zs.decode(r.pend, payload)
	if err != nil {
		r.fail(off, "decompressing: %v", err)
	}
}

// deliver processes a record in time order. It reports whether it made a
// sample.
func (r *Reader) deliver(rec []byte) bool {
	typ := le32(rec)
	misc := le16(rec[4:])
	body := rec[8:]
	m := r.m
	c := cursor{b: body}
	switch typ {
	case recSample:
		if !r.parseSample(misc, body, &r.rec) {
			r.fail(-1, "SAMPLE record truncated")
			return false
		}
		if r.rec.time >= r.m.jitNext {
			r.m.advanceJIT(r.rec.time)
		}
		if c := r.rec.cpumode; c == cpumodeGuestKernel || c == cpumodeGuestUser {
			// perf script filters these out (perf_guest is false).
			r.stats.GuestSamples++
			return false
		}
		if r.rec.attr.sampleType&sampleStackUser != 0 && r.rec.attr.sampleType&sampleCallchain != 0 {
			r.unwindUser(&r.rec)
		}
		r.makeSample(&r.rec)
		r.stats.Samples++
		return true
	case recMmap:
		pid, tid := int32(c.u32()), int32(c.u32())
		start, length, pgoff := c.u64(), c.u64(), c.u64()
		name := r.recordString(typ, body, c.off)
		if misc&cpumodeMask == cpumodeKernel {
			m.kernelMmap(start, length, pgoff, name, nil)
			return false
		}
		prot := uint32(0)
		if misc&miscMmapData == 0 {
			prot = protExec
		}
		m.mmap(pid, tid, start, length, pgoff, prot, 0, name, nil)
		r.mapped(pid, name)
	case recMmap2:
		pid, tid := int32(c.u32()), int32(c.u32())
		start, length, pgoff := c.u64(), c.u64(), c.u64()
		var bid []byte
		if misc&miscMmapBuildID != 0 {
			n := int(c.u8())
			c.skip(3)
			raw := c.bytes(20)
			if n > 20 {
				n = 20
			}
			if raw != nil {
				bid = raw[:n]
			}
		} else {
			c.skip(24) // maj, min, ino, ino_generation
		}
		prot, flags := c.u32(), c.u32()
		name := r.recordString(typ, body, c.off)
		if c.bad {
			return false
		}
		if misc&cpumodeMask == cpumodeKernel {
			m.kernelMmap(start, length, pgoff, name, bid)
			return false
		}
		m.mmap(pid, tid, start, length, pgoff, prot, flags, name, bid)
		r.mapped(pid, name)
	case recComm:
		pid, tid := int32(c.u32()), int32(c.u32())
		if c.bad {
			return false
		}
		name := r.recordString(typ, body, c.off)
		m.comm(pid, tid, []byte(name))
	case recFork:
		pid, ppid := int32(c.u32()), int32(c.u32())
		tid, ptid := int32(c.u32()), int32(c.u32())
		if c.bad {
			return false
		}
		m.fork(pid, ppid, tid, ptid, misc&miscForkExec != 0)
	case recExit:
		// perf 6.1 marks the thread dead but keeps it: nothing changes
		// for the samples that follow.
	case recLost:
		c.u64()
		r.stats.Lost += int64(c.u64())
	case recLostSamples:
		r.stats.LostSamples += int64(c.u64())
	case recKsymbol:
		addr := c.u64()
		length := c.u32()
		c.u16() // ksym_type
		flags := c.u16()
		name := r.recordString(typ, body, c.off)
		if !c.bad {
			m.ksymbol(addr, length, flags&1 != 0, name)
			if r.cache != nil {
				r.cache.clear() // symbols of BPF code changed
			}
			r.odd = nil
		}
	}
	return false
}

// recordString reads the NUL-terminated string at off of a record body,
// which must end before the record's sample_id trailer.
func (r *Reader) recordString(typ uint32, body []byte, off int) string {
	if off > len(body) {
		return ""
	}
	return cString(body[off:])
}

var (
	unknownBytes = []byte("[unknown]")
)

// makeSample fills r.s from a parsed SAMPLE record, as perf script prints
// it: its frames as locations in r.chain, made into r.s.Frames when
// Sample asks for them.
func (r *Reader) makeSample(rec *sampleRec) {
	r.head(rec)
	r.chain = r.chain[:0]
	r.framesMade = false
	if r.deferred {
		r.scanFrames(rec)
		return
	}
	if r.printsFrames {
		if rec.attr.sampleType&sampleCallchain != 0 {
			r.chainFrames(r.th, rec)
		} else {
			r.ipFrame(r.th, rec)
		}
	}
}

// head fills the fields of r.s but its frames from a parsed SAMPLE
// record, and r.th.
func (r *Reader) head(rec *sampleRec) {
	s := &r.s
	frames := s.Frames[:0]
	*s = sample.Sample{CPU: -1, Frames: frames}
	a := rec.attr
	of := &r.out[a.outType]
	th := r.m.findnew(rec.pid, rec.tid)
	r.th = th
	s.Comm = th.comm
	// Numbers are formatted into r.buf; the slices are taken at the
	// end, when r.buf no longer moves.
	r.buf = r.buf[:0]
	if of.tid {
		r.buf = strconv.AppendInt(r.buf, int64(rec.tid), 10)
		s.ProcessID, s.HasProcessID = rec.pid, true
	}
	tidEnd := len(r.buf)
	if of.cpu {
		s.CPU = int(rec.cpu)
	}
	if of.time {
		s.Time = folded.Time(int64(rec.time / 1000 * 1000))
		s.HasTime = true
	}
	if of.period {
		p := rec.period
		if a.sampleType&samplePeriod == 0 {
			p = a.period
		}
		s.Period = int64(min(p, math.MaxInt64)) // 2^64-1 stays out of range, not -1
		s.HasPeriod = true
	}
	s.Event = a.nameBytes
	r.printsFrames = of.ip
	// A tracepoint's record, for its fields (sample.Trace): the payload
	// is printed only if asked for.
	rawStart := len(r.buf)
	trace := of.trace && a.tp != nil && rec.raw != nil
	if trace {
		r.buf = append(r.buf, rec.raw...)
	}
	rawEnd := len(r.buf)
	if trace {
		r.buf = r.appendFuncSyms(r.buf, a.tp, rec.raw)
	}
	auxEnd := len(r.buf)
	if of.tid {
		s.TID = r.buf[:tidEnd:tidEnd]
	}
	if trace {
		s.Trace = sample.Trace{Format: a.tp, Raw: r.buf[rawStart:rawEnd:rawEnd]}
		if auxEnd > rawEnd {
			s.Trace.Aux = r.buf[rawEnd:auxEnd:auxEnd]
		}
	}
}
