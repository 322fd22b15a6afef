package stackfilter

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/folded"
)

// parseSpec turns fuzz text into options: one "option=value" per line.
func parseSpec(spec string) Options {
	var o Options
	for _, line := range strings.Split(spec, "\n") {
		name, value, _ := strings.Cut(line, "=")
		switch name {
		case "focus":
			o.Focus = append(o.Focus, value)
		case "ignore":
			o.Ignore = append(o.Ignore, value)
		case "hide":
			o.Hide = append(o.Hide, value)
		case "show":
			o.Show = append(o.Show, value)
		case "show-from":
			o.ShowFrom = append(o.ShowFrom, value)
		case "root-at":
			o.RootAt = append(o.RootAt, value)
		case "prune-from":
			o.PruneFrom = append(o.PruneFrom, value)
		case "merge":
			o.Merge = append(o.Merge, value)
		case "collapse-recursion":
			o.CollapseRecursion = true
		case "comm":
			if re, err := regexp.Compile(value); err == nil {
				o.Select = &selection.Selection{Comm: re}
			}
		}
	}
	return o
}

// conserving reports whether the options never drop a stack, so that
// the totals written must be those read.
func conserving(o Options) bool {
	return len(o.Focus)+len(o.Ignore)+len(o.Hide)+len(o.Show)+len(o.ShowFrom)+len(o.RootAt) == 0 && o.Select.Empty()
}

// reference is the steps written plainly, one regular expression per
// value, no cache: what Filter.Stack must return.
func reference(o Options, stack string) (string, bool) {
	any := func(values []string, s string) bool {
		for _, v := range values {
			if regexp.MustCompile(v).MatchString(s) {
				return true
			}
		}
		return false
	}
	frames := strings.Split(stack, ";")
	if !o.Select.Empty() && !o.Select.Comm.MatchString(frames[0]) {
		return "", false
	}
	if len(o.Focus) > 0 && !slices.ContainsFunc(frames, func(f string) bool { return any(o.Focus, f) && !any(o.Ignore, f) }) {
		return "", false
	}
	if slices.ContainsFunc(frames, func(f string) bool { return any(o.Ignore, f) }) {
		return "", false
	}
	frames = slices.DeleteFunc(frames, func(f string) bool {
		return any(o.Hide, f) || len(o.Show) > 0 && !any(o.Show, f)
	})
	if len(frames) == 0 {
		return "", false
	}
	if len(o.ShowFrom) > 0 {
		i := slices.IndexFunc(frames, func(f string) bool { return any(o.ShowFrom, f) })
		if i < 0 {
			return "", false
		}
		frames = frames[i:]
	}
	if len(o.RootAt) > 0 {
		i := -1
		for j, f := range frames {
			if any(o.RootAt, f) {
				i = j
			}
		}
		if i < 0 {
			return "", false
		}
		frames = frames[i:]
	}
	if len(o.PruneFrom) > 0 {
		for j := len(frames) - 1; j >= 0; j-- {
			if frames[j] != "" && any(o.PruneFrom, simplifyName(frames[j])) {
				frames = frames[:j+1]
				break
			}
		}
	}
	var out []string
	lastRule := -1
	for _, f := range frames {
		rule := -1
		for k, spec := range o.Merge {
			re, name, _ := parseMerge(spec)
			if re.MatchString(f) {
				rule, f = k, name
				break
			}
		}
		if rule >= 0 && rule == lastRule {
			continue
		}
		lastRule = rule
		if o.CollapseRecursion && len(out) > 0 && out[len(out)-1] == f {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, ";"), true
}

// FuzzFilter: random options on random lines never panic, give what the
// plain reference gives, conserve totals where nothing is dropped, and
// write lines that read back as the same kinds with the same counts.
func FuzzFilter(f *testing.F) {
	lines := "a;b;c 10 @1.5\na;b;b;c 2\nx;main.(*T).run;y 1 2\n# flamekit v1 timed samples=\"1\"\n\njava-12/13;f;f 3 @2\n;; 4\n"
	for _, spec := range []string{
		"focus=b", "ignore=^c$", "hide=b\nshow=.", "show-from=b", "root-at=b", "prune-from=^main\\.$",
		"merge=^b$=B\ncollapse-recursion=", "comm=^java$\nhide=^$", "focus=(", "merge=a|b=M\nmerge=c",
	} {
		f.Add(spec, []byte(lines))
	}
	f.Fuzz(func(t *testing.T, spec string, data []byte) {
		o := parseSpec(spec)
		flt, err := New(o)
		if err != nil {
			return
		}
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		rd := folded.NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		st, err := flt.Copy(w, rd)
		if err != nil {
			t.Fatal(err)
		}
		w.Flush()

		// What Copy wrote, against the reference on what it read.
		var want []folded.Record
		rd = folded.NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		var in float64
		for rd.Next() {
			r := *rd.Record()
			in += r.Count
			s, keep := reference(o, string(r.Stack))
			if keep {
				if s != string(r.Stack) {
					e, _ := folded.AppendStack(nil, []byte(s), r.Kind)
					s = string(e)
				}
				r.Stack = []byte(s)
				want = append(want, r)
			}
		}
		back := folded.NewReader(bytes.NewReader(out.Bytes()), "out")
		i := 0
		var outSum float64
		for back.Next() {
			got := back.Record()
			outSum += got.Count
			if i >= len(want) {
				t.Fatalf("extra line %q", back.Text())
			}
			w := want[i]
			if !bytes.Equal(got.Stack, w.Stack) || got.Kind != w.Kind || got.Count != w.Count || got.Before != w.Before || got.Time != w.Time {
				t.Fatalf("line %d: got %q, want %q", i, back.Text(), folded.AppendRecord(nil, &w))
			}
			i++
		}
		if back.Err() != nil || i != len(want) {
			t.Fatalf("read back %d lines (err %v), want %d\n%s", i, back.Err(), len(want), out.Bytes())
		}
		if st.In != in || st.Out != outSum || st.Written != int64(len(want)) {
			t.Fatalf("stats %+v, want in %v out %v written %d", st, in, outSum, len(want))
		}
		if conserving(o) && (st.Out != st.In || st.Written != st.Lines) {
			t.Fatalf("%+v dropped samples: %+v", o, st)
		}
	})
}
