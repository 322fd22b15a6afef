package idle_test

import (
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/filter/idle"
	"strings"
	"testing"
)

// TestRealCapture classifies the stacks of a real system-wide capture (2
// vCPUs, mostly idle, stackcollapse-perf.pl output): idle must be most of
// it, only swapper stacks may be idle, and the softirq work seen on the
// idle CPUs must be kept.
func TestRealCapture(t *testing.T) {
	var idleN, busy, irqOnIdle float64
	for rec := range testcapture.Records(t, "../../../testdata/perf/perl/burst.collapsed-none.txt.gz") {
		st := string(rec.Stack)
		if idle.Is(rec.Stack) {
			idleN += rec.Count
			if !strings.HasPrefix(st, "swapper;") {
				t.Errorf("non-swapper stack classified idle: %s", st)
			}
			continue
		}
		busy += rec.Count
		if strings.HasPrefix(st, "swapper;") && strings.Contains(st, "handle_softirqs") {
			irqOnIdle += rec.Count
		}
	}
	if share := idleN / (idleN + busy); share < 0.5 || share > 0.95 {
		t.Errorf("idle share %.2f, want most of a mostly idle capture but not all of it", share)
	}
	if irqOnIdle == 0 {
		t.Error("no softirq work on idle CPUs kept; the capture has some")
	}
}
