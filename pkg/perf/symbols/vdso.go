package symbols

import (
	"bufio"
	"bytes"
	"flamekit/internal/base/safefile"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// The running machine's vdso. perf 6.1 gives the "[vdso]" DSO of a
// capture the vdso of its own process as file (tools/perf/util/vdso.c:
// the "[vdso]" line of /proc/self/maps, copied to /tmp/perf-vdso.so-XXXXXX)
// and loads symbols from it as from any file: after the build-id cache,
// and, when the capture recorded a build-id, only if the copy has that
// build-id. A capture without build-ids (perf record -B, -z before perf
// 6.3, --switch-output) thus gets the running vdso's names, which are
// right when it was recorded on this kernel.

// vdsoImage is the vdso image used for "[vdso]" when the build-id cache
// has none: Options.VDSO's file, else this process's own vdso.
type vdsoImage struct {
	name string // as messages name it
	data []byte
	err  error // why there is none
}

// noVDSO is the Options.VDSO value that uses no running vdso.
const noVDSO = "-"

// runningVDSO returns the image, read once.
func (r *Resolver) runningVDSO() *vdsoImage {
	r.vdsoOnce.Do(func() {
		img := &vdsoImage{}
		switch r.opts.VDSO {
		case noVDSO:
			img.err = fmt.Errorf("no running vdso (Options.VDSO is %q): %w", noVDSO, fs.ErrNotExist)
		case "":
			img.name = "this machine's vdso"
			img.data, img.err = readOwnVDSO("/proc/self/maps", "/proc/self/mem")
		default:
			img.name = r.opts.VDSO
			img.data, img.err = safefile.ReadFile(r.opts.VDSO, ruleVDSO)
		}
		r.vdso = img
	})
	return r.vdso
}

// readOwnVDSO reads the "[vdso]" mapping of this process: its range from
// maps, its bytes from mem.
func readOwnVDSO(maps, mem string) ([]byte, error) {
	f, err := os.Open(maps)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) < 6 || fields[5] != "[vdso]" {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start || end-start > 1<<24 {
			return nil, fmt.Errorf("%s: unexpected [vdso] line %q", maps, line)
		}
		m, err := os.Open(mem)
		if err != nil {
			return nil, err
		}
		defer m.Close()
		data := make([]byte, end-start)
		if _, err := m.ReadAt(data, int64(start)); err != nil {
			return nil, fmt.Errorf("%s: reading the vdso: %w", mem, err)
		}
		if !bytes.HasPrefix(data, []byte("\x7fELF")) {
			return nil, fmt.Errorf("%s: the vdso at %#x is not an ELF image", mem, start)
		}
		return data, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: this process has no [vdso] mapping", maps)
}

// vdsoELF opens the running vdso image as the symbol file of "[vdso]"
// with the recorded buildID ("" for none). When its build-id differs,
// other says which it has ("NAME has ID"); err says why there is none.
func (r *Resolver) vdsoELF(buildID string) (ef *elfFile, other string, err error) {
	img := r.runningVDSO()
	if img.err != nil {
		return nil, "", img.err
	}
	ef, err = newELF(img.name, bytes.NewReader(img.data))
	if err != nil {
		return nil, "", err
	}
	ef.size = int64(len(img.data))
	if got := ef.buildID(); buildID != "" && got != buildID {
		return nil, img.name + " has " + orNone(got), nil
	}
	return ef, "", nil
}
