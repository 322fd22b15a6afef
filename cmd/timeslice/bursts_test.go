package main

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The saturated capture: 30 s of a 2-CPU machine kept busy by trainer,
// perf record -a -g -F 97, with kubelet_burst taking three quarters of the
// CPUs for 2 s from @1338.800354 (its dmesg marker,
// testdata/perf/saturated.dmesg.txt), committed collapsed.
const (
	saturatedFile  = "../../testdata/perf/saturated.folded.gz"
	saturatedComm  = "kubelet_burst"
	saturatedFirst = "1338.818815" // kubelet_burst's first and last samples
	saturatedLast  = "1340.808580"
)

// On a saturated machine the busy rate does not move: --bursts finds the
// burst by its process's share, names the process with its typical share
// and its share of the window, and its command cuts it.
func TestBurstsSaturated(t *testing.T) {
	utc(t)
	code, out, stderr := run(t, "", "--bursts", saturatedFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	abs, _ := filepath.Abs(saturatedFile)
	golden(t, "saturated-bursts.txt", strings.ReplaceAll(out, abs, "ABS/saturated.folded.gz"))
	if !strings.Contains(stderr, "bursts: rate: ") || !strings.Contains(stderr, "; 0 seconds at z ≥ 5\n") || !strings.Contains(stderr, "bursts: share: ") {
		t.Errorf("stderr should give both baselines, no second hot by rate:\n%s", stderr)
	}
	first, _, _ := strings.Cut(out, "\n")
	m := regexp.MustCompile(`^1  share: z [0-9.]+: process kubelet_burst rose from <0.01% to (\d+)% of the busy samples \(with [^)]*\)  @([0-9.]+) to @([0-9.]+) = .*  top: \d+% kubelet_burst, \d+% trainer[,;].*\|  (timeslice --from @[0-9.]+ --to @[0-9.]+ --no-idle (.*))$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q", first)
	}
	if sec(m[2]) > sec(saturatedFirst) || sec(m[3]) <= sec(saturatedLast) || sec(m[3])-sec(m[2]) > sec("2.4") {
		t.Errorf("first burst @%s to @%s, kubelet_burst's samples @%s to @%s", m[2], m[3], saturatedFirst, saturatedLast)
	}
	if m[5] != abs {
		t.Errorf("the command names %q, want %q", m[5], abs)
	}
	code, slice, stderr := run(t, "", strings.Fields(m[4])[1:]...)
	if code != 0 {
		t.Fatal(stderr)
	}
	said, _ := strconv.ParseFloat(m[1], 64)
	if s := share(profile(t, slice), saturatedComm); s < 0.6 || math.Abs(100*s-said) > 1.5 {
		t.Errorf("kubelet_burst is %.3f of the slice the command cuts; the line says %s%%", s, m[1])
	}
}

// The heat map marks the share burst as it marks rate bursts, and says
// which process rose.
func TestHeatmapMarksShare(t *testing.T) {
	utc(t)
	code, out, stderr := run(t, "", "--heatmap=text", "--no-idle", saturatedFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !regexp.MustCompile(`(?m)^mark 1: @[0-9.]+ to @[0-9.]+: seconds 13.[67] to 15.9, share: z [0-9.]+: process kubelet_burst rose from <0.01% to \d+% of the busy samples \(with [^)]*\); top: \d+% kubelet_burst`).MatchString(out) {
		t.Errorf("no mark of the share burst:\n%s", clip(out))
	}
	marked := regexp.MustCompile(`(?m)^\s+(\d+)  \|.*<- mark 1$`).FindAllStringSubmatch(out, -1)
	var secs []string
	for _, m := range marked {
		secs = append(secs, m[1])
	}
	if strings.Join(secs, " ") != "13 14 15" {
		t.Errorf("marked seconds %v, want 13, 14 and 15", secs)
	}
	code, svg, stderr := run(t, "", "--heatmap", "--no-idle", saturatedFile)
	if code != 0 || !strings.Contains(svg, `data-mark="0"`) || !strings.Contains(svg, "share: z ") {
		t.Errorf("the SVG does not list the share burst (exit %d): %s", code, stderr)
	}
}

// --share-comm and --share-focus shade the text heat map by one process's
// or one function's share: kubelet_burst's seconds stand out on a
// saturated host whose counts never move.
func TestHeatmapShare(t *testing.T) {
	for _, flag := range []string{"--share-comm=^kubelet_burst$", "--share-focus=^burst_spin$"} {
		code, out, stderr := run(t, "", "--heatmap=text", "--no-idle", flag, saturatedFile)
		if code != 0 {
			t.Fatal(stderr)
		}
		shares := map[string]float64{}
		for _, m := range regexp.MustCompile(`(?m)^\s+(\d+)  \|.*\|\s+([0-9.]+)% of`).FindAllStringSubmatch(out, -1) {
			shares[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
		if len(shares) != 30 || shares["14"] < 60 || shares["5"] != 0 || shares["20"] != 0 {
			t.Errorf("%s: shares by second %v", flag, shares)
		}
		if !strings.Contains(out, "shares: each cell shaded by the share of its samples") {
			t.Errorf("%s: no legend of shares:\n%s", flag, clip(out))
		}
	}
	if code, _, stderr := run(t, "", "--share-comm=x", saturatedFile); code != 2 {
		t.Errorf("--share-comm without --heatmap=text: exit %d, %s", code, stderr)
	}
}
