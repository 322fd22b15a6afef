package bursts

import (
	"os"
	"strings"
	"testing"
	"time"

	"flamekit/internal/night"
	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
)

func TestMain(m *testing.M) {
	code := m.Run()
	night.RemoveShared()
	os.Exit(code)
}

// TestNight: on a night of recorder windows (a real capture repeated,
// with its own burst taken out) with one planted two-second burst, the
// planted burst is the first one found, and its top stack is the
// burst's.
func TestNight(t *testing.T) {
	n, err := night.Shared(night.TestLength(), false)
	if err != nil {
		t.Fatal(err)
	}
	var s *Series
	var f idle.Filter
	fs := folded.NewFiles(n.Files, false)
	for fs.Next() {
		rec := fs.Record()
		if rec.Kind != folded.Timed {
			continue
		}
		if s == nil {
			s = NewSeries(rec.Time, 0)
		}
		if f.Is(rec.Stack) {
			s.Cover(rec.Time)
			continue
		}
		s.Add(rec.Time, rec.Count)
	}
	if err := fs.Err(); err != nil {
		t.Fatal(err)
	}
	res := s.Find(Options{})
	if len(res.Bursts) == 0 {
		t.Fatal("no burst")
	}
	b := res.Bursts[0]
	t.Logf("%d busy samples, %d seconds, median %.1f/s, scale %.2f/s; %d hot seconds; first burst %v to %v (%d samples, %.0f/s, z %.1f); planted %v to %v",
		s.Samples(), res.Seconds, res.Median, res.Scale, res.Hot, b.From, b.To, b.Samples, b.Rate, b.Score, n.BurstFrom, n.BurstTo)
	if b.From > n.BurstFrom || b.To <= n.BurstTo || b.To-b.From > folded.Time(2600*time.Millisecond) {
		t.Errorf("first burst %v to %v, the planted one %v to %v", b.From, b.To, n.BurstFrom, n.BurstTo)
	}
	if len(res.Bursts) > 1 && res.Bursts[1].Score > b.Score*0.8 {
		t.Errorf("the second burst scores %.1f, close to the planted one's %.1f", res.Bursts[1].Score, b.Score)
	}
	// The top stacks, from a second look at the window.
	ta := NewTally(res.Bursts[:1], res.Measure)
	fs = folded.NewFiles(n.Files, false)
	for fs.Next() {
		if rec := fs.Record(); rec.Kind == folded.Timed && rec.Time >= b.From && rec.Time < b.To && !f.Is(rec.Stack) {
			ta.Add(rec)
		}
	}
	exact := ta.Top(0, 3)
	t.Logf("top stack: %.3f %s", exact[0].Share, exact[0].Stack)
	if !strings.HasPrefix(exact[0].Stack, night.BurstComm+";") {
		t.Errorf("top stack %q, want the burst's", exact[0].Stack)
	}
	var burstShare float64
	for _, sh := range ta.Top(0, 1000) {
		if strings.HasPrefix(sh.Stack, night.BurstComm+";") {
			burstShare += sh.Share
		}
	}
	if burstShare < 0.9 {
		t.Errorf("the burst's stacks are %.2f of the window", burstShare)
	}
}
