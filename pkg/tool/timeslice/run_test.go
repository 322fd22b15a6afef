package timeslice

import (
	"errors"
	"flamekit/pkg/tool"
	"strings"
	"testing"
)

// Run is timeslice without its command line: a window, standard input
// from a reader, the slice on a writer, the summary through Warn.
func TestRun(t *testing.T) {
	in := "# flamekit: host=h\n" +
		"a;x 1 @10.0\n" +
		"a;y 1 @11.5\n" +
		"b;z 2 @12.2\n" +
		"a;x 1 @13.0\n"
	sp, has, err := ParseWindow("", "1s", "3s")
	if err != nil || !has {
		t.Fatal(err)
	}
	var out strings.Builder
	var warns []string
	env := &tool.Env{Stdin: strings.NewReader(in), Stdout: &out, Warn: func(m string) { warns = append(warns, m) }}
	if err := Run(Config{Window: sp, HasWindow: true, Rows: 50, Top: 10, Threshold: 3.5}, env); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "a;y 1\nb;z 2\n"; got != want {
		t.Errorf("slice %q, want %q", got, want)
	}
	if all := strings.Join(warns, "\n"); !strings.Contains(all, "2 samples in the window") {
		t.Errorf("summary:\n%s", all)
	}
}

// Options that do not go together are a tool.UsageError.
func TestRunUsage(t *testing.T) {
	env := &tool.Env{Stdin: strings.NewReader(""), Stdout: &strings.Builder{}}
	for _, cfg := range []Config{
		{Rows: 0, Top: 1, Threshold: 1},
		{Rows: 50, Top: 1, Threshold: 1, Heatmap: HeatmapSVG, KeepTime: true},
		{Rows: 50, Top: 1, Threshold: 1, Bursts: true, Format: OutputPprof},
		{Rows: 50, Top: 1, Threshold: 1, Format: "xml"},
		{Rows: 50, Top: 1, Threshold: 1, Push: "http://localhost:4040"},
	} {
		var ue *tool.UsageError
		if err := Run(cfg, env); !errors.As(err, &ue) {
			t.Errorf("%+v: %v, want a tool.UsageError", cfg, err)
		}
	}
	if _, _, err := ParseWindow("70s±2", "1s", ""); !errors.As(err, new(*tool.UsageError)) {
		t.Errorf("--at with --from: %v", err)
	}
}
