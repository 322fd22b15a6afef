package symbols

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"flamekit/internal/base/safefile"
	"flamekit/internal/testkit/debugfiles"
	"flamekit/pkg/perf/debuginfod"
	"flamekit/pkg/perf/debuginfod/nethttp"
)

// TestHostilePerfMaps: a profiled process controls /tmp/perf-PID.map.
// A FIFO hung the reader, a symlink to /dev/zero or a 50 GB sparse file
// ran it out of memory (issue 34); each is now refused at once, and Why
// names the file and the reason.
func TestHostilePerfMaps(t *testing.T) {
	dir := t.TempDir()
	mk := func(pid int) string { return filepath.Join(dir, "perf-"+strconv.Itoa(pid)+".map") }
	if err := syscall.Mkfifo(mk(101), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", mk(102))
	if f, err := os.Create(mk(103)); err == nil {
		f.Truncate(50 << 30)
		f.Close()
	}
	os.WriteFile(mk(104), []byte("1000 10 theirs\n"), 0o644)
	own := os.Geteuid() == 0
	if own {
		os.Chown(mk(104), 4242, 4242)
	}
	os.WriteFile(mk(105), []byte("1000 10 fine_symbol\n"), 0o644)

	r := NewResolver(Options{PerfMapDir: dir, Proc: filepath.Join(dir, "noproc")})
	cases := []struct {
		pid  int
		want error
		why  string
	}{
		{101, safefile.ErrNotRegular, "a FIFO"},
		{102, safefile.ErrSymlink, "symbolic link"},
		{103, safefile.ErrTooLarge, "53687091200 bytes"},
	}
	if own {
		cases = append(cases, struct {
			pid  int
			want error
			why  string
		}{104, safefile.ErrOwner, "owner uid 4242"})
	}
	for _, c := range cases {
		done := make(chan bool, 1)
		go func() {
			_, ok := r.PerfMap(c.pid, 0x1004, ^uint64(0))
			done <- ok
		}()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("pid %d: a symbol from a refused map", c.pid)
			}
		case <-time.After(time.Minute):
			t.Fatalf("pid %d: PerfMap hangs", c.pid)
		}
		var found bool
		for _, m := range r.Missing() {
			if m.Path == mk(c.pid) && errors.Is(m.Err, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("pid %d: Missing %v has no %v", c.pid, r.Missing(), c.want)
		}
		if why := r.Why("/tmp/perf-" + strconv.Itoa(c.pid) + ".map"); !strings.Contains(why, c.why) || !strings.Contains(why, mk(c.pid)) {
			t.Errorf("pid %d: Why = %q, want %q and the file", c.pid, why, c.why)
		}
	}
	if s, ok := r.PerfMap(105, 0x1004, ^uint64(0)); !ok || s.Name != "fine_symbol" {
		t.Errorf("a good map: %+v %v", s, ok)
	}
	// Each refusal is taken once, in the order met, for the tools' one
	// line per refused file on stderr.
	var said []string
	for _, err := range r.TakeRefused() {
		said = append(said, err.Error())
	}
	if len(said) != len(cases) {
		t.Errorf("TakeRefused gave %d refusals, want %d:\n%s", len(said), len(cases), strings.Join(said, "\n"))
	}
	for i, c := range cases {
		if i < len(said) && (!strings.HasPrefix(said[i], "perf map "+mk(c.pid)+": skipped: ") || !strings.Contains(said[i], c.why)) {
			t.Errorf("refusal %d: %q, want the map %s and %q", i, said[i], mk(c.pid), c.why)
		}
	}
	r.PerfMap(101, 0x2004, ^uint64(0))
	if again := r.TakeRefused(); len(again) != 0 {
		t.Errorf("refusals said twice: %v", again)
	}
	if own {
		forced := NewResolver(Options{PerfMapDir: dir, Force: true, Proc: filepath.Join(dir, "noproc")})
		if s, ok := forced.PerfMap(104, 0x1004, ^uint64(0)); !ok || s.Name != "theirs" {
			t.Errorf("--force: %+v %v", s, ok)
		}
	}
	if why := r.Why("/tmp/perf-999.map"); !strings.Contains(why, "no jitdump nor perf map") {
		t.Errorf("no map: Why = %q", why)
	}
	// A jitdump the capture mapped, gone since.
	r.Mapped(998, "/nonexistent/jit-998.dump")
	if _, ok := r.PerfMap(998, 0x1004, ^uint64(0)); ok {
		t.Error("a symbol from nowhere")
	}
	if why := r.Why("/tmp/perf-998.map"); !strings.Contains(why, "no jitdump nor perf map") || !strings.Contains(why, "/nonexistent/jit-998.dump") {
		t.Errorf("jitdump gone: Why = %q", why)
	}
}

// TestDebuginfod resolves a stripped program whose symbols only a real
// debuginfod server (elfutils) has, as eu-addr2line names them in the
// debug file; a build-id the server lacks is a "debuginfod miss".
func TestDebuginfod(t *testing.T) {
	dir := t.TempDir()
	p := debugfiles.Build(t, dir, "prog", "")
	serve := filepath.Join(dir, "serve")
	os.Mkdir(serve, 0o755)
	os.Rename(p.Debug, filepath.Join(serve, "prog.debug"))
	url := debugfiles.Server(t, serve, p.BuildID)

	empty := t.TempDir()
	opts := func(c *debuginfod.Client) Options {
		return Options{BuildIDDir: empty, DebugDir: empty, Debuginfod: c, Proc: filepath.Join(empty, "noproc")}
	}
	client := func() *debuginfod.Client {
		return debuginfod.New(debuginfod.Config{Getter: nethttp.Getter{}, URLs: []string{url}, CacheDir: filepath.Join(dir, "cache"),
			Timeout: time.Minute, BuildID: FileBuildID})
	}
	want := functions(t, p.Full)

	// Without debuginfod: the stripped program has its .dynsym only.
	plain := NewResolver(opts(nil))
	for name, addr := range want {
		if s, ok := plain.DSO(p.Stripped, p.BuildID, addr); ok && s.Name == name {
			t.Errorf("%s found without its debug file", name)
		}
	}
	if why := plain.Why(p.Stripped); !strings.Contains(why, "stripped") || !strings.Contains(why, "DEBUGINFOD_URLS") {
		t.Errorf("stripped, no debuginfod: Why = %q", why)
	}

	r := NewResolver(opts(client()))
	for name, addr := range want {
		s, ok := r.DSO(p.Stripped, p.BuildID, addr+1)
		if !ok || s.Name != name || s.Offset != 1 {
			t.Errorf("%s+0x1: got %+v %v", name, s, ok)
		}
		if a2l := eu(t, filepath.Join(dir, "cache", p.BuildID, "debuginfo"), addr+1); a2l != "" && a2l != s.Name {
			t.Errorf("eu-addr2line says %q at %s+1, resolver %q", a2l, name, s.Name)
		}
	}
	// The executable missing here too, and the server has only the
	// debug file: no symbol rather than a wrong one.
	gone := filepath.Join(dir, "not-here", "prog")
	if s, ok := r.DSO(gone, p.BuildID, want["flamekit_outer"]); ok {
		t.Errorf("program not here, nor on the server: %+v", s)
	}
	if why := r.Why(gone); !strings.Contains(why, "without its executable") {
		t.Errorf("debug file alone: Why = %q", why)
	}
	// A server with both: the executable comes from it too.
	both := filepath.Join(dir, "both")
	os.Mkdir(both, 0o755)
	data, _ := os.ReadFile(p.Stripped)
	os.WriteFile(filepath.Join(both, "prog"), data, 0o755)
	data, _ = os.ReadFile(filepath.Join(serve, "prog.debug"))
	os.WriteFile(filepath.Join(both, "prog.debug"), data, 0o644)
	url2 := debugfiles.Server(t, both, p.BuildID)
	c2 := debuginfod.New(debuginfod.Config{Getter: nethttp.Getter{}, URLs: []string{url2}, CacheDir: t.TempDir(), Timeout: time.Minute, BuildID: FileBuildID})
	r2 := NewResolver(opts(c2))
	if s, ok := r2.DSO(gone, p.BuildID, want["flamekit_outer"]); !ok || s.Name != "flamekit_outer" {
		t.Errorf("program not here, both on the server: %+v %v", s, ok)
	}
	// A build-id the server has not: a miss naming it.
	other := debugfiles.Build(t, dir, "other", "int flamekit_other = 2;\n")
	if _, ok := r.DSO(other.Stripped, other.BuildID, 0x1000); ok {
		t.Log("found a .dynsym symbol, fine")
	}
	why := r.Why(other.Stripped)
	if !strings.Contains(why, "debuginfod miss") || !strings.Contains(why, other.BuildID) {
		t.Errorf("miss: Why = %q", why)
	}
	// A server that cannot be asked is the reason, not a miss to
	// publish: what to fix is the server.
	down := debuginfod.New(debuginfod.Config{Getter: nethttp.Getter{}, URLs: []string{"http://127.0.0.1:1"}, CacheDir: t.TempDir(), Timeout: time.Minute, BuildID: FileBuildID})
	r3 := NewResolver(opts(down))
	r3.DSO(other.Stripped, other.BuildID, 0x1000)
	why = r3.Why(other.Stripped)
	if !strings.Contains(why, "connection refused") || !strings.Contains(why, other.BuildID) || strings.Contains(why, "publish") {
		t.Errorf("server down: Why = %q", why)
	}
}

// functions returns the flamekit_ functions of an ELF file by address,
// as debug/elf reads them (independently of the resolver).
func functions(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	out, err := exec.Command("nm", path).Output()
	if err != nil {
		t.Skipf("skipped: nm (binutils): %v", err)
	}
	m := map[string]uint64{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && strings.HasPrefix(f[2], "flamekit_") && (f[1] == "T" || f[1] == "t") {
			a, _ := strconv.ParseUint(f[0], 16, 64)
			m[f[2]] = a
		}
	}
	if len(m) != 3 {
		t.Fatalf("nm %s: %v", path, m)
	}
	return m
}

// eu returns eu-addr2line's function at addr, "" when it is not installed.
func eu(t *testing.T, path string, addr uint64) string {
	bin, err := exec.LookPath("eu-addr2line")
	if err != nil {
		return ""
	}
	out, err := exec.Command(bin, "-f", "-e", path, "0x"+strconv.FormatUint(addr, 16)).Output()
	if err != nil {
		t.Fatalf("eu-addr2line: %v", err)
	}
	return strings.SplitN(string(out), "\n", 2)[0]
}

// container runs ct.bin (testdata/container, scripts/capture-container)
// in new mount and pid namespaces, from a tmpfs at /opt/flamekit-ct
// mounted only there (empty on the host), with a perf map at
// /tmp/perf-1.map inside (pid 1 there); it returns the host pid, and a
// function that ends the container.
func container(t *testing.T) (int, func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: namespaces need root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("skipped: unshare not installed (util-linux)")
	}
	const inside = "/opt/flamekit-ct"
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Skip("skipped: ", err)
	}
	if ents, _ := os.ReadDir(inside); len(ents) > 0 {
		t.Skipf("skipped: %s is not empty on this host", inside)
	}
	bin, _ := filepath.Abs("testdata/container/ct.bin")
	script := "mount -t tmpfs flamekit-ct " + inside + " && mount -t tmpfs flamekit-tmp /tmp && " +
		"cp " + bin + " " + inside + "/ct && printf '1000 10 ct_jit_symbol\\n' > /tmp/perf-1.map && " +
		"exec " + inside + "/ct 0.01 wait"
	cmd := exec.Command(unshare, "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Skip("skipped: unshare: ", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The container's init: the child of unshare, once it runs ct.
	var pid int
	deadline := time.Now().Add(time.Minute)
	for pid == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Skip("skipped: the container did not start in a minute")
		}
		select {
		case err := <-exited:
			// Without namespaces (an unprivileged container) unshare
			// ends at once: no need to wait the minute out.
			t.Skipf("skipped: the container did not start (no namespaces here?): unshare: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
		case <-time.After(50 * time.Millisecond):
		}
		kids, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/" + strconv.Itoa(cmd.Process.Pid) + "/children")
		for _, k := range strings.Fields(string(kids)) {
			if exe, _ := os.Readlink("/proc/" + k + "/exe"); exe == inside+"/ct" {
				pid, _ = strconv.Atoi(k)
			}
		}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			syscall.Kill(pid, syscall.SIGKILL) // a namespace's init takes no SIGTERM from outside
			<-exited
		})
	}
	t.Cleanup(stop)
	return pid, stop
}

// TestContainer resolves the frames of a process in a container, as perf
// did while it lived (testdata/container/ct-live.frames.gz), through
// /proc/PID/root; its perf map through NSpid; and once it has ended says
// so, and finds the program by build-id (the build-id cache, debuginfod).
func TestContainer(t *testing.T) {
	live := readParity(t, "testdata/container/ct-live.frames.gz")
	const path = "/opt/flamekit-ct/ct"
	id := live.buildIDs[path]
	if id == "" {
		t.Fatal("no build-id for the container's program in the oracle")
	}
	if got, _ := FileBuildID("testdata/container/ct.bin"); got != id {
		t.Fatalf("ct.bin has build-id %s, the capture %s: run scripts/capture-container again", got, id)
	}
	empty := t.TempDir()
	compare := func(t *testing.T, r *Resolver, c parityCapture) {
		n := 0
		for _, f := range c.frames {
			if f.dso != path {
				continue
			}
			s, ok := r.DSO(path, id, f.addr)
			if got := oracleText(s, ok); got != f.sym {
				t.Errorf("%s %x: perf printed %q, resolver %q", path, f.addr, f.sym, got)
			}
			n += f.count
		}
		if n < 100 {
			t.Fatalf("only %d frames of %s in the oracle", n, path)
		}
		t.Logf("%d frames of %s named as perf did", n, path)
	}

	t.Run("live", func(t *testing.T) {
		pid, stop := container(t)
		if _, err := os.Stat(path + "/ct"); err == nil {
			t.Fatalf("%s/ct is visible on the host: not a container", path)
		}
		r := NewResolver(Options{BuildIDDir: empty, DebugDir: empty})
		r.Mapped(pid, path)
		compare(t, r, live)
		if s, ok := r.PerfMap(pid, 0x1004, ^uint64(0)); !ok || s.Name != "ct_jit_symbol" {
			t.Errorf("perf map inside the container (/tmp/perf-1.map there): %+v %v", s, ok)
		}
		// Gone: the same capture read once the container has ended.
		stop()
		r = NewResolver(Options{BuildIDDir: empty, DebugDir: empty})
		r.Mapped(pid, path)
		if _, ok := r.DSO(path, id, live.frames[0].addr); ok {
			t.Error("symbols of a container that has ended, from nowhere")
		}
		why := r.Why(path)
		if !strings.Contains(why, "gone with its process") || !strings.Contains(why, strconv.Itoa(pid)) {
			t.Errorf("gone: Why = %q", why)
		}
	})

	t.Run("gone, build-id cache", func(t *testing.T) {
		gone := readParity(t, "testdata/container/ct-gone.frames.gz")
		cache := t.TempDir()
		link := filepath.Join(cache, ".build-id", id[:2], id[2:])
		os.MkdirAll(filepath.Dir(link), 0o755)
		data, _ := os.ReadFile("testdata/container/ct.bin")
		os.WriteFile(link, data, 0o755)
		r := NewResolver(Options{BuildIDDir: cache, DebugDir: empty, Proc: filepath.Join(empty, "noproc")})
		r.Mapped(1<<22-1, path)
		compare(t, r, gone)
	})

	t.Run("gone, debuginfod", func(t *testing.T) {
		gone := readParity(t, "testdata/container/ct-gone.frames.gz")
		serve := t.TempDir()
		data, _ := os.ReadFile("testdata/container/ct.bin")
		os.WriteFile(filepath.Join(serve, "ct"), data, 0o755)
		url := debugfiles.Server(t, serve, id)
		c := debuginfod.New(debuginfod.Config{Getter: nethttp.Getter{}, URLs: []string{url}, CacheDir: t.TempDir(), Timeout: time.Minute, BuildID: FileBuildID})
		r := NewResolver(Options{BuildIDDir: empty, DebugDir: empty, Debuginfod: c, Proc: filepath.Join(empty, "noproc")})
		r.Mapped(1<<22-1, path)
		r.Preload(path, id) // not here: fetched in the background at once
		compare(t, r, gone)
		// Fetched once, however many asked.
		if p, err := c.Fetch(context.Background(), id, debuginfod.Executable); err != nil || !strings.HasSuffix(p, id+"/executable") {
			t.Errorf("the executable: %q %v", p, err)
		}
	})
}

// TestGoneReusedPid: a file not on this host, mapped by a process whose
// pid now belongs to another process (one that does not map it), is
// gone with its process; while the process of that pid maps it, it is
// not (it may be in a container, or deleted but mapped).
func TestGoneReusedPid(t *testing.T) {
	procfs := t.TempDir()
	const pid = 4242
	dir := filepath.Join(procfs, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tother\nUid:\t0\t0\t0\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const path = "/opt/app/bin-not-here"
	for _, c := range []struct {
		name string
		maps string
		gone bool
	}{
		{"pid reused", "55d0c0a00000-55d0c0a21000 r-xp 00000000 fe:00 123 /usr/bin/other\n", true},
		{"still mapped", "55d0c0a00000-55d0c0a21000 r-xp 00000000 fe:00 123 " + path + "\n", false},
		{"mapped, deleted", "55d0c0a00000-55d0c0a21000 r-xp 00000000 fe:00 123 " + path + " (deleted)\n", false},
		{"a longer name", "55d0c0a00000-55d0c0a21000 r-xp 00000000 fe:00 123 /x" + path + "\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "maps"), []byte(c.maps), 0o644); err != nil {
				t.Fatal(err)
			}
			r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), Proc: procfs})
			r.Mapped(pid, path)
			err := r.gone(path)
			if got := errors.Is(err, ErrProcessGone); got != c.gone {
				t.Fatalf("gone = %v (%v), want %v", got, err, c.gone)
			}
		})
	}
}

// TestWhyGoneAfterLoad: an object whose table was looked for before the
// record saying which process mapped it (a preload runs ahead of the
// reader) is still said gone with its process once the capture is read.
func TestWhyGoneAfterLoad(t *testing.T) {
	const path, pid = "/opt/app/bin-not-here", 4343
	r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), Proc: filepath.Join(t.TempDir(), "noproc")})
	if tb := r.DSOTable(path, ""); tb != nil {
		t.Fatal("a table for a file that is not here")
	}
	r.Mapped(pid, path)
	if why := r.Why(path); !strings.Contains(why, "gone with its process") || !strings.Contains(why, strconv.Itoa(pid)) {
		t.Fatalf("Why = %q, want gone with process %d", why, pid)
	}
}
