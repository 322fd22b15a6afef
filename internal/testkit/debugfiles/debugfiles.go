// Package debugfiles makes, for tests, what a production host has: a C
// program built with gcc -g, its debug file split off with objcopy
// --only-keep-debug, the program stripped; and a real debuginfod server
// (elfutils) serving a directory of such files on 127.0.0.1.
//
// Each helper skips its test with the reason when gcc, objcopy, strip or
// debuginfod is missing.
package debugfiles

import (
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Program is a built C program and its parts.
type Program struct {
	// Full is the program as built, with its symbols.
	Full string
	// Debug is the debug file (objcopy --only-keep-debug).
	Debug string
	// Stripped is the program without symbols (strip --strip-all).
	Stripped string
	// BuildID is the program's build-id, in hex.
	BuildID string
}

// Source is the C program Build compiles: functions with distinct
// names that a profile would show.
const Source = `
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static long flamekit_leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }
__attribute__((noinline)) long flamekit_middle(long n) { return flamekit_leaf(n) + flamekit_leaf(n / 2); }
__attribute__((noinline)) long flamekit_outer(long n) { return flamekit_middle(n) ^ 7; }
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long r = 0;
	for (long i = 0; i < (argc > 2 ? atol(argv[2]) : 1); i++) r += flamekit_outer(n);
	printf("%ld\n", r);
	return 0;
}
`

// Build compiles Source (with extra appended, to get another build-id)
// in dir.
func Build(t testing.TB, dir, name, extra string) Program {
	t.Helper()
	for _, tool := range []string{"gcc", "objcopy", "strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: %s not installed (apt-get install gcc binutils)", tool)
		}
	}
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(Source+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Program{
		Full:     filepath.Join(dir, name+".full"),
		Debug:    filepath.Join(dir, name+".debug"),
		Stripped: filepath.Join(dir, name),
	}
	run(t, "gcc", "-g", "-O1", "-fno-omit-frame-pointer", "-Wl,--build-id", "-o", p.Full, src)
	run(t, "objcopy", "--only-keep-debug", p.Full, p.Debug)
	run(t, "strip", "--strip-all", "-o", p.Stripped, p.Full)
	id, err := BuildID(p.Full)
	if err != nil || id == "" {
		t.Fatalf("build-id of %s: %q %v", p.Full, id, err)
	}
	p.BuildID = id
	return p
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// BuildID reads the GNU build-id note of an ELF file with debug/elf,
// independently of the code under test.
func BuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return "", err
		}
		for len(data) >= 12 {
			nsz, dsz, typ := f.ByteOrder.Uint32(data), f.ByteOrder.Uint32(data[4:]), f.ByteOrder.Uint32(data[8:])
			off := 12 + (int(nsz)+3)&^3
			end := off + (int(dsz)+3)&^3
			if end > len(data) || off+int(dsz) > len(data) {
				break
			}
			if typ == 3 && nsz == 4 && string(data[12:15]) == "GNU" {
				return hex.EncodeToString(data[off : off+int(dsz)]), nil
			}
			data = data[end:]
		}
	}
	return "", errors.New("no build-id note")
}

// Server starts `debuginfod -F dir` on a free port of 127.0.0.1 and
// returns its URL once it serves every build-id in wait. It is stopped
// when the test ends.
func Server(t testing.TB, dir string, wait ...string) string {
	t.Helper()
	bin, err := exec.LookPath("debuginfod")
	if err != nil {
		t.Skip("skipped: debuginfod not installed (apt-get install debuginfod)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	db := filepath.Join(t.TempDir(), "debuginfod.sqlite")
	log, err := os.Create(filepath.Join(t.TempDir(), "debuginfod.log"))
	if err != nil {
		t.Fatal(err)
	}
	// -F: scan dir for ELF/DWARF files; -t0: no rescans after the first;
	// -g0: no grooming.
	cmd := exec.Command(bin, "-p", strconv.Itoa(port), "-d", db, "-F", "-t0", "-g0", dir)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Wait for the scan: not a timing assumption, a readiness poll with
	// a generous bound for a loaded machine.
	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range wait {
		for {
			resp, err := http.Get(url + "/buildid/" + id + "/debuginfo")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				data, _ := os.ReadFile(log.Name())
				t.Fatalf("debuginfod did not serve %s within 2 minutes:\n%s", id, data)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return url
}
