package timeslice

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"flamekit/pkg/tool"
)

// busyHost writes timed folded lines of a made-up host: cpus CPUs at
// 97 Hz for seconds, each sample one of 5,000 stacks of 40 processes.
func busyHost(cpus, seconds int) string {
	var b strings.Builder
	b.WriteString("# flamekit v1 timed host=\"big\" event=\"cpu-clock:pppH\"\n")
	for tick := range seconds * 97 {
		for cpu := range cpus {
			s := (tick*7919 + cpu*104729) % 5000 // spread over the stacks
			s = s * s % 5000                     // the low ones more often
			pid := 1000 + s%40
			fmt.Fprintf(&b, "proc%d;main;work%d;leaf%d 10309278 @%d.%09d cpu=%d pid=%d tid=%d\n",
				s%40, s%97, s, 1000+tick/97, tick%97*10309278+cpu*1000, cpu, pid, pid)
		}
	}
	return b.String()
}

// A capture over the page's budget makes an aggregated page: the builder
// held no more than the budget, the page and the summary say what it
// keeps, and that the bursts were not searched.
func TestPageAggregated(t *testing.T) {
	var out strings.Builder
	var warns []string
	env := &tool.Env{Stdin: strings.NewReader(busyHost(96, 20)), Stdout: &out, Warn: func(m string) { warns = append(warns, m) }}
	c := &run{Config: Config{Rows: 50, Top: 10, Threshold: 3.5, Heatmap: HeatmapHTML, Format: OutputFolded}, pageBudget: 50_000}
	if err := c.run(env); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warns, "\n")
	if !strings.Contains(all, "explorer page: aggregated to fit its budget: cells of 1 s keeping their 256 heaviest stacks") {
		t.Errorf("summary:\n%s", all)
	}
	page := out.String()
	for _, want := range []string{"<p class=\"note\">Aggregated: the capture&#39;s 186240 samples", "<p class=\"note\">Bursts were not searched"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	m := regexp.MustCompile(`<script id="fx-meta" type="application/json">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no header")
	}
	var h struct {
		Rows, Seconds, Samples int
		Sizes                  [3]int
		Full                   *struct{ Rows, Entries int }
	}
	if err := json.Unmarshal([]byte(m[1]), &h); err != nil {
		t.Fatal(err)
	}
	if h.Rows != 1 || h.Seconds != 1 || h.Samples != 186240 || h.Sizes[2] > 50_000 || h.Full == nil || h.Full.Rows != 50 {
		t.Errorf("header: %+v, full %+v", h, h.Full)
	}
}
