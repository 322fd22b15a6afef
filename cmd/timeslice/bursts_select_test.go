package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A selection (--comm, --cpu) applies to the bursts' stacks as to their
// series: on the real capture, timeslice --bursts and the explorer page
// under the same selection find the same bursts, name the same processes
// with the same shares (the page's from its timeline, --bursts' from a
// second reading of the inputs), and every stack --bursts names is of a
// selected process; the command handed back cuts the burst under the
// selection too.
func TestBurstsUnderSelection(t *testing.T) {
	utc(t)
	line := regexp.MustCompile(`^\d+  (.*)  @[0-9.]+ to @[0-9.]+ = ([0-9.]+)s to ([0-9.]+)s after the first sample = .*  top: (.*); stacks (.*)  \|  (timeslice .*)$`)
	for _, tc := range []struct {
		sel   []string
		comms string // the processes the selection keeps
	}{
		{[]string{"--comm", "^(bash|python3)$"}, "^(bash|python3)$"},
		{[]string{"--cpu", "0"}, ""},
		// One process alone: the seconds it did not run are still
		// recorded time (the capture's other samples cover them), so its
		// burst stands out against them.
		{[]string{"--comm", "^" + burstComm + "$"}, "^" + burstComm + "$"},
		{[]string{"--comm", "^(bash|python3|" + burstComm + ")$", "--cpu", "1"}, "^(bash|python3|" + burstComm + ")$"},
	} {
		t.Run(strings.Join(tc.sel, " "), func(t *testing.T) {
			comm := regexp.MustCompile(tc.comms)
			code, out, stderr := run(t, "", append(append([]string{"-q", "--bursts"}, tc.sel...), burstFile)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			code, page, stderr := run(t, "", append(append([]string{"-q", "--heatmap=html"}, tc.sel...), burstFile)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			m := regexp.MustCompile(`<script id="fx-meta" type="application/json">(.*?)</script>`).FindStringSubmatch(page)
			if m == nil {
				t.Fatal("no page header")
			}
			var head struct {
				Inputs []struct{ First, Last string }
				Marks  []struct {
					From, To int64
					Label    string
				}
			}
			if err := json.Unmarshal([]byte(m[1]), &head); err != nil {
				t.Fatal(err)
			}
			// The page spans the capture (30 s), not only the seconds
			// the selected samples fall in.
			if len(head.Inputs) != 1 {
				t.Fatalf("the page has %d inputs", len(head.Inputs))
			}
			first, _ := strconv.ParseInt(head.Inputs[0].First, 10, 64)
			last, _ := strconv.ParseInt(head.Inputs[0].Last, 10, 64)
			if span := float64(last-first) / 1e9; span < 29 {
				t.Errorf("the page's input spans %.1f s: want the whole 30 s capture", span)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) == 0 || lines[0] == "" {
				t.Fatalf("no burst under %v", tc.sel)
			}
			if len(lines) != len(head.Marks) {
				t.Fatalf("--bursts found %d bursts, the page %d:\n%s\n%+v", len(lines), len(head.Marks), out, head.Marks)
			}
			for i, l := range lines {
				f := line.FindStringSubmatch(l)
				if f == nil {
					t.Fatalf("burst line %q", l)
				}
				mk := head.Marks[i]
				from, _ := strconv.ParseFloat(f[2], 64)
				to, _ := strconv.ParseFloat(f[3], 64)
				if got, want := fmt.Sprintf("%.1f to %.1f", float64(mk.From)/1e9, float64(mk.To)/1e9), fmt.Sprintf("%.1f to %.1f", from, to); got != want {
					t.Errorf("burst %d: the page's is %s s, --bursts' %s s", i+1, got, want)
				}
				// The page's label: where, the score, the processes.
				want := fmt.Sprintf("%s; top: %s", f[1], f[4])
				if !strings.HasSuffix(mk.Label, want) {
					t.Errorf("burst %d: the page says %q, --bursts %q", i+1, mk.Label, want)
				}
				for _, p := range strings.Split(f[4], ", ") {
					if name := strings.SplitN(p, " ", 2)[1]; !comm.MatchString(name) {
						t.Errorf("burst %d names process %q, which %v does not select", i+1, name, tc.sel)
					}
				}
				for _, s := range strings.Split(f[5], ", ") {
					root, _, _ := strings.Cut(strings.SplitN(s, " ", 2)[1], ";")
					if !comm.MatchString(root) {
						t.Errorf("burst %d names stack %q, which %v does not select", i+1, s, tc.sel)
					}
				}
				// The command cuts the burst under the selection: its
				// stacks are the selected processes'.
				args := strings.Fields(strings.ReplaceAll(f[6], "'", ""))[1:]
				code, slice, stderr := run(t, "", args...)
				if code != 0 {
					t.Fatalf("%s: %s", f[6], stderr)
				}
				for stack := range profile(t, slice) {
					if root, _, _ := strings.Cut(stack, ";"); !comm.MatchString(root) {
						t.Errorf("burst %d: %s cuts %q", i+1, f[6], stack)
						break
					}
				}
			}
		})
	}
}
