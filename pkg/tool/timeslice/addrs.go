package timeslice

import (
	"fmt"
	"strconv"

	"github.com/alecthomas/kong"

	"flamekit/pkg/filter/window"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/tool"
)

// Addresses is --addresses: whether the pprof and OTLP outputs (and the
// pushes) keep the address of every frame, each location an address in a
// mapping of its process with the file's build-id, so that go tool pprof
// (its -addresses granularity, its symbolizer with PPROF_BINARY_PATH) or
// a server (Pyroscope, Parca, by build-id) can name frames itself.
// --addresses alone keeps flamekit's names too; --addresses=only leaves
// the names of the frames in files out, for the reader to symbolize.
type Addresses uint8

// The values of --addresses.
const (
	NoAddresses    Addresses = iota // frames are names (the default)
	AddressesNames                  // --addresses, --addresses=names
	AddressesOnly                   // --addresses=only
)

var addressesNames = [...]string{NoAddresses: "", AddressesNames: "names", AddressesOnly: "only"}

// String returns the value of --addresses= that gives a ("" for none).
func (a Addresses) String() string {
	if int(a) < len(addressesNames) {
		return addressesNames[a]
	}
	return "Addresses(" + strconv.Itoa(int(a)) + ")"
}

// Pprof returns the pprof Builder's setting of a.
func (a Addresses) Pprof() pprof.Addresses {
	switch a {
	case AddressesNames:
		return pprof.WithNames
	case AddressesOnly:
		return pprof.AddressesOnly
	}
	return pprof.NoAddresses
}

// Decode implements kong.MapperValue: --addresses alone means names,
// --addresses=only addresses without names.
func (a *Addresses) Decode(ctx *kong.DecodeContext) error {
	i, err := decodeOptional(ctx, addressesNames[:], int(AddressesNames),
		"want --addresses (addresses and names) or --addresses=only (addresses, named by the reader)")
	*a = Addresses(i)
	return err
}

// IsBool makes --addresses a flag that takes no separate value.
func (a *Addresses) IsBool() bool { return true }

// checkAddresses refuses --addresses without an output that keeps them,
// and inputs that have no addresses: folded text, perf script text and
// converted profiles hold names only, and a profile of them would
// silently be one of names.
func (c *run) checkAddresses(inputs window.Inputs) error {
	if c.Addresses == NoAddresses {
		return nil
	}
	if c.Push == "" && c.Format == OutputFolded {
		return tool.Usagef("--addresses goes with --format pprof/otlp or --push: folded stacks are names")
	}
	for _, in := range inputs {
		if !in.HasAddresses() {
			return fmt.Errorf("--addresses: %s holds no addresses (folded stacks, perf script text and profiles are names); give the perf.data file it was made from", in.Display)
		}
	}
	return nil
}

// noteAddresses says how many records had no addresses to keep (off-CPU
// intervals, samples perf script read for the reader).
func (c *run) noteAddresses(env *tool.Env, st pprof.Stats) {
	if c.Addresses != NoAddresses && st.NoAddresses > 0 {
		env.Warnf("--addresses: %d of %d samples had no addresses (off-CPU intervals, or a capture read through perf script): their frames are located by name", st.NoAddresses, st.Records)
	}
}
