package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	gold "flamekit/internal/testkit/golden"
)

// --heatmap=html writes the explorer page: its header names the inputs as
// the page's commands name them, holds every sample and marks the burst.
func TestHeatmapHTML(t *testing.T) {
	code, out, stderr := run(t, "", "--heatmap=html", "--no-idle", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, `<script id="fx-data" type="application/octet-stream">`) {
		t.Fatalf("not the explorer page: %.200q", out)
	}
	m := regexp.MustCompile(`<script id="fx-meta" type="application/json">(.*?)</script>`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no header")
	}
	var head struct {
		Samples int64
		NoIdle  bool
		Rows    int
		Inputs  []struct{ File, Host string }
		Marks   []struct {
			From, To int64
			Label    string
		}
	}
	if err := json.Unmarshal([]byte(m[1]), &head); err != nil {
		t.Fatal(err)
	}
	if head.Samples != 3189 || !head.NoIdle || head.Rows != 50 {
		t.Errorf("header: %d samples, no-idle %t, %d rows; want 3189, true, 50", head.Samples, head.NoIdle, head.Rows)
	}
	if len(head.Inputs) != 1 || !strings.HasSuffix(head.Inputs[0].File, "/pkg/filter/window/testdata/burst.folded.gz") || head.Inputs[0].Host != "vm" {
		t.Errorf("inputs %+v: want the absolute path of the input, host vm", head.Inputs)
	}
	if len(head.Marks) == 0 || head.Marks[0].From > 13_900_000_000 || head.Marks[0].To < 15_700_000_000 || !strings.Contains(head.Marks[0].Label, burstComm) {
		t.Errorf("marks %+v: want the burst first, 13.8 s to 15.8 s in", head.Marks)
	}
	if !strings.Contains(stderr, "explorer page: 3189 samples") {
		t.Errorf("stderr %q", stderr)
	}
	// From standard input, the page names it "-".
	if code, out, stderr = run(t, string(gold.MustRead(t, burstFile)), "-q", "--heatmap=html"); code != 0 || !strings.Contains(out, `"file":"-"`) {
		t.Errorf("stdin: exit %d, %s", code, stderr)
	}
	// Off-CPU time: the page's cells sum microseconds, and it says so.
	in := "# flamekit v1 timed event=\"sched:sched_switch\" weight=\"off-cpu\" unit=\"us\"\n" +
		"app;read 150000 @10.010000\napp;sleep 800000 @10.500000\napp;read 2000 @11.010000\n"
	if code, out, stderr = run(t, in, "-q", "--heatmap=html"); code != 0 || !strings.Contains(out, `"measure":"weight","unit":"µs off-CPU"`) {
		t.Errorf("off-CPU page: exit %d, %s", code, stderr)
	}
	if code, _, stderr = run(t, "", "--heatmap=html", "--keep-time", burstFile); code != 2 {
		t.Errorf("--heatmap=html --keep-time: exit %d, want 2 (%s)", code, stderr)
	}
	if code, _, stderr = run(t, "", "--heatmap=pdf", burstFile); code != 2 || !strings.Contains(stderr, "--heatmap=html") {
		t.Errorf("--heatmap=pdf: exit %d, %q", code, stderr)
	}
}
