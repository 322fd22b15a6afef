package pprof

import (
	"bufio"
	"compress/gzip"
	"io"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof/profile"
)

// encoder writes a profile.proto message field by field, gzipped, as the
// fields come: protobuf allows a message's fields in any order, so the
// string table, which every field before it points into, is written last.
// String 0 is "", strings 1 to len(names) the frame names (so that
// Function and Location i are named by string i), then the others.
type encoder struct {
	zw     *gzip.Writer
	bw     *bufio.Writer
	names  []string
	strs   map[string]int
	others []string
	msg    []byte // the message being built
	sub    []byte // a message inside it
	head   []byte // a field's tag and length
	tsKey  int64  // string index of "timestamp_ns"
	tsUnit int64  // and of "nanoseconds"
	// whereKeys are the string indexes of the labels "cpu", "pid" and
	// "tid".
	whereKeys [3]int64
	idUnit    int64 // string index of "id", their unit
	err       error
}

func newEncoder(w io.Writer, names []string) *encoder {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // as runtime/pprof writes profiles
	e := &encoder{zw: zw, bw: bufio.NewWriterSize(zw, 32<<10), names: names, strs: map[string]int{}}
	e.tsKey, e.tsUnit = int64(e.str(LabelTimestamp)), int64(e.str("nanoseconds"))
	e.idUnit = int64(e.str("id"))
	for i, k := range [...]string{LabelCPU, LabelPID, LabelTID} {
		e.whereKeys[i] = int64(e.str(k))
	}
	return e
}

// str returns the string table index of s.
func (e *encoder) str(s string) int {
	if s == "" {
		return 0
	}
	if i, ok := e.strs[s]; ok {
		return i
	}
	i := 1 + len(e.names) + len(e.others)
	e.others = append(e.others, s)
	e.strs[s] = i
	return i
}

// field writes a length-delimited field holding b.
func (e *encoder) field(num int, b []byte) {
	h := appendVarint(e.head[:0], uint64(num)<<3|2)
	e.head = appendVarint(h, uint64(len(b)))
	e.write(e.head)
	e.write(b)
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.bw.Write(b)
	}
}

// int writes an integer field.
func (e *encoder) int(num int, v int64) {
	e.head = appendIntField(e.head[:0], num, v)
	e.write(e.head)
}

// valueType writes a ValueType field.
func (e *encoder) valueType(num int, w Weight) {
	m := appendIntField(nil, 1, int64(e.str(w.Type)))
	m = appendIntField(m, 2, int64(e.str(w.Unit)))
	e.field(num, m)
}

// sample writes a Sample: its location IDs (packed varints), values and,
// when timed, its timestamp_ns label.
func (e *encoder) sample(locs []byte, vals []int64, ts int64, timed bool, w where) {
	m := appendBytesField(e.msg[:0], 1, locs)
	e.sub = e.sub[:0]
	for _, v := range vals {
		e.sub = appendVarint(e.sub, uint64(v))
	}
	m = appendBytesField(m, 2, e.sub)
	if timed {
		l := appendIntField(e.sub[:0], 1, e.tsKey)
		l = appendIntField(l, 3, ts)
		l = appendIntField(l, 4, e.tsUnit)
		e.sub = l
		m = appendBytesField(m, 3, l)
	}
	for i, f := range [...]struct {
		has folded.Has
		v   int32
	}{{folded.HasCPU, w.cpu}, {folded.HasPID, w.pid}, {folded.HasTID, w.tid}} {
		if w.has&f.has != 0 {
			// With a unit: pprof drops a numeric label whose value is
			// 0 (CPU 0, the idle thread 0) unless it has one.
			l := appendIntField(e.sub[:0], 1, e.whereKeys[i])
			l = appendIntField(l, 3, int64(f.v))
			l = appendIntField(l, 4, e.idUnit)
			e.sub = l
			m = appendBytesField(m, 3, l)
		}
	}
	e.msg = m
	e.field(profile.FieldSample, m)
}

// mapping writes Mapping id: its file and build-id.
func (e *encoder) mapping(id uint64, mp Mapping) {
	m := appendIntField(e.msg[:0], 1, int64(id))
	m = appendIntField(m, 2, int64(mp.Start))
	m = appendIntField(m, 3, int64(mp.Limit))
	m = appendIntField(m, 4, int64(mp.Offset))
	m = appendIntField(m, 5, int64(e.str(mp.File)))
	m = appendIntField(m, 6, int64(e.str(mp.BuildID)))
	if mp.HasFunctions {
		m = appendIntField(m, 7, 1)
	}
	e.msg = m
	e.field(profile.FieldMapping, m)
}

// location writes Location id, one line in Function id.
func (e *encoder) location(id uint64) {
	line := appendIntField(e.sub[:0], 1, int64(id))
	m := appendIntField(e.msg[:0], 1, int64(id))
	m = appendBytesField(m, 4, line)
	e.msg, e.sub = m, line
	e.field(profile.FieldLocation, m)
}

// addrLocation writes Location id of a profile with addresses: its
// mapping, address and lines.
func (e *encoder) addrLocation(id uint64, loc *Location) {
	m := appendIntField(e.msg[:0], 1, int64(id))
	if loc.Mapping != 0 {
		m = appendIntField(m, 2, int64(loc.Mapping))
	}
	if loc.Address != 0 {
		m = appendIntField(m, 3, int64(loc.Address))
	}
	for _, f := range loc.Funcs {
		e.sub = appendIntField(e.sub[:0], 1, int64(f)+1)
		m = appendBytesField(m, 4, e.sub)
	}
	e.msg = m
	e.field(profile.FieldLocation, m)
}

// function writes Function id, named by string id. It has no
// system_name: a frame name is already what perf printed, and pprof would
// take it for a mangled name to simplify ("geo::sum_all<…>" shown as
// "geo::sum_all").
func (e *encoder) function(id uint64) {
	m := appendIntField(e.msg[:0], 1, int64(id))
	m = appendIntField(m, 2, int64(id))
	e.msg = m
	e.field(profile.FieldFunction, m)
}

// close writes the string table and ends the gzip stream.
func (e *encoder) close() error {
	e.field(profile.FieldStringTable, nil)
	for _, s := range e.names {
		e.field(profile.FieldStringTable, []byte(s))
	}
	for _, s := range e.others {
		e.field(profile.FieldStringTable, []byte(s))
	}
	if e.err == nil {
		e.err = e.bw.Flush()
	}
	if err := e.zw.Close(); e.err == nil {
		e.err = err
	}
	return e.err
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendIntField(b []byte, num int, v int64) []byte {
	b = appendVarint(b, uint64(num)<<3)
	return appendVarint(b, uint64(v))
}

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = appendVarint(b, uint64(num)<<3|2)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// compareRecords orders records by key, stack, then arrival.
func compareRecords(a, b *record) int {
	switch {
	case a.t != b.t:
		if a.t < b.t {
			return -1
		}
		return 1
	case a.stack != b.stack:
		if a.stack < b.stack {
			return -1
		}
		return 1
	case a.seq != b.seq:
		if a.seq < b.seq {
			return -1
		}
		return 1
	}
	return 0
}

func sortRecords(c []record) {
	less := func(a, b record) int { return compareRecords(&a, &b) }
	if !slices.IsSortedFunc(c, less) {
		slices.SortFunc(c, less)
	}
}

// sortGroups orders the groups of one key by arrival.
func sortGroups(g []group) {
	slices.SortFunc(g, func(a, b group) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
}

// mergeChunks calls fn for every record of the sorted chunks, in order.
func mergeChunks(chunks [][]record, fn func(*record)) {
	// A binary min-heap of the chunks not yet exhausted, by their head.
	type cursor struct {
		c []record
		i int
	}
	h := make([]cursor, 0, len(chunks))
	for _, c := range chunks {
		if len(c) > 0 {
			h = append(h, cursor{c: c})
		}
	}
	less := func(a, b int) bool { return compareRecords(&h[a].c[h[a].i], &h[b].c[h[b].i]) < 0 }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && less(l, m) {
				m = l
			}
			if r := l + 1; r < len(h) && less(r, m) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		top := &h[0]
		fn(&top.c[top.i])
		top.i++
		if top.i == len(top.c) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
}
