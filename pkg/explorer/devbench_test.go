package explorer

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
)

// TestDevProfile (EXPLORER_PROFILE=1) times the page's functions on the
// scale page: a development aid.
func TestDevProfile(t *testing.T) {
	if os.Getenv("EXPLORER_PROFILE") == "" {
		t.Skip("EXPLORER_PROFILE not set")
	}
	recs := scaleRecords(t)
	tl := buildScale(t, recs)
	path := filepath.Join(t.TempDir(), "scale.html")
	f, _ := os.Create(path)
	bw := bufio.NewWriter(f)
	Write(bw, tl, Options{Files: []string{"scale.folded"}, NoIdle: true})
	bw.Flush()
	f.Close()
	br := newBrowser(t, 1400, 1000)
	br.open(t, "file://"+path)
	var out any
	br.Eval(t, `(() => {
		window.P = {};
		for (const name of ["applyFilters", "heatSeries", "drawHeat", "drawGraph", "flameGraph", "layoutTree", "sums", "totals", "saveFragment", "command", "status", "heatGeom", "legend", "drawOverview"]) {
			const f = window[name];
			window[name] = function () { const t0 = performance.now(); try { return f.apply(this, arguments); } finally { P[name] = (P[name] || 0) + performance.now() - t0; } };
		}
		const d = FlameView.prototype.draw;
		FlameView.prototype.draw = function () { const t0 = performance.now(); try { return d.apply(this, arguments); } finally { P.fdraw = (P.fdraw || 0) + performance.now() - t0; } };
		return true; })()`, &out)
	br.Eval(t, `flamekit.measure("select", 0, 120e9)`, &out)
	br.Eval(t, `(() => { const r = []; for (let i = 0; i < 5; i++) { const t0 = performance.now(); UI.flame.draw(); r.push(performance.now() - t0); } const m = UI.flame.match; UI.flame.match = null; const g = UI.flame.g; const lab = g.label; g.label = () => ""; const t0 = performance.now(); UI.flame.draw(); r.push("nolabels " + (performance.now() - t0)); g.label = lab; return r; })()`, &out)
	t.Logf("draws: %v", out)
	for _, js := range []string{`flamekit.measure("select", 60e9, 62e9)`, `flamekit.measure("select", 60e9, 62e9)`, `flamekit.measure("select", 0, 120e9)`, `flamekit.measure("filter", "bash")`, `flamekit.measure("filter", "")`} {
		br.Eval(t, `window.P = {}, true`, &out)
		var ms float64
		br.Eval(t, js, &ms)
		br.Eval(t, `P`, &out)
		t.Logf("%s: %.0f ms: %v", js, ms, out)
	}
}
