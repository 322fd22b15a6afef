package explorer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"flamekit/internal/testkit/browsertest"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

var shared string // a directory for what the tests share, removed at the end

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "explorer-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// collapse folds a real capture with stackcollapse's library: timed lines
// with cpu= and tid=, one per sample.
func collapse(t testing.TB, name string) []byte { return testcapture.Fold(t, name) }

// foldedFile writes a capture's timed folded lines into the shared
// directory and returns its path.
func foldedFile(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(shared, name+".folded")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.WriteFile(path, collapse(t, name), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds the commands the page's command lines name and returns
// their directory; stackfilter only when this tree has it.
func binaries(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		os.Setenv("FLAMEKIT_CACHE", "off") // the tools run here write no cache
		binDir = filepath.Join(shared, "bin")
		pkgs := []string{"../../../cmd/timeslice", "../../../cmd/flamegraph", "../../../cmd/difffolded", "../../../cmd/stacktop"}
		if _, err := os.Stat("../../../cmd/stackfilter"); err == nil {
			pkgs = append(pkgs, "../../../cmd/stackfilter")
		}
		cmd := exec.Command("go", append([]string{"build", "-o", binDir + "/"}, pkgs...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
		if _, err := os.Stat("../../../cmd/stackfilter"); err != nil && os.Getenv("FLAMEKIT_STACKFILTER") != "" {
			sf := os.Getenv("FLAMEKIT_STACKFILTER")
			// a stackfilter built elsewhere, while this tree has none
			if b, err := os.ReadFile(sf); err == nil {
				os.WriteFile(filepath.Join(binDir, "stackfilter"), b, 0o755)
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// hasStackfilter reports whether this tree has the stackfilter command
// (or FLAMEKIT_STACKFILTER names one built elsewhere).
func hasStackfilter() bool {
	_, err := os.Stat("../../../cmd/stackfilter")
	return err == nil || os.Getenv("FLAMEKIT_STACKFILTER") != ""
}

// shell runs a command line with bash, the built commands first in PATH,
// in the shared directory, and returns its standard output.
func shell(t testing.TB, line string) []byte {
	t.Helper()
	cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
	cmd.Dir = shared
	cmd.Env = append(os.Environ(), "PATH="+binaries(t)+":"+os.Getenv("PATH"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, stderr.Bytes())
	}
	return out
}

// pageFile writes the page of a timeline and returns its path.
func pageFile(t testing.TB, name string, tl *timeline.Timeline, o Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b bytes.Buffer
	if _, err := Write(&b, tl, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// browser is a headless Chromium that fails the test on any uncaught
// exception of the page.
type browser struct {
	*browsertest.Browser
	mu     sync.Mutex
	errors []string
}

func newBrowser(t testing.TB, w, h int) *browser {
	b := &browser{Browser: browsertest.NewSize(t, w, h)}
	ctx, cancel := context.WithCancel(b.Ctx)
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" && !strings.Contains(m.Text, "favicon") {
				b.mu.Lock()
				b.errors = append(b.errors, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errors {
			t.Errorf("page error: %s", e)
		}
	})
	return b
}

// open loads a page and waits until it has unpacked its profile and drawn
// everything (the tracks come after the map and the graph).
func (b *browser) open(t testing.TB, url string) {
	t.Helper()
	b.Open(t, url)
	var ok bool
	b.Eval(t, `flamekit.ready.then(() => flamekit.settled())`, &ok)
}

func (b *browser) text(t testing.TB, id string) string {
	t.Helper()
	var s string
	b.Eval(t, fmt.Sprintf(`document.getElementById(%q).textContent`, id), &s)
	return s
}

// download clicks a save link like a user and reads what it points to.
func (b *browser) download(t testing.TB, id string) string {
	t.Helper()
	var s string
	b.Eval(t, fmt.Sprintf(`(() => { const a = document.getElementById(%q); a.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true}));
		return fetch(a.href).then(r => r.text()); })()`, id), &s)
	return s
}

// readTimeline builds the timeline of one folded stream, read leniently.
func readTimeline(r io.Reader, name string, o timeline.Options) (*timeline.Timeline, folded.Skips, error) {
	b := timeline.NewBuilder(o)
	in := b.Input(name, "", 0)
	rd := folded.NewReader(r, name)
	rd.Lenient = true
	for rec := range rd.All() {
		if err := b.Add(rec); err != nil {
			return nil, rd.Skips(), err
		}
	}
	if err := rd.Err(); err != nil {
		return nil, rd.Skips(), err
	}
	b.SetMetas(in, rd.Meta())
	return b.Build(), rd.Skips(), nil
}
