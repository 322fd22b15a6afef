package capture

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/perf/symbols"
)

// The --inline capture (scripts/make-dwarfline-testdata): cwork built -O2
// with frame pointers, recorded at recordedBinary.
const (
	inlineDir      = "../../../testdata/inline"
	recordedBinary = "/tmp/flamekit-dwarfline/cwork-fp"
)

// inlineBinary writes the capture's binary to a build-id cache in a
// temporary directory (.build-id/xx/rest, as perf's cache holds it) and
// returns the cache and the binary's build-id.
func inlineBinary(t *testing.T) (cache, id string) {
	t.Helper()
	bin, err := golden.Read(filepath.Join(inlineDir, "cwork-fp.gz"))
	if err != nil {
		t.Fatal(err)
	}
	path, err := open(t, filepath.Join(inlineDir, "inline.data.gz")).Path()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := perfdata.BuildIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range ids {
		if b.File == recordedBinary {
			id = b.ID
		}
	}
	if id == "" {
		t.Fatalf("the capture has no build-id for %s", recordedBinary)
	}
	cache = t.TempDir()
	dir := filepath.Join(cache, ".build-id", id[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id[2:]), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return cache, id
}

// perlInline returns stackcollapse-perf.pl's output of the capture's text
// with --inline (and --context).
func perlInline(t *testing.T, context bool) string {
	t.Helper()
	name := "inline.perl.gz"
	if context {
		name = "context.perl.gz"
	}
	b, err := golden.Read(filepath.Join(inlineDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInlineTextAsPerl folds the capture's perf script text with --inline
// and --inline --context, the binary where the text names it, and
// checks the output is stackcollapse-perf.pl's, byte for byte: the
// inlined functions of cwork's -O2 code, with their files and lines.
// (The other objects' paths lead nowhere in the text, so that the
// result does not depend on this machine's libraries.)
func TestInlineTextAsPerl(t *testing.T) {
	cache, id := inlineBinary(t)
	bin := filepath.Join(cache, ".build-id", id[:2], id[2:])
	text, err := golden.Read(filepath.Join(inlineDir, "inline.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	text = []byte(strings.ReplaceAll(string(text), "("+recordedBinary+")", "("+bin+")"))
	for _, context := range []bool{false, true} {
		out, _, err := fold(t, collapse.Options{NoTime: true, Inline: true, Context: context}, nil,
			func(f *Folder) collapse.Input { return f.Text("text", "x", textInput(text)) })
		if err != nil {
			t.Fatal(err)
		}
		if want := perlInline(t, context); out != want {
			t.Errorf("--inline (context %v) differs from stackcollapse-perf.pl's:\n%s", context, golden.Diff([]byte(want), []byte(out)))
		}
		if !strings.Contains(out, ";main;now;work;leaf_hash;step;mix ") && !strings.Contains(out, "mix:cwork.c:") {
			t.Errorf("no inlined frame in --inline output:\n%s", out)
		}
	}
}

// cworkFrames sums the weights of folded output by the frames of cwork
// (those with a cwork.c line) of each stack.
func cworkFrames(out string) map[string]int64 {
	m := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.LastIndexByte(l, ' ')
		n, err := strconv.ParseInt(l[i+1:], 10, 64)
		if i < 0 || err != nil {
			continue
		}
		var keep []string
		for _, fr := range strings.Split(l[:i], ";") {
			if strings.Contains(fr, ":cwork.c:") {
				keep = append(keep, fr)
			}
		}
		m[strings.Join(keep, ";")] += n
	}
	return m
}

// TestInlineData folds the perf.data file of the same capture with
// --inline: the binary is found in the build-id cache by its recorded
// build-id, and the frames are those Perl gives the text. A file of
// another build-id is not read, and stderr says so.
func TestInlineData(t *testing.T) {
	cache, id := inlineBinary(t)
	resolver := symbols.NewResolver(symbols.Options{BuildIDDir: cache, DebugDir: cache, Kallsyms: filepath.Join(cache, "none"),
		KernelNotes: filepath.Join(cache, "none"), PerfMapDir: cache, Proc: filepath.Join(cache, "noproc")})
	// Only cwork-fp's frames are expanded, as in the text Perl read.
	onlyBinary := func(f *Folder) {
		f.Resolver = resolver
		f.InlineObject = func(dso string) (string, bool) {
			if dso != recordedBinary {
				return "", false
			}
			return f.inlineObject(dso)
		}
	}
	data := filepath.Join(inlineDir, "inline.data.gz")
	out, _, err := fold(t, collapse.Options{NoTime: true, Inline: true, Context: true}, onlyBinary,
		func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
	if err != nil {
		t.Fatal(err)
	}
	// This resolver knows no kernel nor library symbol, where the text
	// has perf's names: compare cwork's frames only (those with their
	// cwork.c line), the weights of equal stacks summed.
	got, want := cworkFrames(out), cworkFrames(perlInline(t, true))
	if len(want) < 5 || !maps.Equal(got, want) {
		t.Errorf("--inline --context of the perf.data file:\n%v\nPerl's, of its text:\n%v", got, want)
	}
	// Another binary under the recorded build-id: not read.
	other, err := golden.Read("../../perf/dwarfline/testdata/cwork.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, ".build-id", id[:2], id[2:]), other, 0o755); err != nil {
		t.Fatal(err)
	}
	resolver = symbols.NewResolver(symbols.Options{BuildIDDir: cache, DebugDir: cache, Kallsyms: filepath.Join(cache, "none"),
		KernelNotes: filepath.Join(cache, "none"), PerfMapDir: cache, Proc: filepath.Join(cache, "noproc")})
	out, msgs, err := fold(t, collapse.Options{NoTime: true, Inline: true}, onlyBinary,
		func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, ";mix") || !strings.Contains(msgs, "--inline: ") {
		t.Errorf("a binary of another build-id was read for --inline:\n%s\nmessages:\n%s", out, msgs)
	}
}
