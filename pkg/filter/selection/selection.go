// Package selection picks samples by where they ran: their CPU, process,
// thread and command name, as timed folded lines carry them
// ("… @427.222093 cpu=1 pid=9164 tid=9165", the comm being the stack's
// first frame). timeslice's and stackfilter's --cpu, --pid, --tid and
// --comm, and the explorer page's filters of the same names, all mean what
// this package says.
package selection

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

// List is a set of ids given as "0-3,8,12": values and inclusive ranges,
// separated by commas. The zero List is empty and selects nothing; a nil
// *List in a Selection selects everything.
type List struct {
	ranges [][2]int64
	text   string
}

// ParseList parses a list of ids: comma-separated values and ranges
// ("0-3,8"). Ids are integers from -1 (perf's unknown thread) up.
func ParseList(s string) (*List, error) {
	l := &List{text: s}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty item in list %q (want ids and ranges such as 0-3,8)", s)
		}
		lo, hi, isRange := part, part, false
		if i := strings.IndexByte(part[1:], '-'); i >= 0 { // part[1:]: "-1" is an id
			lo, hi, isRange = part[:i+1], part[i+2:], true
		}
		a, err1 := strconv.ParseInt(lo, 10, 32)
		b, err2 := strconv.ParseInt(hi, 10, 32)
		if err1 != nil || err2 != nil || a < -1 || b < a {
			what := "id"
			if isRange {
				what = "range"
			}
			return nil, fmt.Errorf("bad %s %q in list %q (want ids and ranges such as 0-3,8)", what, part, s)
		}
		l.ranges = append(l.ranges, [2]int64{a, b})
	}
	return l, nil
}

// Has reports whether v is in the list.
func (l *List) Has(v int32) bool {
	for _, r := range l.ranges {
		if int64(v) >= r[0] && int64(v) <= r[1] {
			return true
		}
	}
	return false
}

// String returns the list as it was given.
func (l *List) String() string { return l.text }

// Selection picks samples. A nil field selects every sample on that
// account; the fields that are set must all match (and).
type Selection struct {
	CPU, PID, TID *List
	// Comm matches the stack's first frame: the command name, or
	// "comm-pid" and "comm-pid/tid" when stackcollapse ran with --pid or
	// --tid. It is unanchored, as pprof's regular expressions are.
	Comm *regexp.Regexp
}

// Empty reports whether s selects every sample.
func (s *Selection) Empty() bool {
	return s == nil || s.CPU == nil && s.PID == nil && s.TID == nil && s.Comm == nil
}

// Verdict is what a Selection says of one sample.
type Verdict uint8

// The verdicts of Match.
const (
	Keep    Verdict = iota // the sample is selected
	Drop                   // the sample is not selected
	Unknown                // the line does not carry a field the selection needs
)

// Match says whether rec is selected. A sample whose line lacks a field
// that the selection asks about (a classic line, or a timed line without
// cpu=) is Unknown, which callers drop and count: a selection by CPU
// cannot say where such a sample ran.
func (s *Selection) Match(rec *folded.Record) Verdict {
	if s.Empty() {
		return Keep
	}
	for _, f := range [...]struct {
		l   *List
		has folded.Has
		v   int32
	}{{s.CPU, folded.HasCPU, rec.CPU}, {s.PID, folded.HasPID, rec.PID}, {s.TID, folded.HasTID, rec.TID}} {
		if f.l == nil {
			continue
		}
		if rec.Has&f.has == 0 {
			return Unknown
		}
		if !f.l.Has(f.v) {
			return Drop
		}
	}
	if s.Comm != nil && !s.Comm.Match(stackComm(rec.Stack)) {
		return Drop
	}
	return Keep
}

// stackComm returns the first frame of a folded stack: the command name.
func stackComm(stack []byte) []byte {
	if i := bytes.IndexByte(stack, ';'); i >= 0 {
		return stack[:i]
	}
	return stack
}

// Flags returns the selection as command-line flags ("--cpu 0-3 --comm
// kubelet"), for a command that reproduces it.
func (s *Selection) Flags() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, f := range [...]struct {
		name string
		l    *List
	}{{"--cpu", s.CPU}, {"--pid", s.PID}, {"--tid", s.TID}} {
		if f.l != nil {
			out = append(out, f.name, f.l.String())
		}
	}
	if s.Comm != nil {
		out = append(out, "--comm", s.Comm.String())
	}
	return out
}

// Describe says in words what s selects ("CPU 0-3, comm kubelet"), for
// titles and messages; "" when it selects everything.
func (s *Selection) Describe() string {
	if s.Empty() {
		return ""
	}
	var parts []string
	for _, f := range [...]struct {
		name string
		l    *List
	}{{"CPU", s.CPU}, {"pid", s.PID}, {"tid", s.TID}} {
		if f.l != nil {
			parts = append(parts, f.name+" "+f.l.String())
		}
	}
	if s.Comm != nil {
		parts = append(parts, "comm "+s.Comm.String())
	}
	return strings.Join(parts, ", ")
}

// Missing returns the message for n samples that a selection could not
// judge because their lines lack a field it needs.
func (s *Selection) Missing(n int64) string {
	var need []string
	for _, f := range [...]struct {
		name string
		l    *List
	}{{"cpu=", s.CPU}, {"pid=", s.PID}, {"tid=", s.TID}} {
		if f.l != nil {
			need = append(need, f.name)
		}
	}
	return fmt.Sprintf("%d samples carry no %s field and were not selected: fold the capture again with this stackcollapse (perf.data gives cpu, pid and tid; perf script text gives the fields it prints, e.g. perf script -F +pid,+cpu)",
		n, strings.Join(need, " or "))
}

// Flags are the command-line flags that pick samples by where they ran,
// the same in every tool that has them: a command embeds them
// (`embed:""`), and their tags are its flags.
type Flags struct {
	CPU  string `name:"cpu" group:"Selection" help:"Keep only the samples of these CPUs: ids and ranges, e.g. 0-3,8 (the cpu= field of timed lines)." placeholder:"LIST"`
	PID  string `name:"pid" group:"Selection" help:"Keep only the samples of these processes (pid= field), e.g. 4242,4250-4260." placeholder:"LIST"`
	TID  string `name:"tid" group:"Selection" help:"Keep only the samples of these threads (tid= field)." placeholder:"LIST"`
	Comm string `name:"comm" group:"Selection" help:"Keep only the samples whose command name (the stack's first frame) matches this regular expression, e.g. ^kubelet$." placeholder:"RE"`
}

// Selection returns the selection the flags give (nil when none is set),
// or an error naming the flag that is wrong.
func (f *Flags) Selection() (*Selection, error) {
	var s Selection
	for _, l := range [...]struct {
		flag, text string
		dst        **List
	}{{"--cpu", f.CPU, &s.CPU}, {"--pid", f.PID, &s.PID}, {"--tid", f.TID, &s.TID}} {
		if l.text == "" {
			continue
		}
		list, err := ParseList(l.text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", l.flag, err)
		}
		*l.dst = list
	}
	if f.Comm != "" {
		re, err := regexp.Compile(f.Comm)
		if err != nil {
			return nil, fmt.Errorf("--comm: %v", err)
		}
		s.Comm = re
	}
	if s.Empty() {
		return nil, nil
	}
	return &s, nil
}
