package stackcollapse

import (
	"errors"
	"flamekit/pkg/tool"
	"strings"
	"testing"
	"time"
)

// perf script text of two samples, the second of another thread.
const script = `app 100/101 [002] 10.000001: 1000 cpu-clock:pppH:
	ffffffff81000001 work+0x1 (/usr/bin/app)
	ffffffff81000002 main+0x2 (/usr/bin/app)

app 100/102 [003] 10.500000: 1000 cpu-clock:pppH:
	ffffffff81000001 work+0x1 (/usr/bin/app)
	ffffffff81000002 main+0x2 (/usr/bin/app)

`

// Run is stackcollapse without its command line: standard input from a
// reader, the folded stacks on a writer, the messages through Warn.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{NoTime: true}, "app;main;work 2000\n"},
		{Config{NoTime: true, TID: true}, "app-100/101;main;work 1000\napp-100/102;main;work 1000\n"},
		{Config{}, "app;main;work 1000 @10.000001 cpu=2 pid=100 tid=101\napp;main;work 1000 @10.500000 cpu=3 pid=100 tid=102\n"},
	} {
		var out strings.Builder
		var warns []string
		env := &tool.Env{Stdin: strings.NewReader(script), Stdout: &out, Warn: func(m string) { warns = append(warns, m) }}
		if err := Run(tc.cfg, env); err != nil {
			t.Fatalf("%+v: %v", tc.cfg, err)
		}
		got := out.String()
		if tc.cfg.NoTime {
			if got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.cfg, got, tc.want)
			}
			continue
		}
		var lines []string
		for _, l := range strings.Split(got, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l+"\n")
			}
		}
		if strings.Join(lines, "") != tc.want || !strings.HasPrefix(got, "# flamekit v1 timed") {
			t.Errorf("%+v:\n%s\nwant the lines\n%s", tc.cfg, got, tc.want)
		}
	}
}

// Options that do not go together, or values that do not read, are a
// tool.UsageError naming the flag.
func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		flag string
	}{
		{Config{MinBlock: Block(5 * time.Millisecond)}, "--min-block"},
		{Config{OffCPU: true, MaxBlock: -1}, "--max-block"},
		{Config{RefWall: "2026-11-22T02:56:25Z"}, "--ref-perf"},
		{Config{RefWall: "yesterday", RefPerf: "12.5"}, "--ref-wall"},
		{Config{Jobs: -1}, "--jobs"},
		{Config{Format: "xml"}, "xml"},
		{Config{Files: []string{"-", "-"}}, "-"},
	} {
		env := &tool.Env{Stdin: strings.NewReader(script), Stdout: &strings.Builder{}}
		var ue *tool.UsageError
		err := Run(tc.cfg, env)
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%+v: %v, want a tool.UsageError naming %s", tc.cfg, err, tc.flag)
		}
	}
}

// The blocking thresholds read microseconds or durations.
func TestBlockText(t *testing.T) {
	for v, want := range map[string]string{"0": "0s", "1000": "1ms", "2.5": "2.5µs", "500us": "500µs", "1s": "1s"} {
		var b Block
		if err := b.UnmarshalText([]byte(v)); err != nil || b.String() != want {
			t.Errorf("%q: %v %v, want %s", v, b, err, want)
		}
	}
	for _, v := range []string{"", "-1", "-2ms", "x", "inf", "1e300"} {
		var b Block
		if err := b.UnmarshalText([]byte(v)); err == nil || !strings.Contains(err.Error(), "want microseconds") {
			t.Errorf("%q: %v, want an error saying what is allowed", v, err)
		}
	}
}
