package main

import (
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestFlameGraphVertx runs FlameGraph's own test input
// test/perf-vertx-stacks-01.txt (a Java vert.x server profiled through
// perf-map-agent, whose frames carry JVM descriptors such as
// "Lio/netty/channel/nio/NioEventLoop;.run()V") with every flag set its
// test/results cover, and compares with stackcollapse-perf.pl's output
// (see testdata/perf/README.md): the descriptors are cut as Perl cuts
// them ("io/netty/channel/nio/NioEventLoop:.run").
func TestFlameGraphVertx(t *testing.T) {
	const dir = "../../testdata/perf/perl/flamegraph/"
	input := readFile(t, dir+"perf-vertx-stacks-01.txt.gz")
	for _, flag := range []string{"none", "pid", "tid", "kernel", "jit", "all", "addrs"} {
		t.Run(flag, func(t *testing.T) {
			args := []string{"--no-time"}
			if flag != "none" {
				args = append(args, "--"+flag)
			}
			want := string(readFile(t, dir+"perf-vertx-stacks-01.collapsed-"+flag+".txt.gz"))
			code, out, errb := run(t, input, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			// The file does not end with a blank line: Perl drops its
			// last sample, flamekit keeps it (a deliberate difference;
			// Perl prints the same bytes as flamekit once the file ends
			// with one). Without that line, the outputs are the same.
			const last = ";skb_release_data.part.45" // its leaf, "_[k]" after it with --kernel
			lines := strings.SplitAfter(out, "\n")
			i := slices.IndexFunc(lines, func(l string) bool {
				return strings.Contains(l, last) && strings.HasSuffix(l, " 1\n") && strings.Contains(l, "AbstractChannelHandlerContext:.fireChannelReadComplete")
			})
			if i < 0 {
				t.Fatalf("the last sample (leaf %q) is missing", last)
			}
			if got := strings.Join(slices.Delete(lines, i, i+1), ""); got != want {
				t.Errorf("differs from stackcollapse-perf.pl:\n%s", golden.Diff([]byte(want), []byte(got)))
			}
		})
	}
}
