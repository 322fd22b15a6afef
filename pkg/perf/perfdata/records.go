package perfdata

import (
	"encoding/binary"
)

// Record types (include/uapi/linux/perf_event.h and perf's event.h).
const (
	recMmap          = 1
	recLost          = 2
	recComm          = 3
	recExit          = 4
	recThrottle      = 5
	recUnthrottle    = 6
	recFork          = 7
	recRead          = 8
	recSample        = 9
	recMmap2         = 10
	recAux           = 11
	recItraceStart   = 12
	recLostSamples   = 13
	recSwitch        = 14
	recSwitchCPUWide = 15
	recNamespaces    = 16
	recKsymbol       = 17
	recBPFEvent      = 18
	recCgroup        = 19
	recTextPoke      = 20
	recAuxOutputHWID = 21
	recKernelMax     = 22

	recUserStart      = 64 // perf's own records start here
	recHeaderAttr     = 64
	recEventType      = 65
	recTracingData    = 66
	recBuildID        = 67
	recFinishedRound  = 68
	recIDIndex        = 69
	recAuxtraceInfo   = 70
	recAuxtrace       = 71
	recAuxtraceError  = 72
	recThreadMap      = 73
	recCPUMap         = 74
	recStatConfig     = 75
	recStat           = 76
	recStatRound      = 77
	recEventUpdate    = 78
	recTimeConv       = 79
	recHeaderFeature  = 80
	recCompressed     = 81
	recFinishedInit   = 82
	recCompressed2    = 83
	recUserKnownLimit = 84
)

// header.misc bits.
const (
	cpumodeMask        = 7
	cpumodeKernel      = 1
	cpumodeUser        = 2
	cpumodeHV          = 3
	cpumodeGuestKernel = 4
	cpumodeGuestUser   = 5
	miscMmapData       = 1 << 13 // MMAP: a data (non-exec) mapping
	miscCommExec       = 1 << 13
	miscForkExec       = 1 << 13 // perf's own: a synthesized FORK, maps not cloned
	miscMmapBuildID    = 1 << 14
)

// Callchain context markers.
const (
	contextHV          = ^uint64(32) + 1   // (u64)-32
	contextKernel      = ^uint64(128) + 1  // (u64)-128
	contextUser        = ^uint64(512) + 1  // (u64)-512
	contextGuest       = ^uint64(2048) + 1 // (u64)-2048
	contextGuestKernel = ^uint64(2176) + 1
	contextGuestUser   = ^uint64(2560) + 1
	contextMax         = ^uint64(4095) + 1 // (u64)-4095
)

// maxStack is perf script's default --max-stack (PERF_MAX_STACK_DEPTH).
const maxStack = 127

// sampleRec is the part of a SAMPLE record the reader uses.
type sampleRec struct {
	attr      *attr
	cpumode   uint16
	ip        uint64
	pid, tid  int32
	time      uint64
	cpu       uint32
	hasCPU    bool
	period    uint64
	callchain []byte // nr u64 values, little-endian
	nchain    int
	raw       []byte
	// --call-graph dwarf: the user registers (PERF_SAMPLE_REGS_USER's
	// ABI and values) and the valid bytes of the user stack dump.
	regsABI uint64
	regs    []byte
	stack   []byte
	// Where the dump's bytes start in the record's body, and its size
	// (the bytes recorded, of which stack holds the valid ones).
	stackOff, stackSize int
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

// attrFor returns the attribute of a SAMPLE record (rec without its
// 8-byte header), found by the event id when the file has several.
func (r *Reader) attrFor(body []byte) *attr {
	attrs := r.fi.attrs
	if len(attrs) == 1 {
		return &attrs[0]
	}
	a0 := &attrs[0]
	if a0.idPos < 0 || 8*a0.idPos+8 > len(body) {
		return a0
	}
	id := le64(body[8*a0.idPos:])
	if i, ok := r.fi.byID[id]; ok {
		return &attrs[i]
	}
	return a0
}

// attrForOther returns the attribute of a non-sample record, found by the
// id in its sample_id trailer when there is one.
func (r *Reader) attrForOther(body []byte) *attr {
	attrs := r.fi.attrs
	a0 := &attrs[0]
	if len(attrs) == 1 || !a0.sampleIDAll {
		return a0
	}
	st := a0.sampleType
	var off int
	switch {
	case st&sampleIdentifier != 0:
		off = len(body) - 8
	case st&sampleID != 0:
		// The id comes after TID and TIME in the trailer.
		off = len(body) - a0.sampleIDSize
		if st&sampleTID != 0 {
			off += 8
		}
		if st&sampleTime != 0 {
			off += 8
		}
	default:
		return a0
	}
	if off < 0 || off+8 > len(body) {
		return a0
	}
	if i, ok := r.fi.byID[le64(body[off:])]; ok {
		return &attrs[i]
	}
	return a0
}

// recordTime returns the time of a record for ordering: a SAMPLE's time
// field, another kernel record's sample_id time. ok is false when the
// record has no time (it is then processed at once, as perf does).
func (r *Reader) recordTime(typ uint32, body []byte) (uint64, bool) {
	if typ == recSample {
		a := r.attrFor(body)
		st := a.sampleType
		if st&sampleTime == 0 {
			return 0, false
		}
		off := 0
		if st&sampleIdentifier != 0 {
			off += 8
		}
		if st&sampleIP != 0 {
			off += 8
		}
		if st&sampleTID != 0 {
			off += 8
		}
		if off+8 > len(body) {
			return 0, false
		}
		return le64(body[off:]), true
	}
	a := r.attrForOther(body)
	if !a.sampleIDAll || a.sampleType&sampleTime == 0 {
		return 0, false
	}
	off := len(body) - a.sampleIDSize
	if a.sampleType&sampleTID != 0 {
		off += 8
	}
	if off < 0 || off+8 > len(body) {
		return 0, false
	}
	return le64(body[off:]), true
}

// parseSample reads a SAMPLE record body (without its header) into s.
func (r *Reader) parseSample(misc uint16, body []byte, s *sampleRec) bool {
	a := r.attrFor(body)
	*s = sampleRec{attr: a, cpumode: misc & cpumodeMask, pid: -1, tid: -1}
	c := cursor{b: body}
	st := a.sampleType
	if st&sampleIdentifier != 0 {
		c.u64()
	}
	if st&sampleIP != 0 {
		s.ip = c.u64()
	}
	if st&sampleTID != 0 {
		s.pid = int32(c.u32())
		s.tid = int32(c.u32())
	}
	if st&sampleTime != 0 {
		s.time = c.u64()
	}
	if st&sampleAddr != 0 {
		c.u64()
	}
	if st&sampleID != 0 {
		c.u64()
	}
	if st&sampleStreamID != 0 {
		c.u64()
	}
	if st&sampleCPU != 0 {
		s.cpu = c.u32()
		s.hasCPU = true
		c.u32()
	}
	if st&samplePeriod != 0 {
		s.period = c.u64()
	}
	if st&sampleRead != 0 {
		rf := a.readFormat
		per := 8
		if rf&formatID != 0 {
			per += 8
		}
		if rf&formatLost != 0 {
			per += 8
		}
		fixed := 0
		if rf&formatTotalTimeEnabled != 0 {
			fixed += 8
		}
		if rf&formatTotalTimeRunning != 0 {
			fixed += 8
		}
		if rf&formatGroup != 0 {
			nr := c.u64()
			if nr > uint64(c.left()) {
				return false
			}
			c.skip(fixed + int(nr)*per)
		} else {
			c.skip(fixed + per)
		}
	}
	if st&sampleCallchain != 0 {
		nr := c.u64()
		if nr > uint64(c.left()/8) {
			return false
		}
		s.nchain = int(nr)
		s.callchain = c.bytes(8 * int(nr))
	}
	if st&sampleRaw != 0 {
		n := c.u32()
		s.raw = c.bytes(int(n))
	}
	if st&(sampleRegsUser|sampleStackUser) != 0 {
		r.parseUser(a, &c, s)
	}
	return !c.bad
}

// parseUser reads the fields of a SAMPLE after its raw data that a
// --call-graph dwarf sample has: its branch stack (skipped), user
// registers and user stack dump.
func (r *Reader) parseUser(a *attr, c *cursor, s *sampleRec) {
	st := a.sampleType
	if st&sampleBranchStack != 0 {
		nr := c.u64()
		if a.branchType&branchHWIndexSample != 0 {
			c.u64()
		}
		if nr > uint64(c.left()/24) {
			c.bad = true
			return
		}
		c.skip(24 * int(nr))
	}
	if st&sampleRegsUser != 0 {
		s.regsABI = c.u64()
		if s.regsABI != 0 {
			s.regs = c.bytes(8 * a.regsUserWeight)
		}
	}
	if st&sampleStackUser != 0 {
		size := c.u64()
		if size > 0 {
			if size > uint64(c.left()) {
				c.bad = true
				return
			}
			s.stackOff, s.stackSize = c.off, int(size)
			data := c.bytes(int(size))
			dyn := c.u64()
			s.stack = data[:min(dyn, size)]
		}
	}
}

// chainAt returns the i-th callchain entry.
func (s *sampleRec) chainAt(i int) uint64 { return le64(s.callchain[8*i:]) }
