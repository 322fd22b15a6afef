package explorer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A range's sums read from the blocks' cached sums are its entries' sums,
// exactly, whatever the range's ends, the filters and the lanes: the page
// of one capture (one lane) and of two hosts (two lanes), with blocks of
// 64 cells made as idle time makes them.
func TestBlockSumsAreEntrySums(t *testing.T) {
	one := filepath.Join(shared, "blocks1.html")
	shell(t, "timeslice -q --heatmap=html "+foldedFile(t, "burst")+" > "+one)
	// web01: the same samples 1000 s later on its perf clock, 5 s later
	// on the wall clock (TestHostLanes's)
	text := string(collapse(t, "burst"))
	lines, _ := readLines(t, []byte(text))
	var web strings.Builder
	web.WriteString(`# flamekit v1 timed host="web01" ref-wall="2026-11-22T02:24:00Z" ref-perf="1408.000000"` + "\n")
	for _, l := range lines {
		fmt.Fprintf(&web, "%s %d @%v cpu=%d\n", l.stack, int64(l.count), l.at+1000e9, l.cpu)
	}
	vm, w := filepath.Join(shared, "blocks-vm.folded"), filepath.Join(shared, "blocks-web01.folded")
	os.WriteFile(vm, []byte(strings.Replace(text, `host="vm"`, `host="vm" ref-wall="2026-11-22T02:24:00Z" ref-perf="413.000000"`, 1)), 0o644)
	os.WriteFile(w, []byte(web.String()), 0o644)
	two := filepath.Join(shared, "blocks2.html")
	shell(t, fmt.Sprintf("timeslice -q --heatmap=html %s %s > %s", vm, w, two))
	b := newBrowser(t, 1300, 900)
	for _, page := range []string{one, two} {
		b.open(t, "file://"+page)
		var res struct {
			Ranges, Blocks, Mismatch int
			First                    string
		}
		b.Eval(t, `(() => {
			if (!M.integral) return { First: "weights not integral" };
			if (M.lanes.length !== (location.pathname.endsWith("2.html") ? 2 : 1)) return { First: M.lanes.length + " lanes" };
			BLOCK = 64;
			const out = { Ranges: 0, Blocks: 0, Mismatch: 0, First: "" };
			for (const f of [{}, { comm: ["^(bash|python3)$"] }, { cpu: ["1"] }, { noIdle: true }]) {
				S.f.comm = f.comm || []; S.f.cpu = f.cpu || []; S.noIdle = !!f.noIdle;
				applyFilters(); heatSeries();
				for (let l = 0; l < M.lanes.length; l++) {
					const sp = HM.spans[l], lane = M.lanes.length > 1 ? l : -1;
					for (let b = Math.floor(sp[0] / BLOCK); b <= Math.floor(sp[1] / BLOCK); b++) if (blockSums(b, lane)) out.Blocks++;
					for (const [a, z] of [[sp[0], sp[1] + 1], [sp[0] + 3, sp[1] - 100], [sp[0] + 130, sp[0] + 390], [sp[0] + 64, sp[0] + 256]]) {
						const r = { lane: l, c0: a, c1: z }, got = sums(r);
						const self = new Float64Array(T.n), selfN = new Float64Array(T.n);
						addEntries(self, selfN, a, z, lane);
						out.Ranges++;
						for (let i = 0; i < T.n; i++) if (got.self[i] !== self[i] || got.selfN[i] !== selfN[i]) {
							out.Mismatch++;
							if (!out.First) out.First = JSON.stringify({ f, l, a, z, i, got: [got.self[i], got.selfN[i]], want: [self[i], selfN[i]] });
						}
					}
				}
			}
			return out;
		})()`, &res)
		if res.Ranges == 0 || res.Blocks == 0 || res.Mismatch > 0 {
			t.Errorf("%s: %d ranges, %d blocks made, %d sums differ: %s", filepath.Base(page), res.Ranges, res.Blocks, res.Mismatch, res.First)
		}
	}
}
