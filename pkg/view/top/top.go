package top

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"flamekit/pkg/folded"
)

// By says what the rows of a table are.
type By int

// What a table ranks.
const (
	ByFunction By = iota // each frame name
	ByModule             // the module of each frame (ModuleOf)
	ByComm               // the root frame: comm, comm-PID or comm-PID/TID
)

// String returns the name the command line uses.
func (b By) String() string {
	switch b {
	case ByModule:
		return "module"
	case ByComm:
		return "comm"
	}
	return "function"
}

// ParseBy parses "function", "module" or "comm".
func ParseBy(s string) (By, error) {
	for _, b := range []By{ByFunction, ByModule, ByComm} {
		if s == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown ranking %q: want function, module or comm", s)
}

// noModule is the module shown for frames that name none.
const noModule = "(no module)"

// ModuleOf returns the module of a frame, as far as its folded name tells:
//
//   - "[kernel.kallsyms]" for a kernel frame marked "_[k]" (stackcollapse
//     --kernel or --all);
//   - "[JIT]" for a JIT frame marked "_[j]" (stackcollapse --jit or --all);
//   - the DSO of an unresolved frame, which stackcollapse names after it:
//     "[libc.so.6]", or "[libc.so.6 <7f01...>]" with --addrs;
//   - noModule for every other frame: a resolved user-space symbol, whose
//     DSO the folded line does not carry (with stackcollapse --all, every
//     such frame is user-space code).
//
// A table by module leaves out the root frame, which is the process, not
// code; a stack of its root frame alone counts for noModule.
func ModuleOf(frame string) string {
	switch {
	case strings.HasSuffix(frame, "_[k]"):
		return "[kernel.kallsyms]"
	case strings.HasSuffix(frame, "_[j]"):
		return "[JIT]"
	case len(frame) > 2 && frame[0] == '[' && frame[len(frame)-1] == ']':
		name := frame[1 : len(frame)-1]
		if i := strings.Index(name, " <"); i > 0 {
			name = name[:i]
		}
		return name
	}
	return noModule
}

// Counter sums folded records per distinct stack. The zero value is
// ready to use.
type Counter struct {
	index  map[string]int
	stacks []string
	counts []float64
	before []float64
	// Total and TotalBefore are the sums of the counts added (the second
	// and first counts of differential records); Lines the records added.
	Total, TotalBefore float64
	Lines              int64
	// Diff is set once a differential record has been added.
	Diff bool
}

// Add adds one record (its Stack is copied when new).
func (c *Counter) Add(rec *folded.Record) {
	if c.index == nil {
		c.index = make(map[string]int)
	}
	i, ok := c.index[string(rec.Stack)]
	if !ok {
		i = len(c.stacks)
		s := string(rec.Stack)
		c.index[s] = i
		c.stacks = append(c.stacks, s)
		c.counts = append(c.counts, 0)
		c.before = append(c.before, 0)
	}
	c.counts[i] += rec.Count
	c.before[i] += rec.Before
	c.Total += rec.Count
	c.TotalBefore += rec.Before
	c.Lines++
	if rec.Kind == folded.Diff {
		c.Diff = true
	}
}

// Stacks returns the number of distinct stacks added.
func (c *Counter) Stacks() int { return len(c.stacks) }

// Row is one line of a table: a function (or module, or comm) and its
// counts.
type Row struct {
	Name string
	// Flat is the count of the samples whose leaf is this row's; Cum of
	// those where it is anywhere on the stack, once per sample.
	Flat, Cum float64
	// FlatBefore and CumBefore are the same for the first counts of
	// differential records.
	FlatBefore, CumBefore float64
}

// Edge is a call between two rows, with the count of the samples whose
// stack holds it (once per sample), for each side of a differential
// profile.
type Edge struct {
	Name          string // the caller or the callee
	Count, Before float64
}

// Entry is one function of a Peek: its row, its callers and its callees,
// each sorted by count, largest first.
type Entry struct {
	Row
	Callers, Callees []Edge
}

// Table is the ranking of a profile.
type Table struct {
	By                 By
	Rows               []Row // sorted: see Counter.Table
	Total, TotalBefore float64
	Diff               bool
	// Unit is the unit of the counts as pprof names it ("nanoseconds",
	// "bytes", "count"; "" when unknown), and Show the unit the text
	// tables print them in: "" or Minimum (as go tool pprof's default
	// -unit), Raw (the counts as they are), or a unit ("ms", "MB").
	// CSV and JSON give the counts as they are, with the unit.
	Unit, Show string
}

// graph is the rows of the stacks and the calls between them.
type graph struct {
	names []string
	index map[string]int
	rows  []Row
	edges map[[2]int]*[2]float64 // caller, callee -> count, before
}

func (g *graph) node(name string) int {
	if i, ok := g.index[name]; ok {
		return i
	}
	i := len(g.names)
	g.index[name] = i
	g.names = append(g.names, name)
	g.rows = append(g.rows, Row{Name: name})
	return i
}

// build makes the graph of the counter's stacks; edges only when asked.
func (c *Counter) build(by By, withEdges bool) *graph {
	g := &graph{index: make(map[string]int)}
	if withEdges {
		g.edges = make(map[[2]int]*[2]float64)
	}
	frames := make(map[string]int) // frame name -> node
	var ids []int
	seen := make(map[int]bool)
	seenEdge := make(map[[2]int]bool)
	for si, s := range c.stacks {
		s = folded.TrimStack(s)
		n, b := c.counts[si], c.before[si]
		ids = ids[:0]
		if by == ByComm {
			root, _, _ := strings.Cut(s, ";")
			ids = append(ids, g.node(root))
		} else {
			rest := s
			if by == ByModule {
				// The root frame is the process, not code in a module.
				if _, tail, more := strings.Cut(s, ";"); more {
					rest = tail
				} else {
					rest = "" // a stack of its root alone: noModule
				}
			}
			for {
				f, tail, more := strings.Cut(rest, ";")
				id, ok := frames[f]
				if !ok {
					name := f
					if by == ByModule {
						name = ModuleOf(f)
					}
					id = g.node(name)
					frames[f] = id
				}
				ids = append(ids, id)
				if !more {
					break
				}
				rest = tail
			}
		}
		clear(seen)
		clear(seenEdge)
		for k, id := range ids {
			if !seen[id] {
				seen[id] = true
				g.rows[id].Cum += n
				g.rows[id].CumBefore += b
			}
			if withEdges && k > 0 && ids[k-1] != id {
				e := [2]int{ids[k-1], id}
				if !seenEdge[e] {
					seenEdge[e] = true
					w := g.edges[e]
					if w == nil {
						w = new([2]float64)
						g.edges[e] = w
					}
					w[0] += n
					w[1] += b
				}
			}
		}
		leaf := ids[len(ids)-1]
		g.rows[leaf].Flat += n
		g.rows[leaf].FlatBefore += b
	}
	return g
}

// Table ranks the stacks by by: rows sorted as pprof -top sorts them,
// by flat (cum when byCum is set, as pprof -top -cum), largest first,
// then by name.
func (c *Counter) Table(by By, byCum bool) *Table {
	g := c.build(by, false)
	rows := g.rows
	sortRows(rows, byCum)
	return &Table{By: by, Rows: rows, Total: c.Total, TotalBefore: c.TotalBefore, Diff: c.Diff}
}

func sortRows(rows []Row, byCum bool) {
	slices.SortFunc(rows, func(a, b Row) int {
		x, y := abs(a.Flat), abs(b.Flat)
		u, v := abs(a.Cum), abs(b.Cum)
		if byCum {
			x, y, u, v = u, v, x, y
		}
		switch {
		case x != y:
			return cmpDesc(x, y)
		case a.Name != b.Name:
			return strings.Compare(a.Name, b.Name)
		}
		return cmpDesc(u, v)
	})
}

func cmpDesc(x, y float64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Peek returns, for each row whose name matches re, its callers and
// callees (pprof -peek), never nil: the rows in table order (flat, then
// name). A call is counted once per sample, and a row calling itself
// (recursion) is not a call, as in pprof.
func (c *Counter) Peek(by By, re *regexp.Regexp) []Entry {
	g := c.build(by, true)
	var out []Entry
	pos := make(map[int]int) // node -> index in out
	for id, name := range g.names {
		if re.MatchString(name) {
			pos[id] = len(out)
			out = append(out, Entry{Row: g.rows[id], Callers: []Edge{}, Callees: []Edge{}})
		}
	}
	for e, w := range g.edges {
		if i, ok := pos[e[1]]; ok {
			out[i].Callers = append(out[i].Callers, Edge{Name: g.names[e[0]], Count: w[0], Before: w[1]})
		}
		if i, ok := pos[e[0]]; ok {
			out[i].Callees = append(out[i].Callees, Edge{Name: g.names[e[1]], Count: w[0], Before: w[1]})
		}
	}
	for i := range out {
		sortEdges(out[i].Callers)
		sortEdges(out[i].Callees)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if x, y := abs(a.Flat), abs(b.Flat); x != y {
			return cmpDesc(x, y)
		}
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return cmpDesc(abs(a.Cum), abs(b.Cum))
	})
	return out
}

func sortEdges(es []Edge) {
	slices.SortFunc(es, func(a, b Edge) int {
		if x, y := abs(a.Count), abs(b.Count); x != y {
			return cmpDesc(x, y)
		}
		return strings.Compare(a.Name, b.Name)
	})
}
