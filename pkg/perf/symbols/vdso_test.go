package symbols

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// vdsoImage is a vdso perf saved in its build-id cache on the
// development VM (kernel 6.18.44): __vdso_clock_gettime at 0xaf0, 902
// bytes.
const (
	vdsoImagePath = "../perfdata/testdata/vdso-b0af7178ba47aca58d16966d2c4d17c913589189.gz"
	vdsoImageID   = "b0af7178ba47aca58d16966d2c4d17c913589189"
)

// TestRunningVDSO checks that the vdso stands for "[vdso]" as perf's own
// does: for a capture without a build-id, or with the image's build-id
// when the build-id cache has no copy, and never for another build-id.
func TestRunningVDSO(t *testing.T) {
	data, err := golden.Read(vdsoImagePath)
	if err != nil {
		t.Fatal(err)
	}
	image := filepath.Join(t.TempDir(), "vdso")
	if err := os.WriteFile(image, data, 0o644); err != nil {
		t.Fatal(err)
	}
	other := "00112233445566778899aabbccddeeff00112233"
	for _, tc := range []struct {
		name, vdso, buildID string
		want                string // the symbol at 0xb46, "" for none
		missing             error
	}{
		{"no build-id", image, "", "__vdso_clock_gettime+0x56", nil},
		{"its build-id, not in the cache", image, vdsoImageID, "__vdso_clock_gettime+0x56", nil},
		{"another build-id", image, other, "", ErrBuildIDMismatch},
		{"no running vdso", noVDSO, "", "", os.ErrNotExist},
		{"unreadable image", filepath.Join(t.TempDir(), "none"), "", "", os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), KernelNotes: "/nonexistent", VDSO: tc.vdso})
			s, ok := r.DSO("[vdso]", tc.buildID, 0xb46)
			got := ""
			if ok {
				got = s.Name + "+0x" + hexString(s.Offset)
			}
			if got != tc.want {
				t.Errorf("[vdso] %q at 0xb46: %q, want %q", tc.buildID, got, tc.want)
			}
			m := r.Missing()
			switch {
			case tc.missing == nil && len(m) > 0:
				t.Errorf("Missing() = %v, want none", m)
			case tc.missing != nil && (len(m) != 1 || m[0].Path != "[vdso]"):
				t.Errorf("Missing() = %v, want [vdso]", m)
			case tc.missing != nil && !errors.Is(m[0].Err, tc.missing):
				t.Errorf("Missing() = %v, want %v", m, tc.missing)
			}
		})
	}
}

func hexString(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}

// TestOwnVDSO reads this process's vdso, as the default Options do.
func TestOwnVDSO(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil || !strings.Contains(string(maps), "[vdso]") {
		t.Skip("no /proc/self/maps with a [vdso] mapping here")
	}
	data, err := readOwnVDSO("/proc/self/maps", "/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := ELFTable("vdso", data)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for addr := uint64(0); addr < uint64(len(data)); addr += 16 {
		if s, ok := tb.Lookup(addr); ok && strings.HasPrefix(s.Name, "__vdso_") {
			found = true
			break
		}
	}
	if !found {
		t.Errorf("no __vdso_ symbol in this process's vdso (%d bytes)", len(data))
	}
	r := NewResolver(Options{BuildIDDir: t.TempDir()})
	if r.DSOTable("[vdso]", "") == nil {
		t.Errorf("no table for [vdso] without a build-id: %v", r.Missing())
	}
}

// TestOwnVDSOErrors checks the errors of a maps file without a vdso or
// with a bad line.
func TestOwnVDSOErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, maps, want string }{
		{"none", "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/dbus-daemon\n", "no [vdso] mapping"},
		{"bad range", "7fff-zz r-xp 00000000 00:00 0 [vdso]\n", "unexpected [vdso] line"},
		{"empty range", "7fff0000-7fff0000 r-xp 00000000 00:00 0 [vdso]\n", "unexpected [vdso] line"},
		{"not ELF", "0-10 r-xp 00000000 00:00 0 [vdso]\n", "not an ELF image"},
	} {
		maps := filepath.Join(dir, tc.name+".maps")
		mem := filepath.Join(dir, "mem")
		os.WriteFile(maps, []byte(tc.maps), 0o644)
		os.WriteFile(mem, make([]byte, 64), 0o644)
		_, err := readOwnVDSO(maps, mem)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := readOwnVDSO(filepath.Join(dir, "nonexistent"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no maps file: %v", err)
	}
}
