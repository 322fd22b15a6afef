package stackfilter

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unsafe"

	"flamekit/pkg/filter/selection"
)

// cacheLimit is about how many bytes of stacks a Filter keeps in its
// caches (each distinct stack read, and what it became) before it empties
// them and starts again: the bound on its memory when an input has more
// distinct stacks than that.
const cacheLimit = 256 << 20

// Match bits of a frame name, one per per-frame option.
const (
	mFocus uint16 = 1 << iota
	mIgnore
	mHide
	mShow
	mShowFrom
	mRootAt
	mPruneFrom
)

// frameInfo is what the options say of one frame name.
type frameInfo struct {
	bits  uint16
	merge uint16 // 1 + index of the first merge rule that matches; 0: none
}

// result is what a stack becomes.
type result struct {
	out  string
	keep bool
	same bool // out is the stack itself
}

// rule is the expressions of one option: all is their alternation (what
// the filter runs), each the values alone, run on a frame that all
// matched until every value has matched once, to tell which values never
// matched.
type rule struct {
	option  string
	values  []string
	all     *regexp.Regexp
	each    []*regexp.Regexp
	matched []bool
	left    int
}

func newRule(option string, values []string) (*rule, error) {
	all, err := compileAny(option, values)
	if all == nil || err != nil {
		return nil, err
	}
	r := &rule{option: option, values: values, all: all, matched: make([]bool, len(values)), left: len(values)}
	for _, v := range values {
		r.each = append(r.each, regexp.MustCompile(v)) // compiled by compileAny
	}
	return r, nil
}

// match reports whether name matches one of the rule's expressions.
func (r *rule) match(name []byte) bool {
	if !r.all.Match(name) {
		return false
	}
	if r.left > 0 {
		for i, re := range r.each {
			if !r.matched[i] && re.Match(name) {
				r.matched[i] = true
				r.left--
			}
		}
	}
	return true
}

// Filter applies Options to stacks. It keeps what it computed per
// distinct stack and frame name, so it is not safe for concurrent use.
//
// The result of the steps depends only on the stack, so a Filter computes
// it once per distinct stack and keeps it; a regular expression runs once
// per distinct frame name. A line then costs one map look-up of its stack.
// Memory grows with the distinct stacks and is bounded: past cacheLimit
// bytes the cache is emptied and refilled.
type Filter struct {
	focus, ignore, hide, show, showFrom, rootAt, pruneFrom *rule
	merges                                                 []mergeRule
	mergeUsed                                              []bool
	collapse                                               bool
	perFrame                                               bool // an option looks at frames

	// The selection: fields (cpu, pid, tid) per line, comm per stack.
	fields      *selection.Selection
	comm        *regexp.Regexp
	commMatched bool

	frames map[string]frameInfo
	stacks map[string]result
	cached int // bytes in the caches, roughly
	limit  int // cacheLimit, smaller in tests

	// scratch, reused per stack
	names [][]byte
	infos []frameInfo
	kept  []int
	buf   []byte
}

// New compiles the options. The errors are *OptionError values.
func New(o Options) (*Filter, error) {
	f := &Filter{collapse: o.CollapseRecursion, limit: cacheLimit}
	var err error
	for _, r := range []struct {
		dst    **rule
		option string
		values []string
	}{
		{&f.focus, "focus", o.Focus}, {&f.ignore, "ignore", o.Ignore},
		{&f.hide, "hide", o.Hide}, {&f.show, "show", o.Show},
		{&f.showFrom, "show-from", o.ShowFrom}, {&f.rootAt, "root-at", o.RootAt},
		{&f.pruneFrom, "prune-from", o.PruneFrom},
	} {
		if *r.dst, err = newRule(r.option, r.values); err != nil {
			return nil, err
		}
	}
	for _, spec := range o.Merge {
		re, name, err := parseMerge(spec)
		if err != nil {
			return nil, err
		}
		f.merges = append(f.merges, mergeRule{re: re, name: name, spec: spec})
	}
	f.mergeUsed = make([]bool, len(f.merges))
	if !o.Select.Empty() {
		fields := *o.Select
		f.comm, fields.Comm = fields.Comm, nil
		if !fields.Empty() {
			f.fields = &fields
		}
	}
	f.perFrame = f.focus != nil || f.ignore != nil || f.hide != nil || f.show != nil ||
		f.showFrom != nil || f.rootAt != nil || f.pruneFrom != nil || len(f.merges) > 0 || f.collapse
	f.reset()
	return f, nil
}

// reset empties the caches.
func (f *Filter) reset() {
	f.frames = make(map[string]frameInfo)
	f.stacks = make(map[string]result)
	f.cached = 0
}

// Stack returns what stack becomes and whether it is kept at all. When
// the stack is unchanged, out is stack itself; otherwise out belongs to
// the Filter and must not be modified.
func (f *Filter) Stack(stack []byte) (out []byte, keep bool) {
	r, ok := f.stacks[string(stack)]
	if !ok {
		r = f.compute(stack)
		if f.cached > f.limit {
			f.reset()
		}
		f.stacks[string(stack)] = r
		f.cached += len(stack) + len(r.out) + 64
	}
	if r.same {
		return stack, r.keep
	}
	return unsafe.Slice(unsafe.StringData(r.out), len(r.out)), r.keep
}

// frame returns what the options say of a frame name.
func (f *Filter) frame(name []byte) frameInfo {
	if in, ok := f.frames[string(name)]; ok {
		return in
	}
	var in frameInfo
	for _, r := range []struct {
		rule *rule
		bit  uint16
	}{
		{f.focus, mFocus}, {f.ignore, mIgnore}, {f.hide, mHide}, {f.show, mShow},
		{f.showFrom, mShowFrom}, {f.rootAt, mRootAt},
	} {
		if r.rule != nil && r.rule.match(name) {
			in.bits |= r.bit
		}
	}
	if f.pruneFrom != nil && len(name) > 0 && f.pruneFrom.match([]byte(simplifyName(string(name)))) {
		in.bits |= mPruneFrom
	}
	for i, m := range f.merges {
		if m.re.Match(name) {
			in.merge = uint16(i + 1)
			f.mergeUsed[i] = true
			break
		}
	}
	f.frames[string(name)] = in
	f.cached += 2*len(name) + 32
	return in
}

// compute runs the steps on one stack.
func (f *Filter) compute(stack []byte) result {
	f.names = splitFrames(f.names[:0], stack)
	names := f.names
	if f.comm != nil {
		if !f.comm.Match(names[0]) {
			return result{}
		}
		f.commMatched = true
	}
	if !f.perFrame {
		return result{keep: true, same: true}
	}
	infos := f.infos[:0]
	for _, n := range names {
		infos = append(infos, f.frame(n))
	}
	f.infos = infos

	// 2. focus, ignore: on the frames as read.
	if f.focus != nil || f.ignore != nil {
		focused := false
		for _, in := range infos {
			if in.bits&mIgnore != 0 {
				return result{}
			}
			if f.focus == nil || in.bits&mFocus != 0 {
				focused = true
			}
		}
		if !focused {
			return result{}
		}
	}
	// 3. hide, show.
	kept := f.kept[:0]
	for i, in := range infos {
		if in.bits&mHide == 0 && (f.show == nil || in.bits&mShow != 0) {
			kept = append(kept, i)
		}
	}
	f.kept = kept
	if len(kept) == 0 {
		return result{}
	}
	// 4. cuts.
	if f.showFrom != nil {
		k := 0
		for k < len(kept) && infos[kept[k]].bits&mShowFrom == 0 {
			k++
		}
		if k == len(kept) {
			return result{}
		}
		kept = kept[k:]
	}
	if f.rootAt != nil {
		k := len(kept) - 1
		for k >= 0 && infos[kept[k]].bits&mRootAt == 0 {
			k--
		}
		if k < 0 {
			return result{}
		}
		kept = kept[k:]
	}
	if f.pruneFrom != nil {
		k := len(kept) - 1
		for k >= 0 && infos[kept[k]].bits&mPruneFrom == 0 {
			k--
		}
		if k >= 0 {
			kept = kept[:k+1]
		}
	}
	// 5. merge, collapse recursion.
	buf := f.buf[:0]
	var prev []byte
	var run uint16 // merge rule of the run of frames being merged
	n := 0
	for _, i := range kept {
		name := names[i]
		if m := infos[i].merge; m != 0 {
			if m == run {
				continue
			}
			run = m
			name = []byte(f.merges[m-1].name)
		} else {
			run = 0
		}
		if f.collapse && n > 0 && bytes.Equal(name, prev) {
			continue
		}
		if n > 0 {
			buf = append(buf, ';')
		}
		buf = append(buf, name...)
		prev = name
		n++
	}
	f.buf = buf
	if bytes.Equal(buf, stack) {
		return result{keep: true, same: true}
	}
	return result{out: string(buf), keep: true}
}

// splitFrames appends the frames of stack (split at ';') to dst.
func splitFrames(dst [][]byte, stack []byte) [][]byte {
	for {
		i := bytes.IndexByte(stack, ';')
		if i < 0 {
			return append(dst, stack)
		}
		dst = append(dst, stack[:i])
		stack = stack[i+1:]
	}
}

// Unmatched lists the option values that matched no frame (or, for
// --comm, no root frame) of the stacks filtered so far, as
// `--focus "RE"`: most often a typo.
func (f *Filter) Unmatched() []string {
	var out []string
	if f.comm != nil && !f.commMatched {
		out = append(out, fmt.Sprintf("--comm %q", f.comm.String()))
	}
	for _, r := range []*rule{f.focus, f.ignore, f.hide, f.show, f.showFrom, f.rootAt, f.pruneFrom} {
		if r == nil {
			continue
		}
		for i, v := range r.values {
			if !r.matched[i] {
				out = append(out, fmt.Sprintf("--%s %q", r.option, v))
			}
		}
	}
	for i, m := range f.merges {
		if !f.mergeUsed[i] {
			out = append(out, fmt.Sprintf("--merge %q", m.spec))
		}
	}
	return out
}

// reservedNames are the parenthesised parts of C++ names that pprof does
// not take for the start of an argument list.
var reservedNames = []string{"(anonymous namespace)", "operator()"}

// simplifyName cuts a function name before its argument list as pprof
// does before matching -prune_from: a leading '.' goes, and the name ends
// at the first '(' that does not start "(anonymous namespace)" or belong
// to "operator()". So Go's "net/http.(*Client).Do" becomes "net/http.".
func simplifyName(name string) string {
	name = strings.TrimPrefix(name, ".")
	for i := 0; i < len(name); {
		reserved := false
		for _, r := range reservedNames {
			if strings.HasPrefix(name[i:], r) {
				i += len(r)
				reserved = true
				break
			}
		}
		if reserved {
			continue
		}
		if name[i] == '(' {
			return name[:i]
		}
		i++
	}
	return name
}
