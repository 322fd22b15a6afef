package main

import (
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	gprofile "github.com/google/pprof/profile"
	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/internal/testkit/gotool"
	"flamekit/pkg/interop/otlp"
)

// The container capture of pkg/perf/symbols (scripts/capture-container):
// a C program, ct, committed with its binary, recorded at
// /opt/flamekit-ct/ct (a path that does not exist here).
const (
	ctCapture = "../../pkg/perf/symbols/testdata/container/ct.data.gz"
	ctBinary  = "../../pkg/perf/symbols/testdata/container/ct.bin"
	ctPath    = "/opt/flamekit-ct/ct"
	ctBuildID = "ceca6b28e28b95f36f50b95a7a9786d26a924ce2"
	libcPath  = "/usr/lib/x86_64-linux-gnu/libc.so.6"
)

// ctHome makes a home whose perf build-id cache holds ct, so that
// flamekit names its frames (as perf script did after the process had
// ended), and makes it $HOME for the test; the runs must say
// --no-debuginfod, which gives them a resolver of their own. The go
// command keeps its caches and settings (go tool pprof would otherwise
// be built again in an empty cache).
func ctHome(t *testing.T) {
	t.Helper()
	keep := []string{"GOCACHE", "GOPATH", "GOMODCACHE", "GOENV"}
	if out, err := exec.Command("go", append([]string{"env"}, keep...)...).Output(); err == nil {
		for i, v := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if i < len(keep) && v != "" {
				t.Setenv(keep[i], v)
			}
		}
	}
	bin, err := os.ReadFile(ctBinary)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	link := filepath.Join(home, ".debug", ".build-id", ctBuildID[:2], ctBuildID[2:])
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(link, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
}

// runFile runs timeslice and writes its standard output to dir/name.
func runFile(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	code, out, stderr := run(t, "", args...)
	if code != 0 {
		t.Fatalf("timeslice %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readProfile(t *testing.T, path string) *gprofile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := gprofile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// topRe reads a line of go tool pprof -top: flat, flat%, sum%, cum,
// cum%, name.
var topRe = regexp.MustCompile(`^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$`)

// pprofTop runs go tool pprof -top on args and returns "flat cum" per
// function, and the "Total samples" line.
func pprofTop(t *testing.T, args ...string) (map[string]string, string) {
	t.Helper()
	out := string(gotool.Pprof(t, append([]string{"-top", "-nodecount=200", "-nodefraction=0", "-unit=ns"}, args...)...))
	rows := map[string]string{}
	total := ""
	started := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Duration:"):
			total = line
		case strings.Contains(line, "flat%"):
			started = true
		case started:
			if m := topRe.FindStringSubmatch(line); m != nil {
				rows[m[3]] = m[1] + " " + m[2]
			}
		}
	}
	if len(rows) == 0 || total == "" {
		t.Fatalf("no rows in go tool pprof -top:\n%s", out)
	}
	return rows, total
}

// TestAddressesParity: --addresses=only leaves the frames of ct and libc
// as addresses in their mappings, for go tool pprof to name with the
// binary at hand (`go tool pprof BINARY PROFILE`); its function totals
// are those of flamekit's own symbols, function by function. libc's
// addresses stay unnamed: go tool pprof reads Go line tables and DWARF,
// and this machine's libc has neither (perf and flamekit name them from
// its symbol table), so libc's functions are compared as one "[libc.so.6]".
// --addresses keeps flamekit's names: go tool pprof -top is the named
// profile's exactly.
func TestAddressesParity(t *testing.T) {
	ctHome(t)
	dir := t.TempDir()
	named := runFile(t, dir, "named.pb.gz", "--no-debuginfod", "--format", "pprof", ctCapture)
	withNames := runFile(t, dir, "names.pb.gz", "--no-debuginfod", "--format", "pprof", "--addresses", ctCapture)
	only := runFile(t, dir, "only.pb.gz", "--no-debuginfod", "--format", "pprof", "--addresses=only", ctCapture)

	// The profiles' locations and mappings, as perf_data_converter
	// writes them.
	pn := readProfile(t, withNames)
	if len(pn.Mapping) == 0 || pn.Mapping[0].File != ctPath || pn.Mapping[0].BuildID != ctBuildID {
		t.Fatalf("first mapping %+v, want the program %s with build-id %s", pn.Mapping[0], ctPath, ctBuildID)
	}
	libcFuncs := map[string]bool{}
	userLocs := 0
	for _, l := range pn.Location {
		m := l.Mapping
		if m == nil {
			if len(l.Line) != 1 || l.Address != 0 {
				t.Errorf("location %d without a mapping: %+v (want the process's root frame, named)", l.ID, l)
			}
			continue
		}
		if l.Address < m.Start || l.Address >= m.Limit {
			t.Errorf("location %d: address %#x outside its mapping %s %#x-%#x", l.ID, l.Address, m.File, m.Start, m.Limit)
		}
		if len(l.Line) == 0 || !m.HasFunctions {
			t.Errorf("--addresses: location %#x in %s has no name", l.Address, m.File)
		}
		switch m.File {
		case ctPath:
			userLocs++
		case libcPath:
			for _, ln := range l.Line {
				libcFuncs[ln.Function.Name] = true
			}
		}
	}
	if userLocs < 5 {
		t.Fatalf("%d locations in %s, want its sampled addresses", userLocs, ctPath)
	}
	po := readProfile(t, only)
	for _, l := range po.Location {
		if l.Mapping == nil {
			continue
		}
		user := l.Mapping.File == ctPath || l.Mapping.File == libcPath
		switch {
		case user && (len(l.Line) > 0 || l.Mapping.HasFunctions):
			t.Errorf("--addresses=only: %s %#x is named %v", l.Mapping.File, l.Address, l.Line)
		case !user && len(l.Line) == 0:
			t.Errorf("--addresses=only: %s %#x lost its name (nothing could name it later)", l.Mapping.File, l.Address)
		}
	}
	if len(po.Location) != len(pn.Location) || len(po.Sample) != len(pn.Sample) {
		t.Errorf("--addresses=only: %d locations, %d samples; --addresses: %d, %d", len(po.Location), len(po.Sample), len(pn.Location), len(pn.Sample))
	}

	want, wantTotal := pprofTop(t, named)
	gotNames, total := pprofTop(t, withNames)
	if total != wantTotal || !maps.Equal(gotNames, want) {
		t.Errorf("go tool pprof -top of --addresses:\n%v %v\nof the named profile:\n%v %v", total, gotNames, wantTotal, want)
	}
	got, total := pprofTop(t, ctBinary, only)
	if total != wantTotal {
		t.Errorf("go tool pprof BINARY --addresses=only: %q, the named profile %q", total, wantTotal)
	}
	for _, f := range []string{"ct_leaf", "ct_outer", "main"} {
		if got[f] == "" || got[f] != want[f] {
			t.Errorf("%s: go tool pprof named it %q, flamekit %q", f, got[f], want[f])
		}
	}
	for name := range want {
		if libcFuncs[name] {
			continue
		}
		if got[name] != want[name] {
			t.Errorf("%s: flat cum %q from go tool pprof's symbols, %q from flamekit's", name, got[name], want[name])
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && name != "[libc.so.6]" {
			t.Errorf("%s: go tool pprof names a function flamekit does not (%s)", name, got[name])
		}
	}
	if len(libcFuncs) == 0 || got["[libc.so.6]"] == "" {
		t.Errorf("libc: flamekit's functions %v, go tool pprof's %q", slices.Sorted(maps.Keys(libcFuncs)), got["[libc.so.6]"])
	}
	t.Logf("%d functions compared; libc's %v are [libc.so.6] %s for go tool pprof", len(want)-len(libcFuncs), slices.Sorted(maps.Keys(libcFuncs)), got["[libc.so.6]"])
}

// TestAddressesOTLP decodes --format otlp --addresses=only with the
// official proto package: every location with a mapping has its address
// inside it, ct's mapping its file and build-id, the frames of files no
// names, the others theirs.
func TestAddressesOTLP(t *testing.T) {
	ctHome(t)
	// OTLP needs the wall clock: a plain file is dated (captured on).
	data := gunzipTo(t, ctCapture, filepath.Join(t.TempDir(), "ct.data"))
	code, out, stderr := run(t, "", "--no-debuginfod", "--format", "otlp", "--addresses=only", data)
	if code != 0 {
		t.Fatal(stderr)
	}
	var req collectorpb.ExportProfilesServiceRequest
	if err := proto.Unmarshal([]byte(out), &req); err != nil {
		t.Fatal(err)
	}
	d := req.GetDictionary()
	strs := d.GetStringTable()
	buildID := func(m interface{ GetAttributeIndices() []int32 }) string {
		for _, ai := range m.GetAttributeIndices() {
			a := d.GetAttributeTable()[ai]
			if strs[a.GetKeyStrindex()] == otlp.AttrBuildID {
				return a.GetValue().GetStringValue()
			}
		}
		return ""
	}
	ctLocs := 0
	for i, l := range d.GetLocationTable()[1:] {
		if l.GetMappingIndex() == 0 {
			if len(l.GetLines()) != 1 {
				t.Errorf("location %d without a mapping has lines %v (want the root frame, named)", i+1, l.GetLines())
			}
			continue
		}
		m := d.GetMappingTable()[l.GetMappingIndex()]
		file := strs[m.GetFilenameStrindex()]
		if l.GetAddress() < m.GetMemoryStart() || l.GetAddress() >= m.GetMemoryLimit() {
			t.Errorf("location %d: address %#x outside %s %#x-%#x", i+1, l.GetAddress(), file, m.GetMemoryStart(), m.GetMemoryLimit())
		}
		user := file == ctPath || file == libcPath
		if user != (len(l.GetLines()) == 0) {
			t.Errorf("location %d in %s: lines %v", i+1, file, l.GetLines())
		}
		if file == ctPath {
			ctLocs++
			if id := buildID(m); id != ctBuildID {
				t.Errorf("%s: build-id %q, want %s", file, id, ctBuildID)
			}
		}
		if file == "[kernel.kallsyms]" && buildID(m) == "" {
			t.Errorf("the kernel's mapping has no build-id")
		}
	}
	if ctLocs < 5 {
		t.Errorf("%d locations in %s", ctLocs, ctPath)
	}
	// Every sample's stack is the process's root frame, then addresses.
	for _, rp := range req.GetResourceProfiles() {
		for _, sp := range rp.GetScopeProfiles() {
			for _, p := range sp.GetProfiles() {
				for _, s := range p.GetSamples() {
					locs := d.GetStackTable()[s.GetStackIndex()].GetLocationIndices()
					root := d.GetLocationTable()[locs[len(locs)-1]]
					if root.GetMappingIndex() != 0 || strs[d.GetFunctionTable()[root.GetLines()[0].GetFunctionIndex()].GetNameStrindex()] != "ct" {
						t.Fatalf("a stack's root is not the comm: %v", root)
					}
				}
			}
		}
	}
}

// TestAddressesRefused: folded text has no addresses: --addresses says so
// rather than writing a profile of names.
func TestAddressesRefused(t *testing.T) {
	code, _, stderr := run(t, "", "--format", "pprof", "--addresses", "../../pkg/filter/window/testdata/burst.folded.gz")
	if code != 1 || !strings.Contains(stderr, "holds no addresses") {
		t.Errorf("folded input: exit %d, %s", code, stderr)
	}
	code, _, stderr = run(t, "", "--addresses", ctCapture)
	if code != 2 || !strings.Contains(stderr, "--addresses goes with") {
		t.Errorf("folded output: exit %d, %s", code, stderr)
	}
}

// TestPushAddresses: the pushed pprof profiles name the capture's files
// with their build-ids, and with --addresses=only carry the addresses of
// the program's frames in its mapping, unnamed, for Pyroscope to
// symbolize.
func TestPushAddresses(t *testing.T) {
	ctHome(t)
	data := gunzipTo(t, ctCapture, filepath.Join(t.TempDir(), "ct.data")) // dated: the push needs the wall clock
	for _, only := range []bool{false, true} {
		srv := &pushServer{status: 200}
		hs := httptest.NewServer(srv)
		args := []string{"--no-debuginfod", "--push", hs.URL, "--service", "ct", data}
		if only {
			args = append([]string{"--addresses=only"}, args...)
		}
		code, _, stderr := run(t, "", args...)
		hs.Close()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		bodies, _ := srv.received()
		addrs := 0
		for _, b := range bodies {
			p, err := gprofile.ParseData(b)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, m := range p.Mapping {
				if m.File == ctPath && m.BuildID == ctBuildID {
					found = true
				}
			}
			if !found {
				t.Errorf("a pushed profile without %s %s: %v", ctPath, ctBuildID, p.Mapping)
			}
			for _, l := range p.Location {
				if l.Mapping != nil && l.Mapping.File == ctPath {
					addrs++
					if len(l.Line) > 0 || l.Address < l.Mapping.Start || l.Address >= l.Mapping.Limit {
						t.Errorf("pushed location %#x in %s %#x-%#x, lines %v", l.Address, ctPath, l.Mapping.Start, l.Mapping.Limit, l.Line)
					}
				}
			}
		}
		if len(bodies) < 2 || only != (addrs > 0) {
			t.Errorf("--addresses=only %v: %d pushes, %d locations in %s", only, len(bodies), addrs, ctPath)
		}
	}
}
