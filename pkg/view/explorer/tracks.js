// flamekit explorer: finding the moment (issue 28): a track per busy
// process under the heat map (its share of each column; a process opens
// into its threads; a click filters by it), what a hovered cell holds, the
// heat map's modes (samples; change: how far a cell's mix of processes
// departs from the typical mix; share: the share of the samples whose
// stack matches an expression, as stackfilter --focus keeps them) and
// what rose in a burst (drawn as difffolded -n; the burst list says what
// rose as the Go burst finder found it). It reads the entries and the filters of
// filters.js (KE: each entry's node under the filters).

var TRACK_N = 8; // processes with a track; the rest share one
var TR = { lane: 0, lo: 0, n: 0, total: null, rows: [], open: {} };
var MAP_DEFAULT = "samples", MAP_WHY = "";

// weightOf is what a cell sums: samples, or weights on pages that sum
// weights (off-CPU time).
function weightArray() { return M.measure === "weight" ? EW : EN; }

// trackData sums each process's weight per heat map column of lane 0
// under the filters: the TRACK_N largest processes, the rest, and the
// column's total; the threads of the processes whose track is open.
function trackData() {
	if (!KE) entryTargets();
	var lane = 0, sp = HM.spans[lane], lo = Math.floor(sp[0] / R), n = Math.floor(sp[1] / R) - lo + 1;
	var V = weightArray(), many = M.lanes.length > 1;
	var byComm = HM.byComm, e; // summed by heatSeries
	var comms = [];
	for (var f = 0; f < F.length; f++) if (byComm[f] > 0) comms.push(f);
	comms.sort(function (a, b) { return byComm[b] - byComm[a] || a - b; });
	var top = comms.slice(0, TRACK_N), slot = new Int32Array(F.length).fill(-1);
	top.forEach(function (c, i) { slot[c] = i; });
	var series = top.map(function () { return new Float64Array(n); }), other = new Float64Array(n), total = new Float64Array(n);
	var openThreads = {}; // comm frame -> Map(thread -> series)
	for (var k in TR.open) if (TR.open[k]) openThreads[k] = new Map();
	for (e = 0; e < NE; e++) {
		if (KE[e] < 0 || many && LANE[EI[e]] !== lane) continue;
		var col = Math.floor(EC[e] / R) - lo, c = TC[ET[e]], v = V[e];
		total[col] += v;
		if (slot[c] >= 0) series[slot[c]][col] += v; else other[col] += v;
		var th = openThreads[c];
		if (th) {
			var s = th.get(ET[e]);
			if (!s) th.set(ET[e], s = new Float64Array(n));
			s[col] += v;
		}
	}
	TR.lane = lane; TR.lo = lo; TR.n = n; TR.total = total;
	TR.rows = [];
	top.forEach(function (c, i) {
		TR.rows.push({ kind: "comm", frame: c, name: F[c], series: series[i], weight: byComm[c] });
		var th = openThreads[c];
		if (!th) return;
		// a thread of each tid (perf's -1, or no tid: not a lane)
		var byTid = new Map();
		th.forEach(function (s, t) {
			if (!(THAS[t] & 2)) return;
			var got = byTid.get(TT[t]);
			if (!got) byTid.set(TT[t], got = { tid: TT[t], series: new Float64Array(n), weight: 0 });
			for (var j = 0; j < n; j++) { got.series[j] += s[j]; got.weight += s[j]; }
		});
		Array.from(byTid.values()).sort(function (a, b) { return b.weight - a.weight || a.tid - b.tid; }).slice(0, TRACK_N).forEach(function (x) {
			TR.rows.push({ kind: "tid", frame: c, tid: x.tid, name: "tid " + x.tid, series: x.series, weight: x.weight });
		});
	});
	if (comms.length > TRACK_N) TR.rows.push({ kind: "other", name: (comms.length - TRACK_N) + " more processes", series: other, weight: 0 });
}

// reQuote quotes a name for an expression that matches it exactly.
function reQuote(s) { return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&"); }

// drawTracks draws a lane per row of trackData under the heat map, on the
// heat map's columns.
function drawTracks() {
	if (!CL.length || !HM.geom) return;
	var g = HM.geom, h = 16;
	// drawn again only when the series, the columns shown or the open
	// processes change (drawHeat runs on every move of a drag)
	var key = [g.width, g.cw, g.first, g.cols, JSON.stringify(TR.open)].join(",");
	if (TR.key === key && TR.of === HM.series) return;
	TR.key = key;
	TR.of = HM.series;
	UI.tracks.textContent = "";
	trackData();
	if (TR.rows.length) UI.tracks.appendChild(el("div", { class: "note trackhead" }, "Processes by " + (M.measure === "weight" ? M.unit : "samples") + " under the filters (lane " + (M.lanes[0].host || "1") + "): each column's share; click a name to filter by it, ▸ for its threads"));
	TR.rows.forEach(function (row, ri) {
		var box = el("div", { class: "track track-" + row.kind, "data-track": ri });
		var c = el("canvas", { class: "trackbar" });
		box.appendChild(c);
		var ctx = sizeCanvas(c, g.width, h);
		ctx.fillStyle = ri % 2 ? "#fafafa" : "#f3f3f3";
		ctx.fillRect(g.x0, 0, g.cols * g.cw, h);
		ctx.fillStyle = row.kind === "other" ? "rgb(150,150,150)" : row.kind === "tid" ? "rgb(90,130,200)" : "rgb(40,90,200)";
		for (var dc = 0; dc < g.cols; dc++) {
			var col = dc + g.first - HM.shift[0] - TR.lo;
			if (col < 0 || col >= TR.n || !TR.total[col]) continue;
			var share = row.series[col] / TR.total[col];
			if (share <= 0) continue;
			var bh = Math.max(1, Math.round(share * (h - 2)));
			ctx.fillRect(g.x0 + dc * g.cw, h - 1 - bh, Math.max(1, g.cw - (g.cw > 3 ? 1 : 0)), bh);
		}
		c.addEventListener("mousemove", function (e) {
			var b = c.getBoundingClientRect(), dc2 = Math.floor((e.clientX - b.left - g.x0) / g.cw), col2 = dc2 + g.first - HM.shift[0] - TR.lo;
			if (dc2 < 0 || dc2 >= g.cols || col2 < 0 || col2 >= TR.n) return;
			var t0 = (col2 + TR.lo) * R;
			UI.details.textContent = row.name + ": " + pct(row.series[col2], TR.total[col2]) + " of " + fmtSecs(cellStartNs(t0)) + " s to " + fmtSecs(cellStartNs(t0 + R)) + " s (" + fmtInt(row.series[col2]) + " " + (M.measure === "weight" ? M.unit : "samples") + ")";
		});
		var lab = el("span", { class: "tracklabel" });
		if (row.kind === "comm") {
			var open = el("button", { type: "button", class: "trackopen", title: "Its threads" }, TR.open[row.frame] ? "▾" : "▸");
			open.addEventListener("click", function () { TR.open[row.frame] = !TR.open[row.frame]; TR.key = null; drawTracks(); });
			lab.appendChild(open);
		}
		var name = el("a", { href: "#", class: "trackname", title: row.kind === "comm" ? "Filter by this process: --comm " + "^" + reQuote(row.name) + "$" : row.kind === "tid" ? "Filter by this thread: --tid " + row.tid : "" }, row.name);
		if (row.kind !== "other") name.addEventListener("click", function (e) { e.preventDefault(); filterByTrack(row); });
		lab.appendChild(name);
		box.appendChild(lab);
		UI.tracks.appendChild(box);
	});
}

// scheduleTracks draws the tracks once the map and
// the graph are on screen (a timer after them), once for several calls.
function scheduleTracks() {
	if (TR.pending) return;
	TR.pending = new Promise(function (done) {
		setTimeout(function () {
			TR.pending = null;
			drawTracks();
			done();
		}, 0);
	});
}

// filterByTrack filters by a track's process (--comm ^NAME$) or thread
// (--tid N), as the command line then says.
function filterByTrack(row) {
	if (row.kind === "comm") S.f.comm = ["^" + reQuote(row.name) + "$"];
	else if (row.kind === "tid") S.f.tid = [String(row.tid)];
	update("filter");
}

// cellTop names the processes and leaf functions with the most weight in
// a cell of a lane under the filters: "bash 40%, ls 20%".
function cellTop(li, cell) {
	if (!KE) entryTargets();
	var ij = entryRange(cell, cell + 1), V = weightArray(), comm = new Map(), fn = new Map(), all = 0;
	for (var e = ij[0]; e < ij[1]; e++) {
		var t = KE[e];
		if (t < 0 || M.lanes.length > 1 && LANE[EI[e]] !== li) continue;
		all += V[e];
		var c = TC[ET[e]], f = T.frame[t];
		comm.set(c, (comm.get(c) || 0) + V[e]);
		fn.set(f, (fn.get(f) || 0) + V[e]);
	}
	function top(m, name) {
		return Array.from(m.entries()).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; }).slice(0, 3).map(function (x) { return name(x[0]) + " " + pct(x[1], all); }).join(", ");
	}
	if (!all) return "";
	return "processes: " + top(comm, function (c) { return F[c]; }) + "; functions: " + top(fn, frameDisp);
}

// ---- the heat map's modes ----

function mapMode() { return S.map || MAP_DEFAULT; }

// chooseDefaultMap picks the mode a page opens in: change when the
// samples map is flat (a busy host: half its cells at least 60% of the
// hottest, where counting samples shows no moment), else samples.
function chooseDefaultMap() {
	var s = HM.series[0], mx = HM.max[0], n = 0;
	for (var i = 0; i < s.length; i++) if (s[i] > 0) n++;
	MAP_DEFAULT = "samples";
	MAP_WHY = "";
	if (n < 20 || !(mx > 0)) return;
	// a typed array sorts numbers natively: a night's 2 M cells took
	// 0.7-1 s through a comparator, a third of the page's opening
	var vals = new Float64Array(n);
	for (i = 0, n = 0; i < s.length; i++) if (s[i] > 0) vals[n++] = s[i];
	vals.sort();
	var median = vals[vals.length >> 1];
	if (median >= 0.6 * mx) {
		MAP_DEFAULT = "change";
		MAP_WHY = "the samples map is flat (its median cell holds " + pct(median, mx) + " of the hottest), so the page opens showing change";
	}
}

// mapSeries gives the series a lane's cells are coloured by in the
// current mode: the weights (max: the lane's hottest), or scores from 0
// to 1 (change, share).
function mapSeries(li) {
	var mode = mapMode();
	if (mode === "samples") return { s: HM.series[li], max: HM.max[li] };
	var key = mode + "\u0000" + S.share + "\u0000" + li;
	if (HM.modeKey !== key || !HM.mode || HM.modeOf !== HM.series) {
		HM.modeKey = key;
		HM.modeOf = HM.series;
		HM.mode = mode === "change" ? changeSeries() : shareSeries();
	}
	return { s: HM.mode[li] || new Float64Array(HM.series[li].length), max: 1 };
}

// typicalShares gives each process's share of the typical second of a
// lane: the median over the lane's heat map columns (seconds) that hold
// samples of its share there (0 in the columns without it). A process
// that takes a CPU for 2 s of 30 has a typical share of 0, however much
// of the capture's busy samples it holds.
function typicalShares(li) {
	if (HM.typOf !== HM.series) { HM.typOf = HM.series; HM.typ = []; }
	if (HM.typ[li]) return HM.typ[li];
	var V = weightArray(), lists = new Map(), cur = new Float64Array(F.length), seen = new Uint8Array(F.length), touched = [], col = null, tot = 0, ncols = 0;
	function flush() {
		if (tot > 0) ncols++;
		for (var k = 0; k < touched.length; k++) {
			var c = touched[k], l = lists.get(c);
			if (tot > 0) {
				if (!l) lists.set(c, l = []);
				l.push(cur[c] / tot);
			}
			cur[c] = 0;
			seen[c] = 0;
		}
		touched.length = 0;
		tot = 0;
	}
	var many = M.lanes.length > 1;
	for (var ci = 0; ci < CL.length; ci++) {
		var cc = Math.floor(CL[ci] / R);
		if (cc !== col) { flush(); col = cc; }
		for (var e = CS[ci]; e < CS[ci + 1]; e++) {
			if (KE[e] < 0 || many && LANE[EI[e]] !== li) continue;
			var c = TC[ET[e]];
			if (!seen[c]) { seen[c] = 1; touched.push(c); }
			cur[c] += V[e];
			tot += V[e];
		}
	}
	flush();
	var typ = new Float64Array(F.length), mid = ncols >> 1;
	lists.forEach(function (l, c) {
		var zeros = ncols - l.length;
		if (zeros > mid) return; // absent from most seconds: 0
		l.sort(function (a, b) { return a - b; });
		typ[c] = l[mid - zeros];
	});
	HM.typ[li] = typ;
	return typ;
}

// changeSeries scores each cell by the process that rose most in it above
// its share of the typical second (typicalShares): that rise, times
// N/(N+a) where N is the cell's weight and a the median cell's, so that a
// cell of two samples does not outshine a process taking a CPU.
function changeSeries() {
	var out = [], V = weightArray();
	if (!KE) entryTargets();
	HM.rose = [];
	for (var li = 0; li < M.lanes.length; li++) {
		var sp = HM.spans[li], s = HM.series[li], score = new Float64Array(s.length), rose = new Int32Array(s.length).fill(-1);
		var typ = typicalShares(li), vals = [];
		for (var i = 0; i < s.length; i++) if (s[i] > 0) vals.push(s[i]);
		vals.sort(function (a, b) { return a - b; });
		var a = vals.length ? vals[vals.length >> 1] : 1;
		var cellW = new Float64Array(F.length), seen = new Uint8Array(F.length), touched = [];
		for (var ci = 0; ci < CL.length; ci++) {
			var cell = CL[ci];
			if (cell < sp[0] || cell > sp[1]) continue;
			var n = 0;
			for (var e = CS[ci]; e < CS[ci + 1]; e++) {
				if (KE[e] < 0 || M.lanes.length > 1 && LANE[EI[e]] !== li) continue;
				var c = TC[ET[e]];
				if (!seen[c]) { seen[c] = 1; touched.push(c); }
				cellW[c] += V[e];
				n += V[e];
			}
			var best = 0, who = -1;
			for (var k = 0; k < touched.length; k++) {
				var c2 = touched[k], r = n > 0 ? cellW[c2] / n - typ[c2] : 0;
				if (r > best) { best = r; who = c2; }
				cellW[c2] = 0;
				seen[c2] = 0;
			}
			touched.length = 0;
			if (!n) continue;
			score[cell - sp[0]] = best * n / (n + a);
			rose[cell - sp[0]] = who;
		}
		out.push(score);
		HM.rose.push(rose);
	}
	return out;
}

// shareSeries is, per cell, the share of its weight whose stack has a
// frame matching S.share (stackfilter --focus's rule, under the filters).
function shareSeries() {
	var out = [], V = weightArray(), re = null;
	HM.shareError = "";
	try { re = S.share ? compileRE("share", S.share) : null; } catch (e) { HM.shareError = e.message; }
	var hit = new Uint8Array(T.n);
	if (re) {
		var memo = new Map();
		for (var i = 1; i < T.n; i++) {
			var f = T.frame[i], m = memo.get(f);
			if (m === undefined) { m = re.test(frameName(f)); memo.set(f, m); }
			hit[i] = hit[T.parent[i]] || m ? 1 : 0;
		}
	}
	for (var li = 0; li < M.lanes.length; li++) {
		var sp = HM.spans[li], s = HM.series[li], part = new Float64Array(s.length);
		for (var e = 0; e < NE; e++) {
			var t = KE[e];
			if (t < 0 || !hit[t] || M.lanes.length > 1 && LANE[EI[e]] !== li) continue;
			part[EC[e] - sp[0]] += V[e];
		}
		for (i = 0; i < s.length; i++) part[i] = s[i] > 0 ? part[i] / s[i] : 0;
		out.push(part);
	}
	return out;
}

function mapLegend() {
	var mode = mapMode();
	if (mode === "change") return "Change: each cell coloured by the process that rose most above its share of the typical second (white: none, red: +100% of the cell), weighted by the cell's samples" + (MAP_WHY && !S.map ? " (" + MAP_WHY + ")" : "") + ".";
	if (mode === "share") return HM.shareError ? "Share: " + HM.shareError : S.share ? "Share of each cell whose stacks hold a frame matching " + S.share + " (stackfilter --focus): white 0% to red 100%." : "Share: type an expression (a process or function) in the share box.";
	return "";
}

// ---- bursts: what rose ----

// showRise compares a burst with the whole lane, scaled to the burst's
// total (difffolded -n): red is what rose in the burst against the
// typical second.
function showRise(m) {
	var r = { lane: 0, c0: cellOfNs(m.from), c1: cellOfNs(m.to - 1) + 1 }, sp = HM.spans[0];
	S.sel = r;
	S.vs = { lane: 0, c0: sp[0], c1: sp[1] + 1 };
	S.normalize = true;
	S.elided = "";
	if (S.view !== "flame") S.view = "flame";
	centerOn(r);
	update("range");
}
