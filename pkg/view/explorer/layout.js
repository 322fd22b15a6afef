// flamekit explorer: the layouts of a range. The flame graph (Go twin:
// pkg/view/flamegraph: siblings by name as CompareStacks, a frame's own
// samples first), the differential and its -n (Go twin:
// pkg/view/difffolded), the elided view, the flame chart (chart.js), the
// sandwich, the top table's order (Go twin: pkg/view/top, sortRows), and
// the view as folded text and as the SVG flamegraph writes (svgout.js).

// ---- graphs ----
function colorOf(f) {
	var key = S.colors + (S.hash ? "#" : ""), cache = colorOf.cache;
	if (!cache || cache.key !== key) { cache = colorOf.cache = new Map(); cache.key = key; }
	var c = cache.get(f);
	if (c === undefined) {
		var name = frameName(f);
		c = name === "--" ? "rgb(160,160,160)" : name === "-" ? "rgb(200,200,200)" : rgb(paletteColor(name, S.colors, S.hash));
		cache.set(f, c);
	}
	return c;
}

function fmtInt(v) { return commas(fmtF(v, 0)); }
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + "%" : "-"; }

// GraphBuilder collects up to cap frames (typed arrays made once: a
// graph of thousands of frames grew six arrays by push, then copied them).
function GraphBuilder(cap) {
	cap = cap || 0;
	this.x = new Float64Array(cap); this.w = new Float64Array(cap); this.depth = new Int32Array(cap);
	this.name = new Int32Array(cap); this.node = new Int32Array(cap); this.color = new Array(cap);
	this.n = 0; this.maxDepth = 0;
}
GraphBuilder.prototype.add = function (x, w, depth, frame, node, color) {
	var i = this.n++;
	this.x[i] = x; this.w[i] = w; this.depth[i] = depth; this.name[i] = frame; this.node[i] = node; this.color[i] = color;
	if (depth > this.maxDepth) this.maxDepth = depth;
};
GraphBuilder.prototype.done = function (total, info) {
	var n = this.n;
	this.color.length = n;
	var g = {
		n: n, x: this.x.subarray(0, n), w: this.w.subarray(0, n), depth: this.depth.subarray(0, n),
		name: this.name.subarray(0, n), node: this.node.subarray(0, n), color: this.color,
		total: total, maxDepth: this.maxDepth, bg: background(S.colors)
	};
	g.label = function (i) { return g.depth[i] === 0 && info.rootName ? info.rootName : frameDisp(g.name[i]); };
	g.tipText = function (i, zoomW) { return info.tip(g, i, zoomW); };
	return g;
};

// layoutTree lays out a tree (parent/frame arrays with kids lists) by its
// totals: pre-order, self first, siblings by name or by weight.
function layoutTree(tr, tot, self, colorFn, info, rootFrame) {
	if (!(tot[0] > 0)) return new GraphBuilder(0).done(0, info);
	var gb = new GraphBuilder(tr.n), byWeight = S.sort === "weight";
	var xs = new Float64Array(tr.n), stack = [0], list = [];
	var byTot = function (a, b) { return tot[b] - tot[a] || frameRank(tr.frame[a]) - frameRank(tr.frame[b]); };
	gb.add(0, tot[0], 0, rootFrame === undefined ? -1 : rootFrame, 0, colorFn(0));
	while (stack.length) {
		var v = stack.pop(), cursor = xs[v] + (byWeight ? 0 : self[v]);
		list.length = 0;
		for (var j = tr.first[v]; j < tr.first[v + 1]; j++) if (tot[tr.kids[j]] > 0) list.push(tr.kids[j]);
		if (byWeight) list.sort(byTot);
		for (var k = 0; k < list.length; k++) {
			var c = list[k];
			xs[c] = cursor;
			cursor += tot[c];
			gb.add(xs[c], tot[c], tr.depth[c], tr.frame[c], c, colorFn(c));
		}
		for (k = list.length - 1; k >= 0; k--) stack.push(list[k]);
	}
	return gb.done(tot[0], info);
}

function tipFor(kind, A, B) {
	return function (g, i, zoomW) {
		var node = g.node[i], name = g.label(i), all = g.total;
		var s = name + " — " + pct(g.w[i], all) + " of all";
		if (zoomW > 0) s += ", " + pct(g.w[i], zoomW) + " of the zoomed frame";
		var n = A.totN ? A.totN[node] : 0;
		s += "; " + fmtInt(n) + " samples, " + weightText(g.w[i]);
		if (A.self && node >= 0) s += "; self " + pct(A.self[node], all) + " (" + fmtInt(A.selfN[node]) + " samples)";
		if (kind === "diff" && g.delta) s += "; change " + (g.delta[i] > 0 ? "+" : "") + pct(g.delta[i], all) + " (" + fmtInt(B ? B.tot[node] : 0) + " in the comparison range)";
		return s;
	};
}

// weightName says what the flame graphs' widths sum: the heat map's unit
// when it sums weights (off-CPU time), else the event's periods.
function weightName() {
	if (M.measure === "weight") return M.unit;
	return M.event ? "weight (" + M.event + " periods)" : "weight";
}

// weightText prints a weight as the top table prints its values: in the
// counts' unit, as stacktop and go tool pprof (units.js: 32.88s of
// cpu-clock), or as a count with weightName where no unit is known.
function weightText(v) {
	var cu = M.countUnit || "";
	if (M.measure !== "weight" && cu && findUnit(cu)) return unitLabel(v, cu, outputUnit("minimum", cu, [v], v)) + (M.event ? " of " + M.event : "");
	return fmtInt(v) + " " + weightName();
}

var CUR = { A: null, B: null }; // the sums of the selection and comparison

function normalizeBefore(B, A) {
	// difffolded -n: before := trunc(before * total2 / total1), per stack
	var t1 = 0, t2 = 0;
	for (var i = 0; i < T.n; i++) { t1 += B.self[i]; t2 += A.self[i]; }
	if (!S.normalize || t1 === t2 || t1 === 0) return B.self;
	var out = new Float64Array(T.n);
	for (i = 0; i < T.n; i++) if (B.self[i]) out[i] = Math.trunc(B.self[i] * t2 / t1);
	return out;
}

// elidedSums: FlameScope's elided view, the stacks present in one range
// only (S.elided: "selection" or "vs"), as difffolded's lines whose
// other count is 0 (see elidedFilter).
function elidedSums(A, B) {
	var keepA = S.elided === "selection", src = keepA ? A : B, other = keepA ? B : A;
	var self = new Float64Array(T.n), selfN = new Float64Array(T.n);
	for (var i = 1; i < T.n; i++) if (src.self[i] > 0 && other.self[i] === 0) { self[i] = src.self[i]; selfN[i] = src.selfN[i]; }
	return totals({ self: self, selfN: selfN });
}

// viewSums: the sums the view draws and saves: the selection's, or the
// elided view's.
function viewSums() {
	var A = CUR.A || totals(sums(S.sel));
	if (S.vs && S.elided) return CUR.E || elidedSums(A, CUR.B || totals(sums(S.vs)));
	return A;
}

function flameGraph() {
	CUR.E = null;
	var A = totals(sums(S.sel)), info = { rootName: "all", tip: tipFor("flame", A) };
	CUR.A = A;
	CUR.B = null;
	if (S.vs) {
		var B = totals(sums(S.vs));
		CUR.B = B;
		if (S.elided) {
			var E = elidedSums(A, B);
			CUR.E = E;
			return layoutTree(T, E.tot, E.self, function (c) { return c === 0 ? "rgb(200,200,200)" : colorOf(T.frame[c]); }, { rootName: "all", tip: tipFor("flame", E) });
		}
		var before = normalizeBefore(B, A), maxDelta = 1, delta = new Float64Array(T.n);
		for (var i = 1; i < T.n; i++) {
			delta[i] = A.self[i] - before[i];
			if (A.self[i] > 0 || before[i] > 0 || B.self[i] > 0) maxDelta = Math.max(maxDelta, Math.abs(delta[i]));
		}
		var g = layoutTree(T, A.tot, A.self, function (c) { return rgb(diffColor(c === 0 ? 0 : delta[c], maxDelta)); }, { rootName: "all", tip: tipFor("diff", A, B) });
		g.delta = new Float64Array(g.n);
		for (i = 0; i < g.n; i++) g.delta[i] = g.node[i] > 0 ? delta[g.node[i]] : 0;
		g.diff = { delta: delta, maxDelta: maxDelta, before: before };
		return g;
	}
	return layoutTree(T, A.tot, A.self, function (c) { return c === 0 ? colorOf(-1) : colorOf(T.frame[c]); }, info);
}

// flameChart draws chartLayout (chart.js): a lane per thread, every
// sample at its own time; what the view shows, saves (SVG and timed
// folded lines) and what its command draws.
function flameChart() {
	var r = S.sel, A = totals(sums(r));
	CUR.A = A;
	CUR.B = null;
	if (!r || !(A.tot[0] > 0) || !ST.length) { CUR.chart = null; return new GraphBuilder(0).done(0, { rootName: "", tip: tipFor("chart", A) }); }
	var cl = chartLayout(r);
	CUR.chart = cl;
	return chartGraph(cl);
}

// sandwich: the callers (a flame graph rooted at fn, callers above) and
// callees (an icicle rooted at fn) of a function, recursion counted once.
function sandwich(fnName) {
	var A = CUR.A, callers = newTree(), callees = newTree();
	var calleeOf = new Int32Array(T.n).fill(-1);
	var target = function (f) { return frameName(f) === fnName; };
	// walk T from the root, knowing whether fn is on the path
	var stack = [0], found = false, inFn = new Uint8Array(T.n);
	while (stack.length) {
		var v = stack.pop();
		var isT = v > 0 && target(T.frame[v]);
		var parentIn = v > 0 ? inFn[T.parent[v]] : 0;
		if (isT && !parentIn && A.tot[v] > 0) {
			found = true;
			// callees: the subtree of v, merged under the root
			calleeOf[v] = 0;
			callees.self[0] += A.self[v];
			// callers: v's ancestors, leafward to rootward
			var c = 0;
			for (var u = T.parent[v]; u > 0; u = T.parent[u]) c = callers.intern(c, T.frame[u]);
			callers.self[c] += A.tot[v];
		} else if (parentIn && calleeOf[T.parent[v]] >= 0) {
			calleeOf[v] = callees.intern(calleeOf[T.parent[v]], T.frame[v]);
			callees.self[calleeOf[v]] += A.self[v];
		}
		inFn[v] = isT || parentIn ? 1 : 0;
		for (var j = T.first[v + 1] - 1; j >= T.first[v]; j--) if (A.tot[T.kids[j]] > 0) stack.push(T.kids[j]);
	}
	return { found: found, callers: callers.finish(), callees: callees.finish() };
}

function newTree() {
	var tr = { parent: [-1], frame: [-1], depth: [0], self: [0], map: new Map() };
	tr.intern = function (p, f) {
		var key = p * 4194304 + f, id = tr.map.get(key);
		if (id === undefined) {
			id = tr.parent.length;
			tr.map.set(key, id);
			tr.parent.push(p); tr.frame.push(f); tr.depth.push(tr.depth[p] + 1); tr.self.push(0);
		}
		return id;
	};
	tr.finish = function () {
		var n = tr.parent.length, out = { n: n, parent: Int32Array.from(tr.parent), frame: Int32Array.from(tr.frame), depth: Int32Array.from(tr.depth), plain: false };
		buildKids(out);
		var self = Float64Array.from(tr.self), tot = self.slice();
		for (var i = n - 1; i > 0; i--) tot[out.parent[i]] += tot[i];
		out.self = self;
		out.tot = tot;
		return out;
	};
	return tr;
}

// top: self and total per function (recursion counted once in total).
function topTable() {
	var A = CUR.A, nf = F.length + XF.length, self = new Float64Array(nf), total = new Float64Array(nf);
	var onPath = new Int32Array(nf);
	// depth first, with exit markers (~v) to take a frame off the path
	var seq = [0];
	while (seq.length) {
		var v = seq.pop();
		if (v < 0) { onPath[T.frame[~v]]--; continue; }
		if (v > 0) {
			var f = T.frame[v];
			self[f] += A.self[v];
			if (onPath[f] === 0) total[f] += A.tot[v];
			onPath[f]++;
			seq.push(~v);
		}
		for (var j = T.first[v + 1] - 1; j >= T.first[v]; j--) if (A.tot[T.kids[j]] > 0) seq.push(T.kids[j]);
	}
	var rows = [];
	for (f = 0; f < nf; f++) if (total[f] > 0) rows.push(f);
	// stacktop's order (top.sortRows): flat (--cum: cum), then the name's
	// bytes, then the other
	var x = S.cum ? total : self, y = S.cum ? self : total;
	rows.sort(function (a, b) { return x[b] - x[a] || utf8Cmp(frameName(a), frameName(b)) || y[b] - y[a]; });
	return { rows: rows, self: self, total: total, all: A.tot[0] };
}

// utf8Cmp orders strings by their UTF-8 bytes, as Go's strings.Compare
// (UTF-16 code units order the characters above U+FFFF before U+E000 and
// up; code points do not).
function utf8Cmp(a, b) {
	if (a === b) return 0;
	var i = 0, n = Math.min(a.length, b.length);
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	if (i === n) return a.length - b.length;
	var x = a.codePointAt(i), y = b.codePointAt(i);
	if (x >= 0xDC00 && x <= 0xDFFF && i > 0) { x = a.codePointAt(i - 1); y = b.codePointAt(i - 1); }
	return x - y;
}

// ---- folded text and the SVG of the view ----
function stackOf(tr, v) {
	var parts = [];
	for (; v > 0; v = tr.parent[v]) parts.push(frameName(tr.frame[v]));
	return parts.reverse().join(";");
}

// foldedText: the view's stacks as flamegraph reads them; differential
// (difffolded's "stack before after") when comparing.
function foldedText() {
	var out = [];
	if (S.view === "chart") return chartFolded(CUR.chart || chartLayout(S.sel));
	var A = viewSums();
	var diff = S.vs && !S.elided, B = diff ? (CUR.B || totals(sums(S.vs))) : null;
	var before = diff ? normalizeBefore(B, A) : null;
	var stack = [0];
	while (stack.length) {
		var v = stack.pop();
		if (v > 0) {
			if (diff) {
				if (A.self[v] > 0 || B.self[v] > 0) out.push(stackOf(T, v) + " " + goNum(before[v]) + " " + goNum(A.self[v]));
			} else if (A.self[v] > 0) out.push(stackOf(T, v) + " " + goNum(A.self[v]));
		}
		for (var j = T.first[v + 1] - 1; j >= T.first[v]; j--) {
			var c = T.kids[j];
			if (A.tot[c] > 0 || diff && B.tot[c] > 0) stack.push(c);
		}
	}
	return out.length ? out.join("\n") + "\n" : "";
}

function svgText() {
	var o = { colors: S.colors, hash: S.hash, inverted: S.inverted };
	if (S.view === "chart") return chartSVG(CUR.chart || chartLayout(S.sel), o);
	var A = viewSums(), diff = S.vs && !S.elided, B = diff ? (CUR.B || totals(sums(S.vs))) : null;
	var before = diff ? normalizeBefore(B, A) : null;
	var l = { name: [], start: [], end: [], depth: [], delta: [], hasDelta: [], total: A.tot[0], maxDelta: 1 };
	if (!(l.total > 0)) return "";
	if (diff) for (var i = 1; i < T.n; i++) if (A.self[i] > 0 || B.self[i] > 0) l.maxDelta = Math.max(l.maxDelta, Math.abs(A.self[i] - before[i]));
	var xs = new Float64Array(T.n), stack = [0];
	while (stack.length) {
		var v = stack.pop();
		l.name.push(v === 0 ? "" : frameName(T.frame[v]));
		l.start.push(xs[v]);
		l.end.push(xs[v] + A.tot[v]);
		l.depth.push(T.depth[v]);
		l.delta.push(diff && v > 0 ? A.self[v] - before[v] : 0);
		l.hasDelta.push(!!diff);
		var cursor = xs[v] + A.self[v], kids = [];
		for (var j = T.first[v]; j < T.first[v + 1]; j++) {
			var c = T.kids[j];
			if (A.tot[c] > 0) { xs[c] = cursor; cursor += A.tot[c]; kids.push(c); }
		}
		for (var k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
	}
	return renderSVG(l, o, M.svg.css, M.svg.script);
}

