package explorer

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"flamekit/internal/browsertest"
)

// TestDevShot is a development aid: EXPLORER_PAGE=file.html [EXPLORER_JS=...]
// opens the page, runs the JS, prints console errors and writes a screenshot.
func TestDevShot(t *testing.T) {
	page := os.Getenv("EXPLORER_PAGE")
	if page == "" {
		t.Skip("EXPLORER_PAGE not set")
	}
	b := browsertest.NewSize(t, 1400, 1100)
	ctx, cancel := context.WithCancel(b.Ctx)
	msgs := chromedp.Console(ctx)
	b.Open(t, "file://"+page+os.Getenv("EXPLORER_HASH"))
	if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`window.flamekit ? flamekit.ready.then(() => true) : false`, chromedp.EvalAwaitPromise)); err != nil {
		t.Log(err)
	}
	if js := os.Getenv("EXPLORER_JS"); js != "" {
		var out any
		b.Eval(t, js, &out)
		t.Logf("js: %v", out)
	}
	buf, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(os.Getenv("EXPLORER_SHOT"), buf, 0o644)
	go func() { chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`console.log("end"), true`)) }()
	for m, err := range msgs {
		if err != nil {
			break
		}
		t.Logf("console: %s (line %d col %d)", m, m.Line, m.Column)
		if m.Text == "end" {
			break
		}
	}
	cancel()
}
