package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The documents' commands, run literally. Every fenced block marked ```sh in
// README.md and docs/*.md (and the files listed in FLAMEKIT_E2E_DOCS,
// separated by commas) is a sequence of commands a user types; output is
// shown in ```text blocks, which are not run. The blocks of one document run
// in order, in one directory (a user following the document), with
// bash -e -o pipefail; that directory is a copy of the repository plus the
// files the documents use (see docDir). Every SVG a block writes must parse.
// Skipped, with a message:
//   - blocks that record with perf or need root (perf record,
//     perf-timetravel, sudo), unless FLAMEKIT_E2E_REAL_PERF=1;
//   - blocks that install from the network (go install, git clone);
//   - blocks that run make test, which runs these tests;
//   - blocks right after a line <!-- e2e: skip REASON -->.

type block struct {
	doc   string
	line  int // of the opening fence
	text  string
	skip  string // why it is not run, or ""
	needs string // "perf" when it needs the real perf and root
}

var fenceRE = regexp.MustCompile("^```+\\s*([A-Za-z0-9_-]*)")

// needsPerfRE finds perf record, perf-timetravel and sudo where a command
// starts (not, say, in a grep pattern).
var needsPerfRE = regexp.MustCompile(`(?m)(^|[;&|(]|\bsudo)\s*(perf\s+(sched\s+)?record\b|perf\s+probe\b|(\S*/)?perf-timetravel\b|sudo\b)`)

var skipRE = regexp.MustCompile(`^<!--\s*e2e:\s*skip\b\s*(.*?)\s*-->\s*$`)

// shBlocks returns the ```sh blocks of a markdown document.
func shBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []block
	var cur *block
	fence := ""
	skipNext := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur == nil && fence == "" {
			if m := skipRE.FindStringSubmatch(trimmed); m != nil {
				skipNext = m[1]
				if skipNext == "" {
					skipNext = "marked <!-- e2e: skip -->"
				}
				continue
			}
			if m := fenceRE.FindStringSubmatch(trimmed); m != nil {
				fence = strings.Repeat("`", len(trimmed)-len(strings.TrimLeft(trimmed, "`")))
				if m[1] == "sh" {
					cur = &block{doc: filepath.Base(path), line: n, skip: skipNext}
				}
				skipNext = ""
				continue
			}
			if trimmed != "" {
				skipNext = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "" {
			if cur != nil {
				blocks = append(blocks, *cur)
			}
			cur, fence = nil, ""
			continue
		}
		if cur != nil {
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if fence != "" {
		t.Errorf("%s: a code fence is not closed", path)
	}
	for i := range blocks {
		b := &blocks[i]
		switch {
		case needsPerfRE.MatchString(b.text):
			b.needs = "perf"
		case regexp.MustCompile(`\bgo\s+(install|get)\b|\bgit\s+clone\b|\bcurl\b|\bwget\b`).MatchString(b.text):
			if b.skip == "" {
				b.skip = "installs from the network"
			}
		case regexp.MustCompile(`\bmake\s+(.*\s)?test\b`).MatchString(b.text):
			if b.skip == "" {
				b.skip = "runs make test, which runs these tests (put make demo in a block of its own to have it run)"
			}
		}
	}
	return blocks
}

// docs are the documents whose blocks are run.
func docs() []string {
	var out []string
	if _, err := os.Stat(filepath.Join(root, "README.md")); err == nil {
		out = append(out, filepath.Join(root, "README.md"))
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	out = append(out, pages...)
	for _, p := range strings.Split(os.Getenv("FLAMEKIT_E2E_DOCS"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// docDir makes the directory a document's blocks run in: a copy of the
// repository (without .git, bin/ and out/), as after git clone, plus the
// files a user following the README has at hand:
//
//	perf.data             the 2-minute time-travel window, with a 2 s burst
//	                      about 70 s in (the perf stand-in prints it; the
//	                      dmesg stand-in prints its kernel log lines)
//	burst.data, before.data, after.data   other real captures (testdata/perf)
//	offcpu.data, sched.data, hotcold.data, malloc.data, block.data,
//	faults.data           the captures of "Off-CPU time and other events":
//	                      offcpu, hotcold, malloc, block and mixed-events
//	out.folded, before.folded, after.folded   their stackcollapse output
//	tt/                   a perf-timetravel directory: the same window as
//	                      perf-HOST-DATE-120s.data and .folded.gz
func docDir(t *testing.T) string {
	t.Helper()
	need(t, "stackcollapse")
	dir := t.TempDir()
	ok(t, dir, fmt.Sprintf("tar -C %q --exclude=./.git --exclude=./bin --exclude=./out --exclude='*.log' -cf - . | tar -xf -", root))
	tt := filepath.Join(dir, "tt")
	if err := os.Mkdir(tt, 0o755); err != nil {
		t.Fatal(err)
	}
	capture := travelWindow(t)
	window := strings.TrimSuffix(filepath.Base(capture), ".txt.gz")
	link(t, capture, filepath.Join(dir, "perf.data"))
	link(t, capture, filepath.Join(tt, window+".data"))
	link(t, bundled("burst"), filepath.Join(dir, "burst.data"))
	link(t, bundled("before"), filepath.Join(dir, "before.data"))
	link(t, bundled("after"), filepath.Join(dir, "after.data"))
	for data, capture := range map[string]string{"offcpu": "offcpu", "sched": "offcpu", "hotcold": "hotcold",
		"malloc": "malloc", "block": "block", "faults": "mixed-events"} {
		link(t, bundled(capture), filepath.Join(dir, data+".data"))
	}
	ok(t, dir, `perf script --header -i tt/`+window+`.data | stackcollapse | gzip > tt/`+window+`.folded.gz
		perf script -i perf.data | stackcollapse > out.folded
		perf script -i before.data | stackcollapse > before.folded
		perf script -i after.data | stackcollapse > after.folded`)
	return dir
}

// TestDocumentedCommands runs the ```sh blocks of the README (see above).
func TestDocumentedCommands(t *testing.T) {
	paths := docs()
	if len(paths) == 0 {
		t.Skip("no README.md yet: the developer guide's pipelines are run by TestPipeline*")
	}
	realPerfOK := os.Getenv("FLAMEKIT_E2E_REAL_PERF") == "1"
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			blocks := shBlocks(t, path)
			if len(blocks) == 0 {
				if filepath.Base(path) == "README.md" {
					t.Fatalf("%s has no ```sh blocks: its commands would go untested", path)
				}
				t.Skipf("%s has no ```sh blocks", path)
			}
			need(t)
			dir := docDir(t)
			for _, b := range blocks {
				t.Run(fmt.Sprintf("line %d", b.line), func(t *testing.T) {
					switch {
					case b.skip != "":
						t.Skipf("%s:%d: %s", b.doc, b.line, b.skip)
					case b.needs == "perf" && !realPerfOK:
						t.Skipf("%s:%d records with perf or needs root; set FLAMEKIT_E2E_REAL_PERF=1 to run it (as root, with perf)", b.doc, b.line)
					}
					env := []string{"BENCH_MB=8", "BENCH_RECORD=0"}
					if b.needs == "perf" {
						env = append(env, "PATH="+sudoShim(t)+binDir+string(os.PathListSeparator)+basePath)
					}
					start := time.Now().Add(-time.Second)
					script := "trap 'echo \"e2e: failed: $BASH_COMMAND\" >&2' ERR\nset -e\n" + b.text
					r := sh(t, dir, script, env...)
					if r.code != 0 {
						t.Fatalf("%s:%d: the block failed (exit status %d, pipeline %s):\n%s\nstderr:\n%s",
							b.doc, b.line, r.code, r.pipe, b.text, clip(r.stderr, 3000))
					}
					checkNewSVGs(t, dir, start)
				})
			}
		})
	}
}

// sudoShim returns "DIR:" where DIR holds a sudo that just runs its
// command, when we are root and there is no sudo (containers), else "".
func sudoShim(t *testing.T) string {
	if _, err := exec.LookPath("sudo"); err == nil || os.Geteuid() != 0 {
		return ""
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sudo"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator)
}

// checkNewSVGs parses every SVG written in dir (and below) since start.
func checkNewSVGs(t *testing.T, dir string, start time.Time) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "scripts" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".svg") {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(start) {
			parseSVG(t, readFile(t, path))
		}
		return nil
	})
}

// TestShBlocks checks the markdown reading on a small document.
func TestShBlocks(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.md")
	text := "# Title\n\n```sh\nperf script | stackcollapse | flamegraph > out.svg\n```\n\n" +
		"```text\nnot a command\n```\n\n<!-- e2e: skip needs a GPU -->\n```sh\nnvidia-smi\n```\n\n" +
		"````sh\n```\nsudo perf record -a -g -- sleep 5\n````\n\n```sh\ngo install flamekit/cmd/...@latest\n```\n" +
		"```sh\nmake demo\nmake test\n```\n" +
		"```sh\ndmesg | grep -e perf-timetravel\nx && scripts/perf-timetravel -w 1\n```\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := shBlocks(t, doc)
	want := []block{
		{doc: "doc.md", line: 3, text: "perf script | stackcollapse | flamegraph > out.svg\n"},
		{doc: "doc.md", line: 12, text: "nvidia-smi\n", skip: "needs a GPU"},
		{doc: "doc.md", line: 16, text: "```\nsudo perf record -a -g -- sleep 5\n", needs: "perf"},
		{doc: "doc.md", line: 21, text: "go install flamekit/cmd/...@latest\n", skip: "installs from the network"},
		{doc: "doc.md", line: 24, text: "make demo\nmake test\n", skip: "runs make test, which runs these tests (put make demo in a block of its own to have it run)"},
		{doc: "doc.md", line: 28, text: "dmesg | grep -e perf-timetravel\nx && scripts/perf-timetravel -w 1\n", needs: "perf"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
