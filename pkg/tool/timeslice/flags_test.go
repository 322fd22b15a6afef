package timeslice

import (
	"errors"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"flamekit/pkg/tool"
	"flamekit/pkg/view/heatmap"
)

// parseFlags parses args as a command embedding Flags does.
func parseFlags(t *testing.T, args ...string) (*Flags, error) {
	t.Helper()
	var cmd struct {
		Flags `embed:""`
	}
	p, err := kong.New(&cmd, kong.Vars(cmd.Defaults()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse(args)
	return &cmd.Flags, err
}

// --heatmap takes an optional value: alone it is the SVG.
func TestHeatmapFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Heatmap
		err  string
	}{
		{nil, NoHeatmap, ""},
		{[]string{"--heatmap"}, HeatmapSVG, ""},
		{[]string{"--heatmap", "f.folded"}, HeatmapSVG, ""},
		{[]string{"--heatmap=text"}, HeatmapText, ""},
		{[]string{"--heatmap=HTML"}, HeatmapHTML, ""},
		{[]string{"--heatmap=svg"}, HeatmapSVG, ""},
		{[]string{"--heatmap=png"}, NoHeatmap, `--heatmap: "png": want --heatmap (SVG), --heatmap=text or --heatmap=html`},
	} {
		f, err := parseFlags(t, tc.args...)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case f.Heatmap != tc.want:
			t.Errorf("%q: %v, want %v", tc.args, f.Heatmap, tc.want)
		}
	}
}

// Config names the flag whose value is wrong, as a usage error.
func TestFlagsConfig(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--share-comm", "("}, "--share-comm"},
		{[]string{"--share-focus", "[a"}, "--share-focus"},
		{[]string{"--cpu", "x"}, "--cpu"},
		{[]string{"--at", "70s±2", "--from", "1s"}, "give either --at or --from/--to"},
	} {
		f, err := parseFlags(t, tc.args...)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		_, err = f.Config()
		if !errors.As(err, new(*tool.UsageError)) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want a usage error naming %s", tc.args, err, tc.err)
		}
	}
	f, err := parseFlags(t, "--heatmap=text", "--from", "1s", "--to", "2s", "in.folded")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil || cfg.Heatmap != HeatmapText || !cfg.HasWindow || len(cfg.Files) != 1 || cfg.Rows != heatmap.DefaultRows {
		t.Errorf("config %+v, %v", cfg, err)
	}
}
