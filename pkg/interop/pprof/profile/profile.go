// Package profile decodes pprof's profile.proto into the messages of
// google/pprof's profile package, with the same names and shapes (the
// string table resolved, ids made pointers), without its methods, its
// legacy text formats, or the cost of its package initialisation (about
// 3 ms at every start of a flamekit tool). A program that wants those
// methods parses the same bytes with github.com/google/pprof/profile.
package profile

// Profile is a decoded profile.proto.
type Profile struct {
	SampleType        []*ValueType
	DefaultSampleType string
	Sample            []*Sample
	Mapping           []*Mapping
	Location          []*Location
	Function          []*Function
	Comments          []string
	DropFrames        string
	KeepFrames        string
	TimeNanos         int64
	DurationNanos     int64
	PeriodType        *ValueType
	Period            int64
	DocURL            string
}

// ValueType is a sample type or the period's type: "cpu"/"nanoseconds".
type ValueType struct {
	Type string
	Unit string
}

// Sample is a stack, leaf first, with one value per sample type and its
// labels.
type Sample struct {
	Location []*Location
	Value    []int64
	Label    map[string][]string
	NumLabel map[string][]int64
	NumUnit  map[string][]string
}

// Mapping is a file mapped into the profiled process.
type Mapping struct {
	ID              uint64
	Start           uint64
	Limit           uint64
	Offset          uint64
	File            string
	BuildID         string
	HasFunctions    bool
	HasFilenames    bool
	HasLineNumbers  bool
	HasInlineFrames bool
}

// Location is an address and the functions it is in, the innermost
// (inlined) first.
type Location struct {
	ID       uint64
	Mapping  *Mapping
	Address  uint64
	Line     []Line
	IsFolded bool
}

// Line is a function and a source line of a Location.
type Line struct {
	Function *Function
	Line     int64
	Column   int64
}

// Function is a function's names and source file.
type Function struct {
	ID         uint64
	Name       string
	SystemName string
	Filename   string
	StartLine  int64
}
