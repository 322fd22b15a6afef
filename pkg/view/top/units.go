package top

import (
	"fmt"
	"math"
	"strings"
)

// Raw is the output unit that prints the counts as the input has them,
// without a unit (stacktop --unit raw).
const Raw = "raw"

// Minimum is the default output unit, as go tool pprof's -unit: the unit
// that suits the smallest value shown, scaled up when the total is over
// 100 times larger (see outputUnit).
const Minimum = "minimum"

// unit is a unit of a kind of quantity, by its factor to the kind's base
// unit, with the names that spell it, as pprof names them.
type unit struct {
	name    string   // as printed: "ms"
	aliases []string // as spelt in a profile or on the command line
	factor  float64
}

// unitKind is a kind of quantity, its units from the smallest, and the
// unit used when a value fits none.
type unitKind struct {
	units []unit
	base  int // the index of the default unit
}

// unitKinds are the quantities pprof scales: sizes and times.
var unitKinds = []unitKind{
	{units: []unit{
		{"B", []string{"b", "byte"}, 1},
		{"kB", []string{"kb", "kbyte", "kilobyte"}, 1 << 10},
		{"MB", []string{"mb", "mbyte", "megabyte"}, 1 << 20},
		{"GB", []string{"gb", "gbyte", "gigabyte"}, 1 << 30},
		{"TB", []string{"tb", "tbyte", "terabyte"}, 1 << 40},
		{"PB", []string{"pb", "pbyte", "petabyte"}, 1 << 50},
	}},
	{units: []unit{
		{"ns", []string{"ns", "nanosecond"}, 1},
		{"us", []string{"μs", "µs", "us", "microsecond"}, 1e3},
		{"ms", []string{"ms", "millisecond"}, 1e6},
		{"s", []string{"s", "sec", "second"}, 1e9},
		{"hrs", []string{"hour", "hr"}, 3600e9},
	}, base: 3},
}

// findUnit returns the kind and unit a name spells ("nanoseconds",
// "ms", "bytes"), as pprof reads it: any case, a trailing plural s.
func findUnit(name string) (*unitKind, *unit) {
	name = strings.ToLower(name)
	if len(name) > 2 {
		name = strings.TrimSuffix(name, "s")
	}
	for i := range unitKinds {
		k := &unitKinds[i]
		for j := range k.units {
			for _, a := range k.units[j].aliases {
				if a == name {
					return k, &k.units[j]
				}
			}
		}
	}
	return nil, nil
}

// scale returns v, in unit from, in unit to: a unit name, or Minimum
// (the largest unit in which v is 1 or more). Counts of no known kind
// ("count", "samples", "") are returned as they are, with no unit.
func scale(v float64, from, to string) (float64, string) {
	kind, f := findUnit(from)
	if kind == nil {
		if to == Minimum || to == Raw || to == "count" || to == "sample" || to == "unit" || to == "auto" {
			return v, ""
		}
		return v, to
	}
	base := v * f.factor
	if to == Minimum || to == "auto" {
		best := -1
		for i, u := range kind.units {
			if math.Abs(base)/u.factor >= 1 {
				best = i
			}
		}
		if best < 0 {
			best = kind.base
		}
		u := kind.units[best]
		return base / u.factor, u.name
	}
	if k, u := findUnit(to); k == kind {
		return base / u.factor, u.name
	}
	u := kind.units[kind.base]
	return base / u.factor, u.name
}

// outputUnit chooses the unit of a table whose values shown are vals
// (their smallest non-zero one sets it) and whose total is total, in
// unit from, as go tool pprof's -unit=minimum: the unit of the smallest
// value, or when the total is over 100 times larger and in a larger
// unit, the unit of 100 times the smallest value (so that it prints as
// 0.01 or more). Any other want is returned as it is.
func outputUnit(want, from string, vals []float64, total float64) string {
	if want != Minimum {
		return want
	}
	var low float64
	for _, v := range vals {
		if v = math.Abs(v); v > 0 && (low == 0 || v < low) {
			low = v
		}
	}
	if low == 0 {
		low = math.Abs(total)
	}
	_, lowUnit := scale(low, from, Minimum)
	_, highUnit := scale(math.Abs(total), from, Minimum)
	u := lowUnit
	if lowUnit != highUnit && low*100 < math.Abs(total) {
		_, u = scale(100*low, from, Minimum)
	}
	if u == "" {
		return Raw
	}
	return u
}

// label prints v (in unit from) in unit to, as pprof prints a value: two
// decimals without ".00", then the unit; 0 alone. To Raw, v is printed as
// the folded count it is.
func label(v float64, from, to string) string {
	if to == Raw || from == "" {
		return count(v)
	}
	s, u := scale(v, from, to)
	sv := strings.TrimSuffix(fmt.Sprintf("%.2f", s), ".00")
	if sv == "0" || sv == "-0" {
		return "0"
	}
	return sv + u
}
