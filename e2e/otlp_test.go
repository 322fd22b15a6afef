package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/internal/testkit/otlprecv"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/otlp"
)

// otlpReceiver is the tests' stand-in OTLP/HTTP profiles receiver
// (otlprecv; it is not Pyroscope): its Faults say what the next requests
// meet, "503" (a server restarting), "drop" (the connection closed
// unanswered, as by a network that drops it or a server killed
// mid-request), then 200.
type otlpReceiver struct{ otlprecv.Receiver }

func newOTLPReceiver(faults ...string) *otlpReceiver {
	return &otlpReceiver{otlprecv.Receiver{Path: otlp.Path, ContentType: otlp.ContentType, Faults: faults}}
}

// otlpWindow is one accepted request: its host and the sum of its values.
type otlpWindow struct {
	host  string
	total int64
	ids   map[string]bool
}

// accepted returns the windows of the requests accepted.
func (r *otlpReceiver) accepted() []otlpWindow {
	var wins []otlpWindow
	for _, b := range r.Accepted() {
		var m collectorpb.ExportProfilesServiceRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			panic(err) // the receiver accepted it decoded
		}
		win := otlpWindow{ids: map[string]bool{}}
		for _, rp := range m.GetResourceProfiles() {
			for _, kv := range rp.GetResource().GetAttributes() {
				if kv.GetKey() == otlp.AttrHost {
					win.host = kv.GetValue().GetStringValue()
				}
			}
			for _, sp := range rp.GetScopeProfiles() {
				for _, p := range sp.GetProfiles() {
					win.ids[fmt.Sprintf("%x", p.GetProfileId())] = true
					for _, s := range p.GetSamples() {
						for _, v := range s.GetValues() {
							win.total += v
						}
					}
				}
			}
		}
		wins = append(wins, win)
	}
	return wins
}

// checkOnce checks that the receiver accepted each converted window in
// dir exactly once, whole, with its host, and that the ledger marks each
// sent.
func checkOnce(t *testing.T, dir string, rcv *otlpReceiver) {
	t.Helper()
	_, foldedFiles := windows(t, dir)
	got := rcv.accepted()
	if len(got) != len(foldedFiles) {
		t.Errorf("%d windows accepted, %d converted: %v", len(got), len(foldedFiles), foldedFiles)
	}
	want := map[int64]int{}
	for _, f := range foldedFiles {
		want[int64(sumCounts(t, readGzip(t, filepath.Join(dir, f)), ""))]++
	}
	seen := map[string]bool{}
	for _, w := range got {
		want[w.total]--
		host, _ := os.Hostname()
		host, _, _ = strings.Cut(host, ".")
		if w.host != host {
			t.Errorf("window pushed with host.name %q, want %q", w.host, host)
		}
		for id := range w.ids {
			if seen[id] {
				t.Errorf("profile_id %s sent twice", id)
			}
			seen[id] = true
		}
	}
	for total, n := range want {
		if n != 0 {
			t.Errorf("windows of total %d: %d more converted than accepted (negative: accepted twice)", total, n)
		}
	}
	ledger := string(readFile(t, filepath.Join(dir, ledgerName)))
	if strings.Count(ledger, " sent   \n") != len(foldedFiles) || strings.Contains(ledger, "pending") {
		t.Errorf("the ledger does not mark the %d windows sent:\n%s", len(foldedFiles), ledger)
	}
}

// TestPerfTimetravelOTLP: the recorder pushes each window as OTLP, once,
// through a server restarting (503) and a dropped connection; stopped
// while the server is down, it keeps the windows and the next start
// pushes them, none twice.
func TestPerfTimetravelOTLP(t *testing.T) {
	need(t, "stackcollapse", "timeslice")
	rec := script("perf-timetravel")
	rcv := newOTLPReceiver("503", "drop", "503", "drop", "drop")
	hs := httptest.NewServer(rcv)
	defer hs.Close()
	dir := t.TempDir()
	r := ok(t, dir, rec+" -o tt -w 1 -n 3 --no-marker --push-backoff 1s --push "+hs.URL+" --service web")
	checkOnce(t, filepath.Join(dir, "tt"), rcv)
	t.Logf("%d requests for %d windows\n%s", rcv.Requests(), len(rcv.accepted()), r.stderr)

	// The server is down (a port nobody listens on) for a whole run.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir2 := t.TempDir()
	r = sh(t, dir2, rec+" -o tt -w 1 -n 2 --no-marker --push-backoff 1s --push http://"+addr+" --service web")
	_, left := windows(t, filepath.Join(dir2, "tt"))
	if r.code != 1 || len(left) == 0 || !strings.Contains(string(r.stderr), fmt.Sprintf("%d window(s) not pushed", len(left))) {
		t.Fatalf("want exit 1, the windows kept and a message:\n%s\n%v", r, left)
	}
	// It comes back on the same address; the next run pushes the two
	// windows left and its own.
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	rcv2 := newOTLPReceiver()
	hs2 := &httptest.Server{Listener: l, Config: &http.Server{Handler: rcv2}}
	hs2.Start()
	defer hs2.Close()
	r = ok(t, dir2, rec+" -o tt -w 1 -n 1 --no-marker --push-backoff 1s --push http://"+addr+" --service web")
	checkOnce(t, filepath.Join(dir2, "tt"), rcv2)
	ledger := string(readFile(t, filepath.Join(dir2, "tt", ledgerName)))
	for _, f := range left {
		if !strings.Contains(ledger, strings.TrimSuffix(f, ".folded.gz")+" sent   \n") {
			t.Errorf("%s, left by the run without a server, was not pushed by the next:\n%s", f, r.stderr)
		}
	}
	// A third start finds nothing to send.
	r = ok(t, dir2, rec+" -o tt -w 1 -n 1 --no-marker --push-backoff 1s --push http://"+addr+" --service web")
	checkOnce(t, filepath.Join(dir2, "tt"), rcv2)
}

// TestPerfTimetravelFullDisk: windows waiting to be pushed on a full disk
// (a 2 MiB tmpfs under the recorder's directory, filled): a window whose
// ledger line cannot be written is not sent; one already "pending" in the
// ledger (a recorder killed mid-push) is sent and marked sent in place,
// needing no space; once space is freed the rest are sent; none twice.
// Needs root (mount); skipped otherwise.
func TestPerfTimetravelFullDisk(t *testing.T) {
	need(t, "stackcollapse", "timeslice")
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	rec := script("perf-timetravel")
	dir := t.TempDir()
	tt := filepath.Join(dir, "tt")
	if err := os.Mkdir(tt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", tt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", tt).Run()

	// Two windows converted by an earlier run; the first was being pushed
	// when that recorder was killed. The ledger fills its page (4096
	// bytes, as tmpfs allocates them) with the windows of older runs, so
	// that one more line needs a page the full disk does not have.
	ledger := "perf-vm-20260415-103200-120s pending\n"
	for len(ledger) < 4096-80 {
		ledger += fmt.Sprintf("perf-vm-20250101-%06d-120s sent   \n", len(ledger))
	}
	ledger += "perf-vm-20250102-000000-120s sent   " + strings.Repeat(" ", 4096-len(ledger)-36-1) + "\n"
	if err := os.WriteFile(filepath.Join(tt, ledgerName), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "stackcollapse "+travelWindow(t)+" | gzip > tt/perf-vm-20260415-103200-120s.folded.gz && "+
		"stackcollapse "+capture("burst")+" | gzip > tt/perf-vm-20260415-103400-120s.folded.gz && "+
		"(dd if=/dev/zero of=tt/fill bs=4k 2>/dev/null; true)")
	rcv := newOTLPReceiver()
	hs := httptest.NewServer(rcv)
	defer hs.Close()
	r := sh(t, dir, rec+" -o tt -w 1 -n 1 -f 0 --no-marker --push-backoff 1s --push "+hs.URL+" --service web")
	got := rcv.accepted()
	if len(got) != 1 || !strings.Contains(string(r.stderr), "cannot record the push") {
		t.Errorf("full disk: %d windows pushed, want the pending one alone, and a message:\n%s", len(got), r)
	}
	after := string(readFile(t, filepath.Join(tt, ledgerName)))
	if after != strings.Replace(ledger, "pending", "sent   ", 1) {
		t.Errorf("ledger on the full disk:\n%s", after[:200])
	}
	if err := os.Remove(filepath.Join(tt, "fill")); err != nil {
		t.Fatal(err)
	}
	// perf's window left unfinished by the full disk is recovered and
	// pushed too.
	r = sh(t, dir, rec+" -o tt -w 1 -n 1 -f 0 --no-marker --push-backoff 1s --push "+hs.URL+" --service web")
	if r.code != 0 {
		t.Errorf("with space again:\n%s", r)
	}
	_, foldedFiles := windows(t, tt)
	if len(rcv.accepted()) != len(foldedFiles) {
		t.Errorf("%d pushed for %d windows:\n%s", len(rcv.accepted()), len(foldedFiles), r)
	}
	after = string(readFile(t, filepath.Join(tt, ledgerName)))
	for _, f := range foldedFiles {
		if !strings.Contains(after, strings.TrimSuffix(f, ".folded.gz")+" sent   \n") || bytes.Contains([]byte(after), []byte("pending")) {
			t.Errorf("the ledger does not mark %s sent", f)
		}
	}
}

// TestPyroscopeOTLP pushes the bundled burst capture as OTLP
// (timeslice --format otlp --push) to a real Grafana Pyroscope, started
// from the binary FLAMEKIT_PYROSCOPE_BIN names, and checks its merged
// stacks of the burst's three seconds, and the burst's share in them,
// against timeslice's.
func TestPyroscopeOTLP(t *testing.T) {
	dir, url, recs, ref := pushBurst(t, "--format otlp --service flamekit-otlp")
	from := ref.ToWall(recs[0].Time).Truncate(time.Second).Add(13 * time.Second)
	to := from.Add(3 * time.Second)
	r := ok(t, dir, fmt.Sprintf("timeslice -q --from %s --to %s burst.folded", from.Format(time.RFC3339), to.Format(time.RFC3339)))
	want := map[string]int64{}
	var wantTotal, wantBurst int64
	rd := folded.NewReader(bytes.NewReader(r.stdout), "window")
	for rd.Next() {
		rec := rd.Record()
		want[string(rec.Stack)] += int64(rec.Count)
		wantTotal += int64(rec.Count)
		if strings.HasPrefix(string(rec.Stack), "flamekit_burst;") {
			wantBurst += int64(rec.Count)
		}
	}

	typ := otlpCPUType(t, url, from)
	selector := `{service_name="flamekit-otlp"}`
	deadline := time.Now().Add(60 * time.Second)
	var got map[string]int64
	var gotTotal int64
	for {
		got, gotTotal = mergeStacktraces(t, url, typ, selector, from, to.Add(-time.Millisecond))
		if gotTotal == wantTotal || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	var gotBurst int64
	for k, v := range got {
		if strings.HasPrefix(k, "flamekit_burst;") {
			gotBurst += v
		}
		if want[k] != v {
			t.Errorf("stack %s: Pyroscope %d, timeslice %d", k, v, want[k])
		}
	}
	if gotTotal != wantTotal || len(got) != len(want) {
		t.Errorf("%s %s to %s: total %d in %d stacks, timeslice %d in %d", typ, from, to, gotTotal, len(got), wantTotal, len(want))
	}
	t.Logf("%s, %s to %s: flamekit_burst %.2f%% in Pyroscope, %.2f%% in timeslice", typ, from.Format(time.RFC3339), to.Format(time.RFC3339),
		100*float64(gotBurst)/float64(max(gotTotal, 1)), 100*float64(wantBurst)/float64(max(wantTotal, 1)))
}

// otlpCPUType returns the profile type Pyroscope made of the OTLP sample
// type cpu/nanoseconds for data around the time at: asked, not guessed. It
// waits up to 60 s for the ingester to make pushed data queryable.
func otlpCPUType(t *testing.T, url string, at time.Time) string {
	t.Helper()
	var types struct {
		ProfileTypes []struct {
			ID string `json:"ID"`
		} `json:"profileTypes"`
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		connect(t, url, "querier.v1.QuerierService/ProfileTypes", map[string]any{
			"start": at.Add(-time.Hour).UnixMilli(), "end": at.Add(time.Hour).UnixMilli(),
		}, &types)
		for _, pt := range types.ProfileTypes {
			if strings.Contains(pt.ID, ":cpu:nanoseconds:") {
				return pt.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cpu/nanoseconds profile type in Pyroscope after 60 s: %v", types.ProfileTypes)
		}
		time.Sleep(2 * time.Second)
	}
}
