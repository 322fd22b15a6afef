package perfdata

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// Feature bits of the file header (tools/perf/util/header.h).
const (
	featTracingData = 1
	featBuildID     = 2
	featHostname    = 3
	featOSRelease   = 4
	featVersion     = 5
	featArch        = 6
	featCmdline     = 11
	featEventDesc   = 12
	featSampleTime  = 21
	featClockID     = 23
	featClockData   = 29
)

const (
	fileHeaderSize = 104 // struct perf_file_header
	pipeHeaderSize = 16  // struct perf_pipe_file_header
	maxAttrs       = 1 << 16
)

var (
	magicLE = []byte("PERFILE2")
	magicBE = []byte("2ELIFREP")
	magicV1 = []byte("PERFFILE")
)

// section is a perf_file_section: where a part of the file lies.
type section struct{ off, size uint64 }

// buildID is one entry of the build-id table.
type buildID struct {
	pid    int32
	kernel bool // recorded for a kernel-space DSO
	id     []byte
}

// fileInfo is what the header and the feature sections say.
type fileInfo struct {
	attrs    []attr
	byID     map[uint64]int // event id -> index in attrs
	data     section
	capture  sample.Capture
	buildIDs map[string]buildID // DSO name -> build-id (host entries)
	tracing  *tracingData
	features [4]uint64
	arch     string  // the machine's architecture ("x86_64"), "" when absent
	damage   *Damage // nil for a file perf record finished
}

func (fi *fileInfo) has(feat int) bool {
	return fi.features[feat/64]&(1<<(feat%64)) != 0
}

// readHeader reads the file header, the attributes and the feature
// sections of a perf.data file of the given size.
func readHeader(r io.ReaderAt, size int64, name string) (*fileInfo, error) {
	ferr := func(off int64, format string, args ...any) error {
		return &FormatError{File: name, Offset: off, What: fmt.Sprintf(format, args...)}
	}
	hb := make([]byte, fileHeaderSize)
	n, err := r.ReadAt(hb, 0)
	if n < pipeHeaderSize {
		if err == nil || err == io.EOF {
			return nil, ferr(-1, "not a perf.data file (%d bytes)", size)
		}
		return nil, err
	}
	switch {
	case bytes.Equal(hb[:8], magicBE):
		return nil, &UnsupportedError{File: name, Reason: "big-endian perf.data file"}
	case bytes.Equal(hb[:8], magicV1):
		return nil, &UnsupportedError{File: name, Reason: "perf.data version 1 (PERFFILE)"}
	case !bytes.Equal(hb[:8], magicLE):
		return nil, ferr(0, "not a perf.data file (no PERFILE2 magic)")
	}
	c := cursor{b: hb[:n]}
	c.skip(8)
	hsize := c.u64()
	if hsize == pipeHeaderSize {
		return nil, &UnsupportedError{File: name, Reason: "pipe-mode perf.data (perf record -o -)", Pipe: true}
	}
	if n < fileHeaderSize {
		return nil, ferr(-1, "file header truncated (%d bytes)", n)
	}
	if hsize != fileHeaderSize {
		return nil, ferr(8, "unexpected header size %d", hsize)
	}
	attrSize := c.u64()
	attrSec := section{c.u64(), c.u64()}
	dataSec := section{c.u64(), c.u64()}
	c.skip(16) // event_types
	fi := &fileInfo{data: dataSec, byID: map[uint64]int{}, buildIDs: map[string]buildID{}}
	for i := range fi.features {
		fi.features[i] = c.u64()
	}
	inFile := func(s section) bool {
		return s.off <= uint64(size) && s.size <= uint64(size)-s.off
	}
	if !inFile(attrSec) {
		return nil, ferr(24, "attribute section beyond the end of the file (%d bytes): the file was cut before its data", size)
	}
	if dataSec.off > uint64(size) {
		return nil, ferr(40, "data section at %#x, beyond the end of the file (%d bytes): the file was cut before its data", dataSec.off, size)
	}
	// A file perf record did not finish: read the data to the end of
	// the file; the feature sections, written after the data when perf
	// record ends, are not there.
	switch {
	case dataSec.size == 0:
		fi.damage = &Damage{Unfinished: true, DataInFile: size - int64(dataSec.off)}
	case !inFile(dataSec):
		fi.damage = &Damage{DataSize: int64(dataSec.size), DataInFile: size - int64(dataSec.off)}
	}
	if fi.damage != nil {
		fi.data.size = uint64(fi.damage.DataInFile)
	}
	// Each entry (attrSize bytes): the attr, then a section of u64 ids.
	if attrSize < 64+16 || attrSize > 4096 {
		return nil, ferr(16, "unexpected attribute size %d", attrSize)
	}
	entry := attrSize
	attrSize -= 16
	if attrSec.size%entry != 0 || attrSec.size/entry > maxAttrs || attrSec.size == 0 {
		return nil, ferr(int64(attrSec.off), "attribute section size %d is not a multiple of %d", attrSec.size, entry)
	}
	ab := make([]byte, attrSec.size)
	if _, err := r.ReadAt(ab, int64(attrSec.off)); err != nil {
		return nil, ferr(int64(attrSec.off), "reading attributes: %v", err)
	}
	idBytes := uint64(0) // ids read so far: at most the file's size
	for i := uint64(0); i < attrSec.size/entry; i++ {
		e := ab[i*entry : (i+1)*entry]
		a := parseAttr(e[:attrSize])
		ec := cursor{b: e[attrSize:]}
		ids := section{ec.u64(), ec.u64()}
		idBytes += ids.size
		if !inFile(ids) || ids.size%8 != 0 || idBytes > uint64(size) {
			return nil, ferr(int64(attrSec.off+i*entry+attrSize), "event ids beyond the end of the file")
		}
		idb := make([]byte, ids.size)
		if _, err := r.ReadAt(idb, int64(ids.off)); err != nil {
			return nil, ferr(int64(ids.off), "reading event ids: %v", err)
		}
		ic := cursor{b: idb}
		for ic.left() >= 8 {
			id := ic.u64()
			a.ids = append(a.ids, id)
			fi.byID[id] = int(i)
		}
		fi.attrs = append(fi.attrs, a)
	}

	// Feature sections follow the data section, one per bit set.
	nfeat := 0
	for _, w := range fi.features {
		nfeat += popcount(w)
	}
	featOff := dataSec.off + dataSec.size
	tb := make([]byte, 16*nfeat)
	if nfeat > 0 && (fi.damage != nil || !inFile(section{featOff, uint64(len(tb))})) {
		// Not written (killed), or cut off: every feature is lost.
		if fi.damage == nil {
			fi.damage = &Damage{DataSize: int64(dataSec.size), DataInFile: int64(dataSec.size)}
		}
		for bit := 1; bit < 256; bit++ {
			if fi.has(bit) {
				fi.damage.noteMissing(bit)
			}
		}
		nfeat = 0
	}
	if nfeat > 0 {
		if _, err := r.ReadAt(tb, int64(featOff)); err != nil {
			return nil, ferr(int64(featOff), "reading the feature table: %v", err)
		}
		tc := cursor{b: tb}
		featBytes := uint64(0) // feature bytes read so far: at most the file's size
		for bit := 1; bit < 256; bit++ {
			if !fi.has(bit) {
				continue
			}
			s := section{tc.u64(), tc.u64()}
			switch bit {
			case featTracingData, featBuildID, featHostname, featOSRelease, featVersion, featArch,
				featCmdline, featEventDesc, featSampleTime, featClockID, featClockData:
			default:
				continue
			}
			if !inFile(s) {
				// Cut in the feature sections: this one is lost.
				if fi.damage == nil {
					fi.damage = &Damage{DataSize: int64(dataSec.size), DataInFile: int64(dataSec.size)}
				}
				fi.damage.noteMissing(bit)
				continue
			}
			featBytes += s.size
			if featBytes > uint64(size) {
				return nil, ferr(int64(s.off), "feature sections larger than the file")
			}
			b := make([]byte, s.size)
			if _, err := r.ReadAt(b, int64(s.off)); err != nil {
				return nil, ferr(int64(s.off), "reading feature %d: %v", bit, err)
			}
			if err := fi.feature(bit, b); err != nil {
				return nil, ferr(int64(s.off), "feature %d: %v", bit, err)
			}
		}
	}
	return fi, nil
}

// feature reads one feature section.
func (fi *fileInfo) feature(bit int, b []byte) error {
	c := cursor{b: b}
	cp := &fi.capture
	switch bit {
	case featHostname:
		cp.Host = strings.TrimSpace(c.headerString())
	case featOSRelease:
		cp.OSRelease = strings.TrimSpace(c.headerString())
	case featVersion:
		cp.PerfVersion = strings.TrimSpace(c.headerString())
	case featArch:
		fi.arch = strings.TrimSpace(c.headerString())
	case featCmdline:
		nr := c.u32()
		var sb strings.Builder
		for i := uint32(0); i < nr && !c.bad; i++ {
			// perf prints each argument followed by a blank, with
			// single quotes escaped as \'.
			sb.WriteString(strings.ReplaceAll(c.headerString(), "'", `\'`))
			sb.WriteByte(' ')
		}
		cp.Cmdline = strings.TrimSpace(sb.String())
	case featEventDesc:
		nr := c.u32()
		asz := c.u32()
		for i := uint32(0); i < nr && !c.bad; i++ {
			ab := c.bytes(int(asz))
			nids := c.u32()
			evname := c.headerString()
			if !c.need(8 * int(nids)) {
				break
			}
			first := uint64(0)
			for k := uint32(0); k < nids; k++ {
				id := c.u64()
				if k == 0 {
					first = id
				}
			}
			// Match the description to an attribute by its first id,
			// else by position.
			idx := -1
			if nids > 0 {
				if j, ok := fi.byID[first]; ok {
					idx = j
				}
			}
			if idx < 0 && int(i) < len(fi.attrs) && ab != nil {
				idx = int(i)
			}
			if idx >= 0 {
				fi.attrs[idx].name = evname
			}
		}
	case featBuildID:
		readBuildIDs(b, fi.buildIDs)
	case featSampleTime:
		first, last := c.u64(), c.u64()
		if !c.bad {
			cp.First = usecString(first)
			cp.Last = usecString(last)
		}
	case featClockData:
		c.u32() // version
		clockID := c.u32()
		tod := c.u64()
		ref := c.u64()
		if c.bad {
			return errShort
		}
		cp.Clock = clockName(int64(clockID))
		sec, usec := int64(tod/1e9), int64(tod%1e9/1e3)
		cp.RefWall = time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05") + fmt.Sprintf(".%06dZ", usec)
		cp.RefPerf = fmt.Sprintf("%d.%09d", ref/1e9, ref%1e9)
	case featTracingData:
		td, err := parseTracingData(b)
		if err != nil {
			return err
		}
		fi.tracing = td
	}
	return nil
}

// readBuildIDs reads build_id_event records (the build-id table, or a
// HEADER_BUILD_ID record) into ids, and returns ids.
func readBuildIDs(b []byte, ids map[string]buildID) map[string]buildID {
	c := cursor{b: b}
	for c.left() >= 8 {
		start := c.off
		c.u32() // type
		misc := c.u16()
		size := int(c.u16())
		if size < 8+4+24 || size > c.left()+8 {
			return ids
		}
		rec := cursor{b: b[start+8 : start+size]}
		pid := int32(rec.u32())
		raw := rec.bytes(24)
		if raw == nil {
			return ids
		}
		n := 20
		if misc&(1<<15) != 0 { // PERF_RECORD_MISC_BUILD_ID_SIZE
			n = int(raw[20])
			if n > 20 {
				n = 20
			}
		}
		name := cString(rec.b[rec.off:])
		mode := misc & cpumodeMask
		// Host entries only (perf's pid -1 for the host machine).
		if name != "" && (pid == -1 || pid == 0) {
			ids[name] = buildID{pid: pid, kernel: mode == cpumodeKernel, id: append([]byte(nil), raw[:n]...)}
		}
		c.off = start + size
	}
	return ids
}

// finish fills what depends on several sections.
func (fi *fileInfo) finish() {
	if fi.damage != nil && fi.capture.Clock == "" {
		// The clock data is lost, but the clock id of perf record -k
		// is in the attributes.
		for i := range fi.attrs {
			if a := &fi.attrs[i]; a.flags&flagUseClockID != 0 {
				fi.capture.Clock = clockName(int64(a.clockID))
				break
			}
		}
	}
	for i := range fi.attrs {
		a := &fi.attrs[i]
		if a.typ == typeTracepoint && fi.tracing != nil {
			a.tp = fi.tracing.byID[a.config]
		}
		if a.name == "" {
			a.name = a.defaultName()
		}
		a.nameBytes = []byte(a.name)
		fi.capture.Events = append(fi.capture.Events, a.name)
	}
}

// usecString formats a perf timestamp as perf's header does: seconds and
// microseconds, truncated.
func usecString(ns uint64) string {
	return folded.Time(int64(ns / 1000 * 1000)).String()
}

// clockName is perf's name for a clock id (perf record -k).
func clockName(id int64) string {
	switch id {
	case 1:
		return "monotonic"
	case 4:
		return "monotonic_raw"
	case 0:
		return "realtime"
	case 7:
		return "boottime"
	case 11:
		return "tai"
	}
	return "(not found)"
}

// hexID formats a build-id as perf does.
func hexID(id []byte) string { return hex.EncodeToString(id) }

// ctime formats t as C's ctime(3) does, without the newline.
func ctime(t time.Time) string {
	return t.Format("Mon Jan _2 15:04:05 2006")
}
