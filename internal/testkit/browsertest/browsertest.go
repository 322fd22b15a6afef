// Package browsertest runs a headless Chromium for the tests and
// benchmarks of the SVG drawings (the heat map's overview, stretches and
// selection), through chromedp. Only tests import it. A test without a
// Chromium is skipped, saying what is missing.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of a local Chromium, or skips the test.
func Chromium(t testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping browser test: no chromium in PATH (Debian: apt-get install chromium)")
	return ""
}

// Browser is a headless Chromium with a fresh profile and no network.
// JavaScript dialogs (alert, prompt) are recorded and answered.
type Browser struct {
	Ctx context.Context

	mu      sync.Mutex
	dialogs []string
	answer  string
}

// New starts a headless Chromium with a 1400×1300 window, stopped when the
// test ends.
func New(t testing.TB) *Browser { return NewSize(t, 1400, 1300) }

// NewSize is New with a window of w×h CSS pixels.
func NewSize(t testing.TB, w, h int) *Browser {
	exe := Chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(w, h),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	b := &Browser{Ctx: ctx}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, string(ev.Type)+": "+ev.Message)
			answer := b.answer
			b.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog,
				page.HandleJavaScriptDialogParams{Accept: true, PromptText: answer})
		}
	}()
	return b
}

// SetAnswer sets the text the next prompt dialogs are answered with.
func (b *Browser) SetAnswer(s string) {
	b.mu.Lock()
	b.answer = s
	b.mu.Unlock()
}

// Dialogs returns how many dialogs the page has opened.
func (b *Browser) Dialogs() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.dialogs)
}

// Evaluate evaluates JavaScript (awaiting a promise) and returns its value.
func Evaluate[T any](t testing.TB, b *Browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%v\nin: %s", err, js)
	}
	return v
}

// Do runs actions, failing the test on error.
func (b *Browser) Do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.Ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates JavaScript (awaiting a promise) and decodes its JSON
// value into out.
func (b *Browser) Eval(t testing.TB, js string, out any) {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%v\nin: %s", err, js)
	}
	if out != nil {
		if err := json.Unmarshal(v, out); err != nil {
			t.Fatalf("%v: %s", err, v)
		}
	}
}

// nextPaint is a promise that resolves after the next painted frame.
const nextPaint = `new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))`

// Open navigates to url and returns how long the page took to load and
// paint.
func (b *Browser) Open(t testing.TB, url string) time.Duration {
	t.Helper()
	start := time.Now()
	b.Do(t, chromedp.Navigate(url))
	b.Eval(t, nextPaint+`.then(() => true)`, nil)
	return time.Since(start)
}

// Click clicks at (x, y) in CSS pixels of the page and returns how long it
// took until the next painted frame.
func (b *Browser) Click(t testing.TB, x, y float64) time.Duration {
	t.Helper()
	start := time.Now()
	b.Do(t, chromedp.MouseClickXY(x, y))
	b.Eval(t, nextPaint+`.then(() => true)`, nil)
	return time.Since(start)
}

// Center returns the centre, in page pixels, of the point (x, y) of the
// SVG's user space.
func (b *Browser) Center(t testing.TB, x, y float64) (float64, float64) {
	t.Helper()
	var p [2]float64
	b.Eval(t, fmt.Sprintf(`(() => { const s = document.documentElement, pt = s.createSVGPoint(); pt.x = %g; pt.y = %g;
		const q = pt.matrixTransform(s.getScreenCTM()); return [q.x, q.y]; })()`, x, y), &p)
	return p[0], p[1]
}
