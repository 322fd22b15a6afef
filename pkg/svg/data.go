package svg

import (
	"math"
	"strconv"

	"flamekit/pkg/view/flamegraph"
)

// frameData appends the frame data the script draws zoomed views from, as
// more fields of the fgConfig object literal: every kept frame, in
// pre-order, as five integers in a flat array (depth, index in the name
// table, gap since the end of the previous sibling or the start of the
// parent, width, colour index*2 + 1 if the frame is also an element), in
// units of the greatest common divisor of the counts when they are whole
// numbers. Names are JavaScript strings escaped so that neither "]]>" nor
// "</script>" can appear (appendJSString); everything else is numbers.
func (g *geometry) frameData(l *flamegraph.Layout, kept []int32, colors []RGB, isStatic []bool) []byte {
	o := g.o
	// gaps and widths in count units
	next := make([]float64, g.depthmax+2)
	gaps := make([]float64, len(kept))
	unit := 0.0
	integral := true
	for k, i := range kept {
		n := &l.Nodes[i]
		d := n.Depth
		gaps[k] = n.Start - next[d]
		next[d] = n.End
		next[d+1] = n.Start
		w := n.End - n.Start
		if integral {
			for _, v := range [2]float64{gaps[k], w} {
				if v != math.Trunc(v) || v < 0 || v > 1<<53 {
					integral = false
					break
				}
				unit = gcd(unit, v)
			}
		}
	}
	if !integral || unit == 0 {
		unit = 1
	}
	var dst []byte
	num := func(dst []byte, v float64) []byte {
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return strconv.AppendInt(dst, int64(v), 10)
		}
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	dst = append(dst, ", width: "...)
	dst = num(dst, g.width)
	dst = append(dst, ", height: "...)
	dst = num(dst, g.height)
	dst = append(dst, ", fh: "...)
	dst = num(dst, float64(o.FrameHeight))
	dst = append(dst, ", ypad1: "...)
	dst = num(dst, g.ypad1)
	dst = append(dst, ", ypad2: "...)
	dst = num(dst, g.ypad2)
	dst = append(dst, ", timemax: "...)
	dst = num(dst, g.timemax)
	dst = append(dst, ", unit: "...)
	dst = num(dst, unit)
	dst = append(dst, ", factor: "...)
	dst = num(dst, o.Factor)
	dst = append(dst, ", countname: "...)
	dst = appendJSName(dst, o.CountName)

	// names and colours, each once
	nameIdx := make(map[string]int, 1024)
	var names []string
	colorIdx := make(map[RGB]int, 256)
	var cols []RGB
	frames := make([]byte, 0, len(kept)*16)
	var deltas []byte
	for k, i := range kept {
		n := &l.Nodes[i]
		name := stripAnnotation(n.Name)
		if n.Depth == 0 {
			name = "all"
		}
		ni, ok := nameIdx[name]
		if !ok {
			ni = len(names)
			nameIdx[name] = ni
			names = append(names, name)
		}
		ci, ok := colorIdx[colors[k]]
		if !ok {
			ci = len(cols)
			colorIdx[colors[k]] = ci
			cols = append(cols, colors[k])
		}
		if k > 0 {
			frames = append(frames, ',')
		}
		frames = strconv.AppendInt(frames, int64(n.Depth), 10)
		frames = append(frames, ',')
		frames = strconv.AppendInt(frames, int64(ni), 10)
		frames = append(frames, ',')
		frames = num(frames, gaps[k]/unit)
		frames = append(frames, ',')
		frames = num(frames, (n.End-n.Start)/unit)
		frames = append(frames, ',')
		c := 2 * ci
		if isStatic[k] {
			c++
		}
		frames = strconv.AppendInt(frames, int64(c), 10)
		if n.HasDelta && n.Depth > 0 {
			d := n.Delta
			if o.Negate && d != 0 {
				d = -d
			}
			if len(deltas) > 0 {
				deltas = append(deltas, ',')
			}
			deltas = strconv.AppendInt(deltas, int64(k), 10)
			deltas = append(deltas, ',')
			deltas = num(deltas, d)
		}
	}
	dst = append(dst, ",\nnames: ["...)
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSName(dst, name)
	}
	dst = append(dst, "],\ncolors: ["...)
	for i, c := range cols {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = c.Append(dst)
		dst = append(dst, '"')
	}
	dst = append(dst, "],\ndeltas: ["...)
	dst = append(dst, deltas...)
	dst = append(dst, "],\nframes: ["...)
	dst = append(dst, frames...)
	return append(dst, "]\n"...)
}

// gcd returns the greatest common divisor of two whole numbers (0 and v
// give v).
func gcd(a, b float64) float64 {
	for b != 0 {
		a, b = b, math.Mod(a, b)
	}
	return a
}
