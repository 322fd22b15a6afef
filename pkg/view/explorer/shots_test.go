package explorer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// The pictures of docs/explorer.md, at the window sizes of issue 29, made
// with -update-screenshot: the burst capture with the burst selected and
// compared with a quiet range, and the saturated capture as it opens
// (the change map pointing at kubelet_burst), and the burst's flame chart.
func TestScreenshots(t *testing.T) {
	if !*updateShot {
		t.Skip("pictures are made with -update-screenshot")
	}
	dir := t.TempDir()
	page := func(name, args string) string {
		out := filepath.Join(shared, name)
		shell(t, "timeslice -q --heatmap=html "+args+" > "+out)
		html, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// the files named as in the docs
		html = bytes.ReplaceAll(html, []byte(shared+"/"), nil)
		abs, _ := filepath.Abs("../../../testdata/perf")
		html = bytes.ReplaceAll(html, []byte(abs+"/"), nil)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, html, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := foldedFile(t, "burst")
	burst := page("burst.html", "--no-idle "+in)
	capture, _ := filepath.Abs("../../../testdata/perf/saturated.folded.gz")
	busy := page("saturated.html", capture)
	for _, s := range []struct {
		file, page, frag string
		w, h             int
	}{
		{"explorer-1280x800.png", burst, "from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&no-idle", 1280, 800},
		{"explorer-1920x1080.png", burst, "from=13.8s&to=15.8s&no-idle&search=burst_spin", 1920, 1080},
		{"explorer-busy.png", busy, "", 1400, 1000},
		{"explorer.png", burst, "from=9.6s&to=16s&no-idle&search=burst_spin", 1280, 900},
		// the flame chart, scrolled to the graph: a lane per thread
		{"explorer-chart-1280x800.png", burst, "from=13.8s&to=15.8s&no-idle&view=chart", 1280, 800},
	} {
		b := newBrowser(t, s.w, s.h)
		b.open(t, "file://"+s.page+"#"+s.frag)
		if s.file == "explorer-chart-1280x800.png" {
			b.Eval(t, `(() => { document.getElementById("graph-head").scrollIntoView(); return new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true), 50))); })()`, nil)
		}
		shoot := chromedp.CaptureScreenshot()
		if s.file == "explorer.png" {
			shoot = chromedp.FullScreenshot(100)
		}
		shot, err := chromedp.Run(b.Ctx, shoot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("../../../docs", s.file), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
