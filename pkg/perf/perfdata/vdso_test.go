package perfdata

import (
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	collapsepkg "flamekit/pkg/fold/collapse"
)

// TestVDSOWithoutBuildID folds the captures that recorded no build-id
// (perf record -B, and one window of perf record --switch-output) with
// only the committed image of the running machine's vdso as symbols (no
// kernel, no binaries: the output does not depend on this machine), and
// compares with golden files: the vdso frames are named, as perf script
// names them (__vdso_clock_gettime, __vdso_gettimeofday), where they were
// [[vdso]] before.
func TestVDSOWithoutBuildID(t *testing.T) {
	for _, name := range []string{"nobuildid", "switch"} {
		t.Run(name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := extract(t, name, script)
			sy := byBuildID{Resolver: committedResolver(t), kernelFromText: true}
			got := readOurs(t, path, Options{Symbolizer: sy, AllowForeign: true}, nil, false)
			folded := collapse(t, got.text, collapsepkg.Options{NoTime: true})
			if !strings.Contains(folded, ";__vdso_") || strings.Contains(folded, "[[vdso]]") {
				t.Errorf("vdso frames not named:\n%.2000s", folded)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".folded"), []byte(folded))
		})
	}
}
