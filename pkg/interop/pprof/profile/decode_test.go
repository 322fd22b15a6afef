package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gprofile "github.com/google/pprof/profile"

	"flamekit/internal/testkit/golden"
)

// realProfiles returns the uncompressed profile.proto files of the
// repository's test data: profiles Go's runtime/pprof wrote (CPU and
// heap).
func realProfiles(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	paths, _ := filepath.Glob("../testdata/go/*.pprof")
	paths = append(paths, "../../../source/testdata/cpu.pprof")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = golden.Gunzip(t, b)
	}
	if len(out) < 3 {
		t.Fatalf("found %d test profiles, want 3", len(out))
	}
	return out
}

// TestDecodeMatchesGoogle: real profiles decode to what google/pprof's
// profile package decodes, field by field.
func TestDecodeMatchesGoogle(t *testing.T) {
	for name, data := range realProfiles(t) {
		ours, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		theirs, err := gprofile.ParseUncompressed(data)
		if err != nil {
			t.Fatalf("%s: google/pprof: %v", name, err)
		}
		if len(ours.Sample) == 0 || len(ours.Location) == 0 {
			t.Fatalf("%s: %d samples, %d locations", name, len(ours.Sample), len(ours.Location))
		}
		if got, want := dump(ours), dumpGoogle(theirs); got != want {
			t.Errorf("%s: decoded differently:\n%s", name, firstDiff(got, want))
		}
	}
}

// TestDecodeErrors: faults of the encoding and breaches of the format's
// rules are errors that say which.
func TestDecodeErrors(t *testing.T) {
	var msg enc
	msg.bytes(FieldStringTable, nil)
	valid := msg.b
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "string_table[0] must be ''"},
		{"truncated varint", []byte{0x08}, "not a valid profile.proto: truncated"},
		{"truncated bytes", []byte{0x32, 0x05, 'a'}, "not a valid profile.proto: truncated"},
		{"group", []byte{0x0b}, "wire type 3"},
		{"first string not empty", (&enc{}).bytes(FieldStringTable, []byte("x")).b, "string_table[0] must be ''"},
		{"string index", append(slices.Clone(valid), (&enc{}).uint(FieldDefaultSampleType, 7).b...), "string index 7"},
		{"sample of unknown location", append(slices.Clone(valid), (&enc{}).msg(FieldSampleType, &enc{}).msg(FieldSample, (&enc{}).uint(1, 3).uint(2, 1)).b...), "location id 3, which no location has"},
		{"location id 0", append(slices.Clone(valid), (&enc{}).msg(FieldLocation, &enc{}).b...), "location with reserved ID=0"},
		{"duplicate function", append(slices.Clone(valid), (&enc{}).msg(FieldFunction, (&enc{}).uint(1, 4)).msg(FieldFunction, (&enc{}).uint(1, 4)).b...), "multiple functions with same id: 4"},
		{"line without function", append(slices.Clone(valid), (&enc{}).msg(FieldLocation, (&enc{}).uint(1, 1).msg(4, (&enc{}).uint(1, 9))).b...), "function id 9"},
		{"values and types", append(slices.Clone(valid), (&enc{}).msg(FieldSampleType, &enc{}).msg(FieldSample, (&enc{}).uint(2, 5).uint(2, 6)).b...), "2 values, the profile 1 sample types"},
		{"samples without types", append(slices.Clone(valid), (&enc{}).msg(FieldSample, &enc{}).b...), "samples without sample types"},
	}
	for _, tc := range tests {
		_, err := Decode(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
		if _, gerr := gprofile.ParseUncompressed(tc.data); gerr == nil && tc.name != "empty" {
			if g, _ := gprofile.ParseUncompressed(tc.data); g.CheckValid() == nil {
				t.Errorf("%s: google/pprof accepts what Decode refuses", tc.name)
			}
		}
	}
}

// TestDecodeLabels: string labels, number labels with and without units
// (units padded to the values, as google/pprof does), and a label with
// neither, which is dropped.
func TestDecodeLabels(t *testing.T) {
	var m enc
	for _, s := range []string{"", "pid", "thread", "worker", "bytes"} {
		m.bytes(FieldStringTable, []byte(s))
	}
	m.msg(FieldSampleType, &enc{})
	label := func(key, str, num, unit uint64) *enc {
		var l enc
		l.uint(1, key)
		if str != 0 {
			l.uint(2, str)
		}
		if num != 0 {
			l.uint(3, num)
		}
		if unit != 0 {
			l.uint(4, unit)
		}
		return &l
	}
	var s enc
	s.uint(2, 1).msg(3, label(1, 0, 42, 0)).msg(3, label(2, 3, 0, 0)).msg(3, label(1, 0, 7, 4)).msg(3, label(2, 0, 0, 0))
	m.msg(FieldSample, &s)
	p, err := Decode(m.b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gprofile.ParseUncompressed(m.b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(p), dumpGoogle(g); got != want {
		t.Errorf("labels decoded differently:\n%s", firstDiff(got, want))
	}
	want := "label thread=[worker] num pid=[42 7] units [ bytes]"
	if got := labels(p.Sample[0].Label, p.Sample[0].NumLabel, p.Sample[0].NumUnit); got != want {
		t.Errorf("labels %q, want %q", got, want)
	}
}

// FuzzDecode compares Decode with google/pprof's ParseUncompressed and
// CheckValid on any input: what one accepts the other accepts, decoded
// alike; Decode never panics.
func FuzzDecode(f *testing.F) {
	for _, data := range realProfiles(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := Decode(data)
		theirs, gerr := gprofile.ParseUncompressed(data)
		if gerr == nil {
			gerr = theirs.CheckValid()
		}
		switch {
		case err == nil && gerr == nil:
			if got, want := dump(ours), dumpGoogle(theirs); got != want {
				t.Fatalf("decoded differently:\n%s", firstDiff(got, want))
			}
		case err == nil:
			t.Fatalf("Decode accepts what google/pprof refuses: %v", gerr)
		case gerr == nil && !googleLenient(theirs):
			t.Fatalf("Decode refuses what google/pprof accepts: %v", err)
		}
	})
}

// googleLenient reports what google/pprof accepts and Decode refuses on
// purpose: nothing yet.
func googleLenient(*gprofile.Profile) bool { return false }

// enc builds protocol buffers messages for the tests.
type enc struct{ b []byte }

func (e *enc) key(num, typ int) { e.b = appendUvarint(e.b, uint64(num)<<3|uint64(typ)) }

func (e *enc) uint(num int, v uint64) *enc {
	e.key(num, wireVarint)
	e.b = appendUvarint(e.b, v)
	return e
}

func (e *enc) bytes(num int, b []byte) *enc {
	e.key(num, wireBytes)
	e.b = appendUvarint(e.b, uint64(len(b)))
	e.b = append(e.b, b...)
	return e
}

func (e *enc) msg(num int, m *enc) *enc { return e.bytes(num, m.b) }

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// dump prints every field of p, ids for references.
func dump(p *Profile) string {
	var b strings.Builder
	for _, st := range p.SampleType {
		fmt.Fprintf(&b, "type %s/%s\n", st.Type, st.Unit)
	}
	if p.PeriodType != nil {
		fmt.Fprintf(&b, "period %s/%s %d\n", p.PeriodType.Type, p.PeriodType.Unit, p.Period)
	}
	fmt.Fprintf(&b, "default %q drop %q keep %q time %d duration %d period %d doc %q\ncomments %q\n",
		p.DefaultSampleType, p.DropFrames, p.KeepFrames, p.TimeNanos, p.DurationNanos, p.Period, p.DocURL, p.Comments)
	for _, m := range p.Mapping {
		fmt.Fprintf(&b, "mapping %d %#x-%#x+%#x %q %q %v %v %v %v\n", m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
	}
	for _, f := range p.Function {
		fmt.Fprintf(&b, "function %d %q %q %q %d\n", f.ID, f.Name, f.SystemName, f.Filename, f.StartLine)
	}
	for _, l := range p.Location {
		var m uint64
		if l.Mapping != nil {
			m = l.Mapping.ID
		}
		fmt.Fprintf(&b, "location %d mapping %d %#x folded %v", l.ID, m, l.Address, l.IsFolded)
		for _, ln := range l.Line {
			fmt.Fprintf(&b, " [%d %d:%d]", ln.Function.ID, ln.Line, ln.Column)
		}
		b.WriteByte('\n')
	}
	for _, s := range p.Sample {
		b.WriteString("sample")
		for _, l := range s.Location {
			fmt.Fprintf(&b, " %d", l.ID)
		}
		fmt.Fprintf(&b, " values %v %s\n", s.Value, labels(s.Label, s.NumLabel, s.NumUnit))
	}
	return b.String()
}

// dumpGoogle is dump for google/pprof's profile.
func dumpGoogle(g *gprofile.Profile) string {
	p := &Profile{
		DefaultSampleType: g.DefaultSampleType, Comments: g.Comments, DropFrames: g.DropFrames, KeepFrames: g.KeepFrames,
		TimeNanos: g.TimeNanos, DurationNanos: g.DurationNanos, Period: g.Period, DocURL: g.DocURL,
	}
	for _, st := range g.SampleType {
		p.SampleType = append(p.SampleType, &ValueType{st.Type, st.Unit})
	}
	if g.PeriodType != nil {
		p.PeriodType = &ValueType{g.PeriodType.Type, g.PeriodType.Unit}
	}
	mappings := map[*gprofile.Mapping]*Mapping{}
	for _, m := range g.Mapping {
		mappings[m] = &Mapping{m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames}
		p.Mapping = append(p.Mapping, mappings[m])
	}
	functions := map[*gprofile.Function]*Function{}
	for _, f := range g.Function {
		functions[f] = &Function{f.ID, f.Name, f.SystemName, f.Filename, f.StartLine}
		p.Function = append(p.Function, functions[f])
	}
	locations := map[*gprofile.Location]*Location{}
	for _, l := range g.Location {
		loc := &Location{ID: l.ID, Mapping: mappings[l.Mapping], Address: l.Address, IsFolded: l.IsFolded}
		for _, ln := range l.Line {
			loc.Line = append(loc.Line, Line{functions[ln.Function], ln.Line, ln.Column})
		}
		locations[l] = loc
		p.Location = append(p.Location, loc)
	}
	for _, s := range g.Sample {
		ours := &Sample{Value: s.Value, Label: s.Label, NumLabel: s.NumLabel, NumUnit: s.NumUnit}
		for _, l := range s.Location {
			ours.Location = append(ours.Location, locations[l])
		}
		p.Sample = append(p.Sample, ours)
	}
	return dump(p)
}

// labels prints a sample's labels, keys sorted; nil and empty maps alike.
func labels(str map[string][]string, num map[string][]int64, units map[string][]string) string {
	var parts []string
	for _, k := range sortedKeys(str) {
		parts = append(parts, fmt.Sprintf("label %s=%v", k, str[k]))
	}
	for _, k := range sortedKeys(num) {
		s := fmt.Sprintf("num %s=%v", k, num[k])
		if u := units[k]; len(u) > 0 {
			s += fmt.Sprintf(" units %v", u)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n  Decode:      %s\n  google/pprof: %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, google/pprof %d", len(g), len(w))
}
