package window

import (
	"errors"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/folded"
)

func sec(s string) folded.Time {
	t, err := folded.ParseTime([]byte(s))
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want folded.Time
	}{
		{"70s", sec("70")},
		{"70", sec("70")},
		{"2.5", sec("2.5")},
		{"1m10s", sec("70")},
		{"1m10.5s", sec("70.5")},
		{"1.5m", sec("90")},
		{"500ms", sec("0.5")},
		{"1s500ms", sec("1.5")},
		{"1h", sec("3600")},
		{"1h2m3s", sec("3723")},
		{"0.000000001s", 1},
		{"0.25ms", sec("0.00025")},
		{" 70s ", sec("70")},
		{".5s", sec("0.5")},
	}
	for _, tt := range tests {
		got, err := parseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "s", "70x", "10s1m", "1m1m", "1 m", "-5s", "1e3s", "70s5", "5.5.5s", "99999999999999999999h", "1.2.3"} {
		if got, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", bad, got)
		} else if !errors.Is(err, ErrWindow) {
			t.Errorf("parseDuration(%q): error %v does not wrap ErrWindow", bad, err)
		}
	}
}

func TestParseAt(t *testing.T) {
	utc := func(s string) time.Time {
		w, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return w
	}
	tests := []struct {
		in       string
		kind     Kind
		from, to folded.Time // Relative, Perf
		wfrom    time.Time   // Wall
	}{
		{"70s±2.5", Relative, sec("67.5"), sec("72.5"), time.Time{}},
		{"70s+-2.5", Relative, sec("67.5"), sec("72.5"), time.Time{}},
		{" 70s ± 2.5 ", Relative, sec("67.5"), sec("72.5"), time.Time{}},
		{"1m10s±500ms", Relative, sec("69.5"), sec("70.5"), time.Time{}},
		{"70±1", Relative, sec("69"), sec("71"), time.Time{}},
		{"1s±2", Relative, sec("-1"), sec("3"), time.Time{}},
		{"@43521.274±2.5", Perf, sec("43518.774"), sec("43523.774"), time.Time{}},
		{"@[43521.274]±2.5", Perf, sec("43518.774"), sec("43523.774"), time.Time{}},
		{"@43521.274s+-1s", Perf, sec("43520.274"), sec("43522.274"), time.Time{}},
		{"2026-04-15T10:33:10Z±2.5", Wall, 0, 0, utc("2026-04-15T10:33:07.5Z")},
		{"2026-04-15T12:33:10.5+02:00±2.5", Wall, 0, 0, utc("2026-04-15T10:33:08Z")},
		{"2026-04-15 10:33:10Z±1m", Wall, 0, 0, utc("2026-04-15T10:32:10Z")},
	}
	for _, tt := range tests {
		sp, err := ParseAt(tt.in)
		if err != nil {
			t.Errorf("ParseAt(%q): %v", tt.in, err)
			continue
		}
		if !sp.HasFrom || !sp.HasTo || sp.From.Kind != tt.kind || sp.To.Kind != tt.kind {
			t.Errorf("ParseAt(%q) = %+v, want kind %d both ends", tt.in, sp, tt.kind)
			continue
		}
		if tt.kind == Wall {
			if !sp.From.Wall.Equal(tt.wfrom) || sp.To.Wall.Sub(sp.From.Wall) <= 0 {
				t.Errorf("ParseAt(%q) from %v to %v, want from %v", tt.in, sp.From.Wall, sp.To.Wall, tt.wfrom)
			}
			continue
		}
		if sp.From.At != tt.from || sp.To.At != tt.to {
			t.Errorf("ParseAt(%q) = %v..%v, want %v..%v", tt.in, sp.From.At, sp.To.At, tt.from, tt.to)
		}
	}
	for _, bad := range []string{"70s±", "70s", "±2", "70x±1", "70s±0", "70s±-1", "10s1m±1", "@abc±1", "@-5±1",
		"2026-13-45T10:00:00Z±1", "70s±2.5x", "", "+-", "@±1", "70s±±1"} {
		if sp, err := ParseAt(bad); err == nil {
			t.Errorf("ParseAt(%q) = %+v, want an error", bad, sp)
		} else if !errors.Is(err, ErrWindow) {
			t.Errorf("ParseAt(%q): error %v does not wrap ErrWindow", bad, err)
		}
	}
}

func TestParseRange(t *testing.T) {
	sp, err := ParseRange("65s", "75s")
	if err != nil || sp.From.At != sec("65") || sp.To.At != sec("75") {
		t.Errorf("ParseRange(65s, 75s) = %+v, %v", sp, err)
	}
	sp, err = ParseRange("@100", "")
	if err != nil || !sp.HasFrom || sp.HasTo || sp.From.Kind != Perf {
		t.Errorf("ParseRange(@100, \"\") = %+v, %v", sp, err)
	}
	sp, err = ParseRange("", "2026-04-15T10:33:10")
	if err != nil || sp.HasFrom || !sp.HasTo || sp.To.Kind != Wall || sp.To.Wall.Location() != time.Local {
		t.Errorf("ParseRange(\"\", local wall) = %+v, %v", sp, err)
	}
	for _, bad := range [][2]string{{"75s", "65s"}, {"70s", "70s"}, {"@5", "@4"}, {"x", ""}, {"", "y"},
		{"2026-04-15T10:33:10Z", "2026-04-15T10:33:09Z"}} {
		if _, err := ParseRange(bad[0], bad[1]); !errors.Is(err, ErrWindow) {
			t.Errorf("ParseRange(%q, %q): error %v, want ErrWindow", bad[0], bad[1], err)
		}
	}
}

func FuzzParseAt(f *testing.F) {
	for _, s := range []string{"70s±2.5", "70s+-2.5", "1m10s±500ms", "@43521.274±2.5", "2026-04-15T10:33:10Z±2.5", "70s±", "1h2m3.5s+-0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseAt(s)
		if err != nil {
			if !errors.Is(err, ErrWindow) {
				t.Fatalf("ParseAt(%q): error %v does not wrap ErrWindow", s, err)
			}
			return
		}
		if !sp.HasFrom || !sp.HasTo || sp.From.Kind != sp.To.Kind {
			t.Fatalf("ParseAt(%q) = %+v: want both ends of one kind", s, sp)
		}
		if sp.From.Kind == Wall && !sp.From.Wall.Before(sp.To.Wall) || sp.From.Kind != Wall && sp.From.At >= sp.To.At {
			t.Fatalf("ParseAt(%q) = %+v: empty window", s, sp)
		}
		if !strings.Contains(sp.Text, "--at") {
			t.Fatalf("ParseAt(%q): text %q", s, sp.Text)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"70s", "1m10s", "500ms", "2.5", "1h2m3.123456789s", "10s1m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err != nil {
			if !errors.Is(err, ErrWindow) {
				t.Fatalf("parseDuration(%q): error %v does not wrap ErrWindow", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("parseDuration(%q) = %v < 0", s, d)
		}
		// A bare number is seconds: "N" and "Ns" agree.
		if !strings.ContainsAny(s, "hms") {
			ds, err := parseDuration(strings.TrimSpace(s) + "s")
			if err != nil || ds != d {
				t.Fatalf("parseDuration(%q) = %v but with an s: %v, %v", s, d, ds, err)
			}
		}
	})
}

func TestResolve(t *testing.T) {
	ref := WallRef{Wall: time.Date(2026, 11, 22, 2, 1, 4, 284867000, time.UTC), Perf: sec("692.619527301"), Exact: true,
		First: sec("680"), Last: sec("700")}
	c := Clock{Origin: sec("680.5"), HasOrigin: true, Refs: []WallRef{ref}}
	tests := []struct {
		spec     string
		from, to folded.Time
	}{
		{"10s±1", sec("689.5"), sec("691.5")},
		{"@690±0.5", sec("689.5"), sec("690.5")},
		{"2026-11-22T02:01:04.284867Z±1", sec("691.619527301"), sec("693.619527301")},
		{"2026-11-22T03:01:04.284867+01:00±1", sec("691.619527301"), sec("693.619527301")},
	}
	for _, tt := range tests {
		sp, err := ParseAt(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Resolve(sp)
		if err != nil || w.From != tt.from || w.To != tt.to || w.Estimated {
			t.Errorf("Resolve(%s) = %v..%v est %v, %v; want %v..%v", tt.spec, w.From, w.To, w.Estimated, err, tt.from, tt.to)
		}
	}
	// No origin: relative windows cannot be placed; perf-clock ones can.
	var none Clock
	if _, err := none.Resolve(mustAt(t, "10s±1")); !errors.Is(err, ErrNoOrigin) {
		t.Errorf("relative window without origin: %v", err)
	}
	if _, err := none.Resolve(mustAt(t, "2026-11-22T02:01:04Z±1")); err == nil || !strings.Contains(err.Error(), "perf record -k") {
		t.Errorf("wall-clock window without reference: %v", err)
	}
	if w, err := none.Resolve(mustAt(t, "@5±1")); err != nil || w.From != sec("4") {
		t.Errorf("perf window without origin: %v %v", w, err)
	}
}

func mustAt(t *testing.T, s string) Spec {
	t.Helper()
	sp, err := ParseAt(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestCapturedOnEstimate(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	var m folded.Meta
	m.Set(folded.KeyCapturedOn, "Sun Nov 22 02:24:54 2026")
	r, ok := refFromMeta(&m, sec("413.417927"), sec("443.407714"), true, cet)
	if !ok || r.Exact {
		t.Fatalf("refFromMeta = %+v, %v; want an estimate", r, ok)
	}
	if got := r.ToWall(sec("443.407714")); !got.Equal(time.Date(2026, 11, 22, 1, 24, 54, 0, time.UTC)) {
		t.Errorf("last sample at %v, want 01:24:54 UTC (02:24:54 CET)", got.UTC())
	}
	if !strings.Contains(r.How, "CET") || !strings.Contains(r.How, "TZ") || !strings.Contains(r.How, "perf record -k") {
		t.Errorf("How does not explain the estimate: %s", r.How)
	}
	// One-digit days are padded by ctime with a blank.
	if _, ok := folded.ParseCapturedOn("Wed Apr  1 10:33:10 2026", time.UTC); !ok {
		t.Error("ParseCapturedOn failed on a padded day")
	}
	// Realtime clock: perf times are epoch seconds.
	var rt folded.Meta
	rt.Set(folded.KeyClock, "realtime (0)")
	r, ok = refFromMeta(&rt, 0, 0, false, time.UTC)
	if !ok || !r.Exact || !r.ToWall(sec("1795312864.5")).Equal(time.Unix(1795312864, 5e8)) {
		t.Errorf("realtime reference = %+v, %v", r, ok)
	}
}
