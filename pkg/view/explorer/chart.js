// flamekit explorer: the flame chart, a lane per thread with every sample
// at its own time, as speedscope's time order and Firefox Profiler's stack
// chart show it (Go twin: pkg/view/flamegraph/chart.go, LayoutChart and
// ChartInterval, which flamegraph --flamechart draws from timed lines: the
// rule's one place; this is its port over the page's samples, and the
// tests compare the SVG both draw byte for byte). Its time axis, zoom and
// pan are the page's own.

// ST and SE are the samples' times (ns after the origin) and entries, in
// time order (encode.go's "times"); empty when the page holds none.
var ST = new Float64Array(0), SE = new Int32Array(0);

// unpackTimes reads the times section of the data at reader rd.
function unpackTimes(rd) {
	var n = rd.uv();
	ST = new Float64Array(n);
	SE = new Int32Array(n);
	var t = 0, e = 0;
	for (var i = 0; i < n; i++) {
		t += rd.zv();
		e += rd.zv();
		ST[i] = t;
		SE[i] = e;
	}
}

var CHART_FALLBACK = 10e6; // Go: ChartFallbackInterval

// chartSamples returns the samples of range r the filters keep, in time
// order: [sample index, node of T].
function chartSamples(r) {
	var out = [];
	if (!r || !ST.length) return out;
	if (!KE) entryTargets();
	var lo = 0, hi = ST.length, from = cellStartNs(r.c0) - 1e9;
	while (lo < hi) { var mid = (lo + hi) >> 1; if (ST[mid] < from) lo = mid + 1; else hi = mid; }
	var end = cellStartNs(r.c1) + 1e9;
	for (var s = lo; s < ST.length && ST[s] < end; s++) {
		var e = SE[s];
		if (EC[e] < r.c0 || EC[e] >= r.c1 || LANE[EI[e]] !== r.lane) continue;
		var v = KE[e];
		if (v > 0) out.push(s, v);
	}
	return out;
}

// chartLaneKey is Go's laneOf: the stack's root frame, with the pid and
// tid its line carried.
function chartLaneKey(e, rootFrame) {
	var th = ET[e], has = THAS[th] & 3;
	return rootFrame + ":" + has + ":" + (has & 1 ? TP[th] : 0) + ":" + (has & 2 ? TT[th] : 0);
}

function chartLabel(e, rootFrame) {
	var th = ET[e], has = THAS[th] & 3, s = frameName(rootFrame);
	if (has === 3) s += " " + TP[th] + "/" + TT[th];
	else if (has === 1) s += " " + TP[th];
	else if (has === 2) s += " " + TT[th];
	return s;
}

// CHART_ROWS bounds the rows of frames a chart draws (its canvas is
// CHART_ROWS × 16 px at most): a range of more threads than fit draws the
// busiest, and its command selects their threads (chartCut).
var CHART_ROWS = 250;

// chartLayout lays the samples of range r out as LayoutChart does: nodes
// in pre-order with start and end (ns after the first sample), depth,
// frame (-1: a lane's label, named in label), and samples; x0 is the
// first sample's time (ns after the origin), interval the sampling
// interval, lines the samples drawn ([sample, node of T] pairs). When the
// lanes need more than CHART_ROWS rows, only the busiest that fit are laid
// out, as LayoutChart lays out their samples alone: cut says which
// (chartCut).
function chartLayout(r) {
	var smp = chartSamples(r), lanes = chartLanes(smp), cut = null;
	var rows = 0, keep = 0;
	while (keep < lanes.length && (keep === 0 || rows + lanes[keep].depth + 1 <= CHART_ROWS)) rows += lanes[keep++].depth + 1;
	if (keep < lanes.length) {
		// the samples the command's selection of the busiest lanes'
		// threads keeps (a thread may have more lanes: a tid under two
		// names), laid out alone, as flamegraph lays them out
		cut = { lanes: lanes.length, kept: lanes.slice(0, keep) };
		cut.only = chartCut(cut.kept);
		var sub = [], only = cut.only, ids = new Set(String(only.tid || only.pid || "").split(",").map(Number)), re = only.comm ? re2Compile(only.comm) : null;
		for (var k = 0; k < smp.length; k += 2) {
			var th = ET[SE[smp[k]]];
			if (only.tid ? THAS[th] & 2 && ids.has(TT[th]) : only.pid ? THAS[th] & 1 && ids.has(TP[th]) : re.test(frameName(TC[th]))) sub.push(smp[k], smp[k + 1]);
		}
		smp = sub;
		lanes = chartLanes(smp);
		cut.drawn = lanes.length;
	}
	var out = { node: [], start: [], end: [], depth: [], frame: [], label: [], samples: [], total: 0, x0: 0, interval: CHART_FALLBACK, lines: smp, lanes: lanes.length, cut: cut };
	if (!smp.length) return out;
	var paths = chartPaths(smp);
	// ChartInterval: the median gap between a thread's samples
	var gaps = [];
	lanes.forEach(function (ln) {
		for (var j = 1; j < ln.idx.length; j++) {
			var g = ST[smp[2 * ln.idx[j]]] - ST[smp[2 * ln.idx[j - 1]]];
			if (g > 0) gaps.push(g);
		}
	});
	var interval = CHART_FALLBACK;
	if (gaps.length) { gaps.sort(function (a, b) { return a - b; }); interval = gaps[gaps.length >> 1]; }
	out.interval = interval;
	var x0 = ST[smp[0]];
	out.x0 = x0;
	function add(node, start, depth, frame, label) {
		out.node.push(node); out.start.push(start); out.end.push(start); out.depth.push(depth);
		out.frame.push(frame); out.label.push(label); out.samples.push(0);
		return out.node.length - 1;
	}
	add(0, 0, 0, -1, "");
	var base = 1, total = 0;
	lanes.forEach(function (ln) {
		var at0 = ST[smp[2 * ln.idx[0]]] - x0, labelAt = add(-1, at0, base, -1, ln.label);
		var open = [], end = 0;
		function closeTo(d, at) { while (open.length > d) out.end[open.pop()] = at; }
		for (var j = 0; j < ln.idx.length; j++) {
			var i = ln.idx[j], path = paths[i], t = ST[smp[2 * i]], at = t - x0, d = 0;
			if (j > 0) while (d < open.length && d < path.length && T.frame[out.node[open[d]]] === T.frame[path[d]]) d++;
			closeTo(d, at);
			for (; d < path.length; d++) open.push(add(path[d], at, base + d + 1, T.frame[path[d]], null));
			for (var q = 0; q < open.length; q++) out.samples[open[q]]++;
			out.samples[labelAt]++;
			end = at + interval;
			if (j + 1 < ln.idx.length) {
				var next = ST[smp[2 * ln.idx[j + 1]]];
				if (2 * (next - t) <= 3 * interval) end = next - x0;
				else closeTo(0, end); // a gap breaks every frame
			}
		}
		closeTo(0, end);
		out.end[labelAt] = end;
		total = Math.max(total, end);
		base += ln.depth + 1;
	});
	out.end[0] = total;
	out.samples[0] = smp.length / 2;
	out.total = total;
	return out;
}

// chartLanes groups samples ([sample, node] pairs) by thread (Go:
// laneOf), the busiest first (ties by label, bytewise): each lane its
// key, label, samples (indices of pairs), thread and depth (its deepest
// stack); byIdx holds each sample's lane key. A lane is found per entry
// thread and root frame (a number), its key made once.
function chartLanes(smp) {
	var byKey = new Map(), byPair = new Map(), lanes = [], byIdx = [], nf = F.length + XF.length + 1;
	if (!chartLanes.root || chartLanes.root.length !== T.n || chartLanes.tree !== T) { chartLanes.root = new Int32Array(T.n).fill(-2); chartLanes.tree = T; }
	var rootOf = chartLanes.root;
	for (var k = 0; k < smp.length; k += 2) {
		var v = smp[k + 1], e = SE[smp[k]], root = rootOf[v];
		if (root === -2) {
			var u = v;
			while (T.parent[u] > 0) u = T.parent[u];
			root = rootOf[v] = T.frame[u];
		}
		var pair = ET[e] * nf + root, ln = byPair.get(pair);
		if (!ln) {
			var key = chartLaneKey(e, root);
			ln = byKey.get(key);
			if (!ln) { ln = { key: key, label: chartLabel(e, root), idx: [], thread: ET[e], comm: root, depth: 0 }; byKey.set(key, ln); lanes.push(ln); }
			byPair.set(pair, ln);
		}
		ln.idx.push(k >> 1);
		if (T.depth[v] > ln.depth) ln.depth = T.depth[v];
		byIdx.push(ln.key);
	}
	lanes.sort(function (a, b) { return b.idx.length - a.idx.length || utf8Cmp(a.label, b.label); });
	lanes.byIdx = byIdx;
	return lanes;
}

// chartPaths returns each sample's frames (nodes of T, root first).
function chartPaths(smp) {
	var paths = [];
	for (var k = 0; k < smp.length; k += 2) {
		var path = new Array(T.depth[smp[k + 1]]), d = path.length;
		for (var v = smp[k + 1]; v > 0; v = T.parent[v]) path[--d] = v;
		paths.push(path);
	}
	return paths;
}

// chartCut gives the sample selection that keeps the threads of lanes ks,
// as timeslice flags' values: {tid: "1,2"} when every lane's line carried
// a tid, else {pid: …} when a pid, else {comm: "^(?:a|b)$"}.
function chartCut(ks) {
	function ids(bit, arr) {
		if (!ks.every(function (ln) { return THAS[ln.thread] & bit; })) return null;
		return Array.from(new Set(ks.map(function (ln) { return arr[ln.thread]; }))).sort(function (a, b) { return a - b; }).join(",");
	}
	var tid = ids(2, TT);
	if (tid) return { tid: tid };
	var pid = ids(1, TP);
	if (pid) return { pid: pid };
	var names = Array.from(new Set(ks.map(function (ln) { return frameName(ln.comm).replace(/[\\.+*?()|[\]{}^$]/g, "\\$&"); })));
	return { comm: "^(?:" + names.join("|") + ")$" };
}

// chartName is a chart node's name: its frame's, or its lane's label.
function chartName(cl, i) { return cl.frame[i] >= 0 ? frameName(cl.frame[i]) : cl.label[i] || ""; }

// chartGraph makes the FlameView graph of a chart layout: a lane's label
// grey, frames in flamegraph's colours; the time axis drawn on the root
// row; a click zooms the time axis to a box, the wheel zooms, a drag
// pans.
function chartGraph(cl) {
	var gb = new GraphBuilder(cl.node.length), info = { rootName: "", tip: chartTip(cl) };
	for (var i = 0; i < cl.node.length; i++) {
		var f = cl.frame[i];
		gb.add(cl.start[i], cl.end[i] - cl.start[i], cl.depth[i], f, i, i === 0 ? "rgb(250,250,250)" : f < 0 ? "rgb(215,215,215)" : colorOf(f));
	}
	var g = gb.done(cl.total, info);
	g.label = function (i) { return i === 0 ? "" : cl.frame[i] >= 0 ? frameDisp(cl.frame[i]) : cl.label[i]; };
	g.matchKey = function (i) { return cl.frame[i] >= 0 ? cl.frame[i] : "lane:" + cl.label[i]; };
	g.time = { x0: cl.x0, interval: cl.interval };
	return g;
}

function chartTip(cl) {
	return function (g, i) {
		var dur = cl.end[i] - cl.start[i], t0 = cl.x0 + cl.start[i];
		// the duration and its share of the chart's, as the SVG's title
		// (flamegraph --flamechart) gives them, then the samples and times
		var s = (i === 0 ? "the chart's samples" : g.label(i)) + " — " + fmtDurNs(dur) + " (" + pct(dur, cl.total) + "), " + fmtInt(cl.samples[i]) + " samples, " +
			fmtSecs(t0) + " s to " + fmtSecs(t0 + dur) + " s";
		if (i > 0 && cl.frame[i] < 0) s += " (a thread; its stacks above)";
		return s;
	};
}

// fmtDurNs prints a duration in ns as go tool pprof prints time (units.js).
function fmtDurNs(ns) { return unitLabel(ns, "nanoseconds", unitScale(ns, "nanoseconds", "minimum")[1]); }

// chartAxis draws the time axis on the root row of a chart: ticks every
// 1, 2 or 5 × 10^k ns, about every 100 px, labelled in the selection's
// seconds (after the capture's first sample), as the heat map counts them.
function chartAxis(ctx, g, r, scale, y, cssW) {
	ctx.fillStyle = "rgb(250,250,250)";
	ctx.fillRect(10, y + 0.5, cssW - 20, FRAME_H - 1);
	var want = r[1] / Math.max((cssW - 20) / 100, 1), step = Math.pow(10, Math.floor(Math.log10(Math.max(want, 1))));
	if (step * 5 <= want) step *= 5; else if (step * 2 <= want) step *= 2;
	var digits = Math.max(0, Math.min(9, 9 - Math.floor(Math.log10(step))));
	var first = Math.ceil((g.time.x0 + r[0]) / step) * step;
	ctx.save();
	ctx.beginPath();
	ctx.rect(10, y, cssW - 20, FRAME_H);
	ctx.clip();
	ctx.fillStyle = "#333";
	ctx.strokeStyle = "#666";
	ctx.beginPath();
	g.time.labels = []; // what the axis shows, for the tests: [x, width, text]
	for (var t = first, end = 10; t <= g.time.x0 + r[0] + r[1]; t += step) {
		var x = 10 + (t - g.time.x0 - r[0]) * scale, label = fmtSecs(t, digits) + " s", w = ctx.measureText(label).width;
		ctx.moveTo(Math.round(x) + 0.5, y);
		ctx.lineTo(Math.round(x) + 0.5, y + FRAME_H);
		// a label after its tick, or before it where it would pass the
		// axis's right end (the last one), never over the one before
		var lx = x + 3 + w <= cssW - 10 ? x + 3 : x - 3 - w;
		if (lx < end) continue;
		ctx.fillText(label, lx, y + FRAME_H / 2 + 0.5);
		g.time.labels.push([lx, w, label]);
		end = lx + w + 6;
	}
	ctx.stroke();
	ctx.restore();
}

// chartEvents adds the wheel zoom and the drag pan of a chart's time axis
// to view (FlameView of a graph with time).
function chartEvents(view, after) {
	var c = view.canvas, drag = null;
	c.addEventListener("wheel", function (e) {
		var g = view.g;
		if (!g || !g.time) return;
		e.preventDefault();
		var r = view.range(), p = view.pos(e), scale = (view.cssW - 20) / r[1];
		var at = r[0] + (p[0] - 10) / scale, k = e.deltaY > 0 ? 1.25 : 0.8;
		if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) { view.pan((e.deltaX || e.deltaY) / scale); return; }
		var w = Math.min(Math.max(r[1] * k, 1000), g.total);
		view.setWindow(at - (at - r[0]) * w / r[1], w);
		after();
	}, { passive: false });
	c.addEventListener("mousedown", function (e) {
		if (view.g && view.g.time) drag = { x: e.clientX, r: view.range(), moved: false };
	});
	window.addEventListener("mousemove", function (e) {
		if (!drag) return;
		var dx = e.clientX - drag.x;
		if (Math.abs(dx) > 3) drag.moved = true;
		if (drag.moved) view.setWindow(drag.r[0] - dx * drag.r[1] / (view.cssW - 20), drag.r[1]);
	});
	window.addEventListener("mouseup", function () {
		if (drag && drag.moved) view.dragged = true;
		drag = null;
	});
}

// chartFolded is the chart's samples as timed folded lines, in time order
// (stack, its entry's mean count, the time on its input's perf clock, its
// cpu, pid and tid): flamegraph --flamechart of them draws the chart.
function chartFolded(cl) {
	var out = [];
	for (var k = 0; k < cl.lines.length; k += 2) {
		var s = cl.lines[k], e = SE[s], th = ET[e], has = THAS[th];
		var line = stackOf(T, cl.lines[k + 1]) + " " + goNum(EW[e] / EN[e]) + " " + perfTime(ST[s], M.inputs[EI[e]].offset);
		if (EU[e] >= 0) line += " cpu=" + EU[e];
		if (has & 1) line += " pid=" + TP[th];
		if (has & 2) line += " tid=" + TT[th];
		out.push(line);
	}
	return out.length ? out.join("\n") + "\n" : "";
}

// chartSVG is the SVG flamegraph --flamechart draws of the chart's lines.
function chartSVG(cl, o) {
	var n = cl.node.length;
	if (!(cl.total > 0)) return "";
	var lc = { name: [], start: cl.start, end: cl.end, depth: cl.depth, delta: new Array(n).fill(0), hasDelta: new Array(n).fill(false), total: cl.total, maxDelta: 1 };
	for (var q = 0; q < n; q++) lc.name.push(q === 0 ? "" : chartName(cl, q));
	o.flamechart = true;
	o.countName = "ns";
	return renderSVG(lc, o, M.svg.css, M.svg.script);
}
