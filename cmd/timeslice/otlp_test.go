package main

import (
	"compress/gzip"
	"io"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/internal/testkit/otlprecv"
	"flamekit/pkg/interop/otlp"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/perf/perfdata"
)

// otlpStacks decodes an OTLP request with the official proto package
// and returns its values per stack (root first), its profiles' spans and
// the timestamps' range.
func otlpStacks(t *testing.T, body []byte) (stacks map[string]float64, spans [][2]uint64, minTS, maxTS uint64, resource map[string]string) {
	t.Helper()
	var req collectorpb.ExportProfilesServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	d := req.GetDictionary()
	strs := d.GetStringTable()
	stacks, resource = map[string]float64{}, map[string]string{}
	minTS = ^uint64(0)
	for _, rp := range req.GetResourceProfiles() {
		for _, kv := range rp.GetResource().GetAttributes() {
			resource[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, sp := range rp.GetScopeProfiles() {
			for _, p := range sp.GetProfiles() {
				spans = append(spans, [2]uint64{p.GetTimeUnixNano(), p.GetDurationNano()})
				for _, s := range p.GetSamples() {
					var frames []string
					for _, li := range d.GetStackTable()[s.GetStackIndex()].GetLocationIndices() {
						fn := d.GetFunctionTable()[d.GetLocationTable()[li].GetLines()[0].GetFunctionIndex()]
						frames = append([]string{strs[fn.GetNameStrindex()]}, frames...)
					}
					for i, v := range s.GetValues() {
						stacks[strings.Join(frames, ";")] += float64(v)
						ts := s.GetTimestampsUnixNano()[i]
						minTS, maxTS = min(minTS, ts), max(maxTS, ts)
					}
				}
			}
		}
	}
	return
}

// TestFormatOTLP: --format otlp writes the window's stacks and total,
// every timestamp inside the window on the wall clock.
func TestFormatOTLP(t *testing.T) {
	t.Setenv("TZ", "UTC")
	_, fold, _ := run(t, "", "--from", "13s", "--to", "16s", burstFile)
	want := profile(t, fold)
	code, out, stderr := run(t, "", "--from", "13s", "--to", "16s", "--format", "otlp", "--service", "burst", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	got, spans, lo, hi, res := otlpStacks(t, []byte(out))
	if len(got) != len(want) || total(got) != total(want) {
		t.Errorf("%d stacks, total %v; the folded window: %d, %v", len(got), total(got), len(want), total(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stack %s: %v, want %v", k, got[k], v)
		}
	}
	if len(spans) != 1 || spans[0][1] != 3e9 || lo < spans[0][0] || hi >= spans[0][0]+spans[0][1] {
		t.Errorf("profiles %v, timestamps %d to %d", spans, lo, hi)
	}
	if res[otlp.AttrService] != "burst" || res[otlp.AttrHost] != "vm" {
		t.Errorf("resource %v", res)
	}
}

// TestPushOTLP: --format otlp --push sends the window once, as 1 s
// profiles in one request, through a server restarting (503) and
// throttling (429); the stacks accepted are the window's.
func TestPushOTLP(t *testing.T) {
	t.Setenv("TZ", "UTC")
	_, fold, _ := run(t, "", "--from", "13s", "--to", "16s", burstFile)
	want := profile(t, fold)
	srv := &otlprecv.Receiver{Path: otlp.Path, ContentType: otlp.ContentType, Gzip: true, Faults: []string{"503", "429"}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, out, stderr := run(t, "", "--from", "13s", "--to", "16s", "--format", "otlp", "--push", hs.URL, "--service", "burst", "--label", "host=web7", "--label", "env=test", burstFile)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	accepted := srv.Accepted()
	if len(accepted) != 1 || srv.Requests() != 3 {
		t.Fatalf("%d requests, %d accepted; want 3 and 1", srv.Requests(), len(accepted))
	}
	got, spans, _, _, res := otlpStacks(t, accepted[0])
	if total(got) != total(want) || len(spans) != 3 {
		t.Errorf("total %v in %d profiles, want %v in 3", total(got), len(spans), total(want))
	}
	for _, sp := range spans {
		if sp[1] != uint64(time.Second) || sp[0]%uint64(time.Second) != 0 {
			t.Errorf("profile span %v: want whole seconds", sp)
		}
	}
	if res[otlp.AttrHost] != "web7" || res["env"] != "test" || res[otlp.AttrService] != "burst" {
		t.Errorf("resource %v", res)
	}
	if !strings.Contains(stderr, "pushed 3 OTLP profiles of 488 samples") || !strings.Contains(stderr, "gzipped) in 1 request (3 attempts)") {
		t.Errorf("stderr: %s", stderr)
	}

	refuse := &otlprecv.Receiver{Path: otlp.Path, Faults: []string{"400"}}
	hs2 := httptest.NewServer(refuse)
	defer hs2.Close()
	code, _, stderr = run(t, "", "--format", "otlp", "--push", hs2.URL, "--service", "burst", burstFile)
	if code != 1 || refuse.Requests() != 1 || !strings.Contains(stderr, "HTTP 400") {
		t.Errorf("refused: exit %d, %d requests, stderr %s", code, refuse.Requests(), stderr)
	}
}

// TestBuildIDs: the pprof and OTLP outputs of a perf.data file, plain or
// gzipped (read through the input layer's decompressed copy), carry each
// file of its build-id table with its GNU build-id, as Go's own profiles
// do.
func TestBuildIDs(t *testing.T) {
	t.Setenv("TZ", "UTC")
	const gz = "../../pkg/perf/perfdata/testdata/go.data.gz"
	data := gunzipTo(t, gz, filepath.Join(t.TempDir(), "go.data"))
	ids, err := perfdata.BuildIDs(data)
	if err != nil || len(ids) == 0 {
		t.Fatalf("the capture's build-ids: %v %v", ids, err)
	}
	want := map[string]string{}
	for _, id := range ids {
		want[id.File] = id.ID
	}
	for _, in := range []string{data, gz} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			code, out, stderr := run(t, "", "--format", "pprof", in)
			if code != 0 {
				t.Fatal(stderr)
			}
			p, err := pprof.Parse([]byte(out), "out")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, m := range p.Mapping {
				got[m.File] = m.BuildID
			}
			if !maps.Equal(got, want) {
				t.Errorf("pprof mappings %v, the capture's build-ids %v", got, want)
			}
			if in == gz {
				return // OTLP needs the wall clock, which a gzipped copy's date does not give
			}
			code, out, stderr = run(t, "", "--format", "otlp", in)
			if code != 0 {
				t.Fatal(stderr)
			}
			var req collectorpb.ExportProfilesServiceRequest
			if err := proto.Unmarshal([]byte(out), &req); err != nil {
				t.Fatal(err)
			}
			d := req.GetDictionary()
			got = map[string]string{}
			for _, m := range d.GetMappingTable()[1:] {
				for _, ai := range m.GetAttributeIndices() {
					a := d.GetAttributeTable()[ai]
					if d.GetStringTable()[a.GetKeyStrindex()] == otlp.AttrBuildID {
						got[d.GetStringTable()[m.GetFilenameStrindex()]] = a.GetValue().GetStringValue()
					}
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("OTLP mappings %v, the capture's build-ids %v", got, want)
			}
		})
	}
}

// gunzipTo writes the gunzipped content of the file gz to path, and
// returns path.
func gunzipTo(t *testing.T, gz, path string) string {
	t.Helper()
	zf, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer zf.Close()
	zr, err := gzip.NewReader(zf)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
