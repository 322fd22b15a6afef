package perfdata

import "strconv"

// Bits of perf_event_attr.sample_type (include/uapi/linux/perf_event.h).
const (
	sampleIP          = 1 << 0
	sampleTID         = 1 << 1
	sampleTime        = 1 << 2
	sampleAddr        = 1 << 3
	sampleRead        = 1 << 4
	sampleCallchain   = 1 << 5
	sampleID          = 1 << 6
	sampleCPU         = 1 << 7
	samplePeriod      = 1 << 8
	sampleStreamID    = 1 << 9
	sampleRaw         = 1 << 10
	sampleBranchStack = 1 << 11
	sampleRegsUser    = 1 << 12
	sampleStackUser   = 1 << 13
	sampleWeight      = 1 << 14
	sampleDataSrc     = 1 << 15
	sampleIdentifier  = 1 << 16
	sampleTransaction = 1 << 17
	sampleRegsIntr    = 1 << 18
	samplePhysAddr    = 1 << 19
	sampleAux         = 1 << 20
	sampleCgroup      = 1 << 21
	sampleDataPage    = 1 << 22
	sampleCodePage    = 1 << 23
	sampleWeightStr   = 1 << 24
)

// Bits of perf_event_attr.read_format.
const (
	formatTotalTimeEnabled = 1 << 0
	formatTotalTimeRunning = 1 << 1
	formatID               = 1 << 2
	formatGroup            = 1 << 3
	formatLost             = 1 << 4
)

// Bits of the perf_event_attr flags word.
const (
	flagSampleIDAll     = 1 << 18
	flagUseClockID      = 1 << 25
	branchHWIndexSample = 1 << 17 // branch_sample_type PERF_SAMPLE_BRANCH_HW_INDEX
	branchCallStack     = 1 << 11 // branch_sample_type PERF_SAMPLE_BRANCH_CALL_STACK
)

// Event types (perf_event_attr.type).
const (
	typeHardware   = 0
	typeSoftware   = 1
	typeTracepoint = 2
	typeHWCache    = 3
	typeRaw        = 4
	typeBreakpoint = 5
	typeMax        = 6
)

// attr is what the reader needs of one perf_event_attr of the file.
type attr struct {
	typ            uint32
	config         uint64
	period         uint64 // sample_period (or frequency)
	sampleType     uint64
	readFormat     uint64
	flags          uint64
	branchType     uint64
	regsUser       uint64 // sample_regs_user mask
	regsIntr       uint64 // sample_regs_intr mask
	stackUser      uint32 // sample_stack_user: bytes of a sample's stack dump
	clockID        int32
	ids            []uint64
	name           string // as perf script prints it ("cpu-clock:pppH")
	nameBytes      []byte
	tp             *tpFormat // the tracepoint's format, for typeTracepoint
	idPos          int       // index (in u64) of the id in a SAMPLE, -1 if none
	sampleIDSize   int       // bytes of the sample_id trailer of other records
	sampleIDAll    bool
	outType        int // perf script's output type (typeHardware…, or typeMax for others)
	regsUserWeight int
	regsIntrWeight int
}

// parseAttr reads a perf_event_attr of size bytes.
func parseAttr(b []byte) attr {
	c := cursor{b: b}
	var a attr
	a.typ = c.u32()
	c.u32() // size
	a.config = c.u64()
	a.period = c.u64()
	a.sampleType = c.u64()
	a.readFormat = c.u64()
	a.flags = c.u64()
	c.u32() // wakeup
	c.u32() // bp_type
	c.u64() // config1
	c.u64() // config2
	a.branchType = c.u64()
	a.regsUser = c.u64()
	a.stackUser = c.u32()
	a.clockID = int32(c.u32())
	a.regsIntr = c.u64()
	a.setup()
	return a
}

// setup computes the derived layout facts.
func (a *attr) setup() {
	a.sampleIDAll = a.flags&flagSampleIDAll != 0
	st := a.sampleType
	a.idPos = -1
	switch {
	case st&sampleIdentifier != 0:
		a.idPos = 0
	case st&sampleID != 0:
		pos := 0
		for _, bit := range []uint64{sampleIP, sampleTID, sampleTime, sampleAddr} {
			if st&bit != 0 {
				pos++
			}
		}
		a.idPos = pos
	}
	n := 0
	for _, bit := range []uint64{sampleTID, sampleTime, sampleID, sampleStreamID, sampleCPU, sampleIdentifier} {
		if st&bit != 0 {
			n += 8
		}
	}
	a.sampleIDSize = n
	a.outType = typeMax
	if a.typ < typeMax {
		a.outType = int(a.typ)
	}
	a.regsUserWeight = popcount(a.regsUser)
	a.regsIntrWeight = popcount(a.regsIntr)
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// defaultName is the name perf gives an event when the file has no event
// description (perf 6.1's evsel__name): the hardware and software event
// names followed by their modifiers, "sys:name" for a tracepoint whose
// format is known, else type:config.
func (a *attr) defaultName() string {
	switch a.typ {
	case typeSoftware:
		names := []string{"cpu-clock", "task-clock", "page-faults", "context-switches",
			"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
			"emulation-faults", "dummy", "bpf-output", "cgroup-switches"}
		if a.config < uint64(len(names)) {
			return names[a.config] + a.modifiers()
		}
	case typeHardware:
		names := []string{"cycles", "instructions", "cache-references", "cache-misses",
			"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
			"stalled-cycles-backend", "ref-cycles"}
		if a.config < uint64(len(names)) {
			return names[a.config] + a.modifiers()
		}
	case typeTracepoint:
		if a.tp != nil {
			return a.tp.system + ":" + a.tp.name
		}
	}
	return strconv.FormatUint(uint64(a.typ), 10) + ":" + strconv.FormatUint(a.config, 16)
}

// Bits of the perf_event_attr flags word that name modifiers.
const (
	flagExcludeUser  = 1 << 4
	flagExcludeKern  = 1 << 5
	flagExcludeHV    = 1 << 6
	flagPreciseShift = 15 // precise_ip: 2 bits
	flagExcludeHost  = 1 << 19
	flagExcludeGuest = 1 << 20
)

// modifiers returns the event modifiers perf appends to a hardware or
// software event's name (evsel__add_modifiers): ":" then k, u, h for the
// contexts counted when some are excluded, p per level of precise_ip, H
// and G for host and guest when exclude_guest is not what the rest
// implies.
func (a *attr) modifiers() string {
	var b []byte
	f := a.flags
	guestDefault := false
	add := func(exclude uint64, mod byte) {
		if f&exclude == 0 {
			b = append(b, mod)
		}
	}
	if f&(flagExcludeKern|flagExcludeUser|flagExcludeHV) != 0 {
		add(flagExcludeKern, 'k')
		add(flagExcludeUser, 'u')
		add(flagExcludeHV, 'h')
		guestDefault = true
	}
	if p := int(f>>flagPreciseShift) & 3; p > 0 {
		b = append(b, "ppp"[:p]...)
		guestDefault = true
	}
	if f&flagExcludeHost != 0 || (f&flagExcludeGuest != 0) == guestDefault {
		add(flagExcludeHost, 'H')
		add(flagExcludeGuest, 'G')
	}
	if len(b) == 0 {
		return ""
	}
	return ":" + string(b)
}

// chainBytes returns the size of the data section less, about, the stack
// dumps of --call-graph dwarf samples: what sizes the tables of
// locations, whose entries grow with the samples and their frames, not
// with the kilobytes of stack a sample carries. A system-wide capture of
// 494 MB with 8 KB dumps has 62,667 samples and 1,062 distinct frames;
// sized by its whole data, the shared index took 16 MB, and zeroing it
// 8% of stackcollapse's CPU time.
func (fi *fileInfo) chainBytes() int64 {
	n := int64(fi.data.size)
	var dump int64
	for i := range fi.attrs {
		if a := &fi.attrs[i]; a.sampleType&sampleStackUser != 0 {
			dump = max(dump, int64(a.stackUser))
		}
	}
	// A frame-pointer sample of a system-wide capture takes about 512
	// bytes; a dwarf one that and its dump.
	return n / (1 + dump/512)
}
