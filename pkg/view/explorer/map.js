// flamekit explorer: the heat map. A lane per host, a column per second
// and a row per cell, coloured as timeslice --heatmap colours it (Go twin:
// pkg/view/heatmap, its palette and levels), the night overview, the
// bursts outlined, selecting a range (click-click or drag) and comparing.

// ---- heat map ----
var compareNext = false, pending = null, drag = null;
var HM = { lanes: [], series: [], max: [], cols: [0, 0], shown: [0, 0], long: false };
var STRETCH = 300, LONG = 600;

function laneSpan(l) {
	var lo = Infinity, hi = -Infinity;
	for (var i = 0; i < CL.length; i++) {
		for (var e = CS[i]; e < CS[i + 1]; e++) {
			if (LANE[EI[e]] === l) { lo = Math.min(lo, CL[i]); hi = Math.max(hi, CL[i]); break; }
		}
	}
	// A lane spans every sample its inputs read, kept or not (a page made
	// under --comm shows the process's quiet seconds, not a gap).
	M.lanes[l].inputs.forEach(function (i) {
		var inp = M.inputs[i];
		if (inp.first === "") return;
		var off = BigInt(inp.offset);
		lo = Math.min(lo, cellOfNs(Number(BigInt(inp.first) + off - ORIGIN)));
		hi = Math.max(hi, cellOfNs(Number(BigInt(inp.last) + off - ORIGIN)));
	});
	if (lo === Infinity) return [0, 0];
	return [lo, hi];
}

function heatSeries() {
	var n = M.lanes.length;
	HM.series = [];
	HM.max = [];
	for (var l = 0; l < n; l++) {
		var s = HM.spans[l];
		HM.series.push(new Float64Array(s[1] - s[0] + 1));
	}
	var w = M.measure === "weight", V = w ? EW : EN;
	var byComm = HM.byComm = new Float64Array(F.length); // lane 0's weight per process (tracks.js)
	// the entries' targets under the filters, for the ranges' sums
	KE = new Int32Array(NE);
	BLK = new Map();
	if (n === 1) {
		// one lane: the blocks' sums are made in the same pass (entries
		// come in cell order, so a block's entries are a run)
		var a = HM.series[0], first = HM.spans[0][0], mk = M.integral ? blockMaker(-1) : null;
		for (var e = 0; e < NE; e++) {
			if (mk && EC[e] >= mk.end) mk.next(e);
			var t = KMAP[ES[e]];
			if (t < 0 || !THOK[ET[e]] || !CPUOK[EU[e] + 1]) { KE[e] = -1; continue; }
			KE[e] = t;
			a[EC[e] - first] += V[e];
			byComm[TC[ET[e]]] += V[e];
			if (mk) mk.add(t, e);
		}
		if (mk) mk.next(NE);
	} else {
		for (e = 0; e < NE; e++) {
			if (!keepEntry(e)) { KE[e] = -1; continue; }
			KE[e] = KMAP[ES[e]];
			var ln = LANE[EI[e]];
			HM.series[ln][EC[e] - HM.spans[ln][0]] += V[e];
			if (ln === 0) byComm[TC[ET[e]]] += V[e];
		}
	}
	for (l = 0; l < n; l++) {
		var mx = 0, a = HM.series[l];
		for (var i = 0; i < a.length; i++) if (a[i] > mx) mx = a[i];
		HM.max.push(mx);
	}
	if (n > 1) prebuildBlocks();
}

// blockMaker sums the blocks of lane from its entries taken in order:
// add(t, e) adds entry e (of target t) to the block at hand; next(e) ends
// that block before entry e (NE: the last) and starts e's.
function blockMaker(lane) {
	if (!SCR || SCR.self.length !== T.n) SCR = { self: new Float64Array(T.n), selfN: new Float64Array(T.n), seen: new Uint8Array(T.n) };
	var touched = [], start = 0, b = null;
	var mk = { end: -Infinity };
	mk.add = function (t, e) {
		if (!SCR.seen[t]) { SCR.seen[t] = 1; touched.push(t); }
		SCR.self[t] += EW[e];
		SCR.selfN[t] += EN[e];
	};
	mk.next = function (e) {
		if (b !== null) BLK.set(blockKey(b, lane), takeBlock(touched, e - start));
		touched = [];
		start = e;
		if (e < NE) { b = Math.floor(EC[e] / BLOCK); mk.end = (b + 1) * BLOCK; }
	};
	return mk;
}

// takeBlock returns the sums of the nodes touched from SCR, and clears
// them there; null when the block's entries are hardly more than its
// nodes (its entries are summed instead).
function takeBlock(touched, entries) {
	var n = touched.length, out = null;
	if (2 * n < entries) out = { node: new Int32Array(n), self: new Float64Array(n), selfN: new Float64Array(n) };
	for (var k = 0; k < n; k++) {
		var t = touched[k];
		if (out) { out.node[k] = t; out.self[k] = SCR.self[t]; out.selfN[k] = SCR.selfN[t]; }
		SCR.self[t] = SCR.selfN[t] = 0;
		SCR.seen[t] = 0;
	}
	return out;
}

function level(n, max) {
	if (n <= 0 || max <= 0) return 0;
	if (n >= max) return 255;
	var l = Math.floor((n * 255 + Math.floor(max / 2)) / max);
	return Math.min(255, l + (l === 0 ? 1 : 0));
}

function setupHeat() {
	R = M.seconds === 1 && M.rows > 1 ? M.rows : 60;
	HM.spans = M.lanes.map(function (l, i) { return laneSpan(i); });
	// a lane's columns are placed on the wall clock when every lane has one
	var walls = M.lanes.every(function (l) { return l.wallMs > 0; });
	var colMs = R * (M.seconds > 1 ? M.seconds * 1000 : 1000 / M.rows);
	HM.shift = M.lanes.map(function (l) { return walls ? Math.round((l.wallMs - M.lanes[0].wallMs) / colMs) : 0; });
	HM.residual = M.lanes.map(function (l, i) { return walls ? (l.wallMs - M.lanes[0].wallMs) - HM.shift[i] * colMs : 0; });
	var lo = Infinity, hi = -Infinity;
	HM.spans.forEach(function (s, i) { lo = Math.min(lo, Math.floor(s[0] / R) + HM.shift[i]); hi = Math.max(hi, Math.floor(s[1] / R) + HM.shift[i]); });
	HM.cols = [lo, hi];
	HM.long = hi - lo + 1 > LONG;
	HM.stretch = lo;
	if (HM.long && M.marks.length) centerOn({ lane: 0, c0: cellOfNs(M.marks[0].from), c1: cellOfNs(M.marks[0].to) });
	UI.heat.textContent = "";
	HM.lanes = M.lanes.map(function (lane, i) {
		var box = el("div", { class: "lane" });
		var label = lane.host ? "host " + lane.host : M.lanes.length > 1 ? "host unknown" : "";
		if (M.lanes.length > 1 && !walls) label += " (not placed on the wall clock: no clock reference)";
		else if (HM.residual[i]) label += " (shifted " + (HM.residual[i] / 1000).toFixed(2) + " s to whole columns)";
		if (label) box.appendChild(el("div", { class: "lanehead" }, label));
		var ov = null;
		if (HM.long) {
			ov = el("canvas", { class: "overview", "data-lane": i });
			box.appendChild(ov);
			ov.addEventListener("click", function (e) { overviewClick(i, e); });
		}
		var c = el("canvas", { class: "heatmap", "data-lane": i, id: "heat-" + i });
		box.appendChild(c);
		UI.heat.appendChild(box);
		heatEvents(c, i);
		return { canvas: c, overview: ov };
	});
}

// geometry of lane canvases
function heatGeom() {
	var width = Math.max(UI.heat.clientWidth, 400), x0 = 64;
	var cols = HM.long ? STRETCH : HM.cols[1] - HM.cols[0] + 1;
	var first = HM.long ? HM.stretch : HM.cols[0];
	var cw = Math.max(1, Math.min(40, Math.floor((width - x0 - 16) / cols)));
	var ch = R <= 10 ? 14 : Math.max(2, Math.min(8, Math.floor(260 / R)));
	return { x0: x0, y0: 6, cw: cw, ch: ch, cols: cols, first: first, width: width, height: 6 + R * ch + 34 };
}

// drawHeat draws each lane: its cells, marks and axes from a layer drawn
// once per series and geometry (heatLayer), then the ranges over them.
function drawHeat() {
	var g = heatGeom();
	HM.geom = g;
	HM.lanes.forEach(function (ln, li) {
		var ctx = sizeCanvas(ln.canvas, g.width, g.height);
		var layer = heatLayer(ln, li, g);
		ctx.save();
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.drawImage(layer, 0, 0);
		ctx.restore();
		// selections
		if (S.sel && S.sel.lane === li) shade(ctx, g, li, S.sel.c0, S.sel.c1, "rgba(40,90,255,0.22)", "rgb(20,50,200)");
		// the comparison range: teal and dashed, apart from the map's reds
		if (S.vs && S.vs.lane === li) shade(ctx, g, li, S.vs.c0, S.vs.c1, "rgba(0,150,160,0.30)", "rgb(0,110,120)", [4, 3]);
		if (drag && drag.lane === li && drag.c !== drag.start) shade(ctx, g, li, Math.min(drag.start, drag.c), Math.max(drag.start, drag.c) + 1, drag.vs ? "rgba(0,150,160,0.25)" : "rgba(40,90,255,0.18)");
		if (pending && pending.lane === li) {
			ctx.strokeStyle = pending.vs ? "rgb(0,110,120)" : "rgb(20,40,160)";
			ctx.lineWidth = 2;
			var pc = cellXY(g, li, pending.cell);
			if (pc) ctx.strokeRect(pc[0], pc[1], g.cw, g.ch);
		}
		if (ln.overview) drawOverview(ln.overview, li, g);
	});
	legend();
	scheduleTracks();
}

// heatLayer returns a lane's canvas of what no range changes: the cells,
// the marks (bursts) and the axes, drawn again only when the series or
// the geometry change.
function heatLayer(ln, li, g) {
	var dpr = window.devicePixelRatio || 1, ms = mapSeries(li), s = ms.s;
	var key = [g.width, g.height, g.cw, g.ch, g.cols, g.first, g.x0, dpr, ms.max].join(",");
	if (ln.layer && ln.layerKey === key && ln.layerSeries === s) return ln.layer;
	var c = ln.layer || document.createElement("canvas");
	c.width = Math.round(g.width * dpr);
	c.height = Math.round(g.height * dpr);
	ln.layer = c;
	ln.layerKey = key;
	ln.layerSeries = s;
	var ctx = c.getContext("2d");
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.fillStyle = "#fff";
	ctx.fillRect(0, 0, g.width, g.height);
	ctx.strokeStyle = "#ddd";
	ctx.strokeRect(g.x0 - 0.5, g.y0 - 0.5, g.cols * g.cw + 1, R * g.ch + 1);
	var span = HM.spans[li], mx = ms.max, shift = HM.shift[li];
	for (var k = 0; k < s.length; k++) {
		var v = s[k];
		if (!v) continue;
		var cell = span[0] + k, col = Math.floor(cell / R), row = cell - col * R, dc = col + shift - g.first;
		if (dc < 0 || dc >= g.cols) continue;
		ctx.fillStyle = M.palette[level(v, mx)];
		ctx.fillRect(g.x0 + dc * g.cw, g.y0 + (R - 1 - row) * g.ch, g.cw, g.ch);
	}
	// marks (bursts)
	ctx.strokeStyle = "rgb(0,110,0)";
	ctx.lineWidth = 1.5;
	M.marks.forEach(function (m) { outline(ctx, g, li, cellOfNs(m.from), cellOfNs(m.to - 1) + 1, true); });
	// axes
	ctx.fillStyle = "rgb(80,80,80)";
	ctx.font = "10px Verdana, sans-serif";
	ctx.textAlign = "right";
	ctx.textBaseline = "middle";
	rowLabels().forEach(function (rl) { ctx.fillText(rl[1], g.x0 - 4, g.y0 + (R - rl[0]) * g.ch - 1); });
	ctx.textAlign = "center";
	ctx.textBaseline = "top";
	var step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find(function (s) { return s * g.cw >= 44; }) || 3600;
	for (var col = Math.ceil(g.first / step) * step; col < g.first + g.cols; col += step) {
		// centred under its column, kept inside the canvas (the last)
		var label = colLabel(col - shift, li), half = ctx.measureText(label).width / 2;
		ctx.fillText(label, Math.min(g.x0 + (col - g.first) * g.cw + g.cw / 2, g.width - 2 - half), g.y0 + R * g.ch + 3);
	}
	ctx.textAlign = "left";
	ctx.fillText(axisName(li), g.x0, g.y0 + R * g.ch + 17);
	return c;
}

function rowLabels() {
	if (M.seconds === 1 && M.rows > 1) {
		return [0, 200, 400, 600, 800].map(function (ms) { return [Math.ceil(ms * M.rows / 1000), ms + " ms"]; }).filter(function (x) { return x[0] < R; });
	}
	var cellS = M.seconds;
	return [0, 15, 30, 45].map(function (r) { return [r, "+" + fmtDur(r * cellS)]; });
}

function fmtDur(s) {
	if (s < 60) return s + " s";
	if (s < 3600) return (s % 60 ? (s / 60).toFixed(1) : s / 60) + " min";
	return (s / 3600).toFixed(s % 3600 ? 1 : 0) + " h";
}

function colSeconds() { return R * (M.seconds > 1 ? M.seconds : 1 / M.rows); }

function colLabel(col, li) {
	var s = col * colSeconds();
	if (M.lanes.length > 1 && M.lanes[0].wallMs > 0) {
		var d = new Date(M.lanes[li].wallMs + s * 1000);
		return d.toISOString().slice(11, 19);
	}
	if (colSeconds() < 60 && !HM.long) return String(s);
	var h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
	return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
}

function axisName(li) {
	if (M.lanes.length > 1 && M.lanes[0].wallMs > 0) return "wall clock (UTC)";
	var what = colSeconds() < 60 && !HM.long ? "seconds" : "h:mm:ss";
	return what + " after the first sample (@" + perfTime(0).slice(1) + ")" + (M.wall ? ", " + new Date(M.wall.ms).toISOString().replace(".000Z", "Z") + (M.wall.estimated ? " (estimated)" : "") : "");
}

function cellXY(g, li, cell) {
	var col = Math.floor(cell / R), row = cell - col * R, dc = col + HM.shift[li] - g.first;
	if (dc < 0 || dc >= g.cols) return null;
	return [g.x0 + dc * g.cw, g.y0 + (R - 1 - row) * g.ch];
}

// shade tints the cells of a range and draws its outline: a run of cells
// per column, the range's ends closing it.
function shade(ctx, g, li, c0, c1, color, line, dash) {
	var a = Math.max(c0, (g.first - HM.shift[li]) * R), b = Math.min(c1, (g.first + g.cols - HM.shift[li]) * R);
	var boxes = [];
	for (var c = a; c < b;) {
		var col = Math.floor(c / R), row = c - col * R, end = Math.min(b, (col + 1) * R);
		var xy = cellXY(g, li, c);
		if (xy) boxes.push([xy[0], g.y0 + (R - (row + (end - c))) * g.ch, g.cw, (end - c) * g.ch]);
		c = end;
	}
	ctx.fillStyle = color;
	boxes.forEach(function (r) { ctx.fillRect(r[0], r[1], r[2], r[3]); });
	if (!line) return;
	ctx.strokeStyle = line;
	ctx.lineWidth = dash ? 2 : 1.5;
	ctx.setLineDash(dash || []);
	ctx.beginPath();
	boxes.forEach(function (r, i) {
		var x0 = r[0] + 0.75, x1 = r[0] + r[2] - 0.75, y0 = r[1] + 0.75, y1 = r[1] + r[3] - 0.75;
		ctx.moveTo(x0, y0); ctx.lineTo(x1, y0); // top of the run
		ctx.moveTo(x0, y1); ctx.lineTo(x1, y1); // bottom
		if (i === 0 || boxes[i - 1][0] !== r[0] - r[2]) { ctx.moveTo(x0, y0); ctx.lineTo(x0, y1); }
		if (i === boxes.length - 1) { ctx.moveTo(x1, y0); ctx.lineTo(x1, y1); }
	});
	ctx.stroke();
	ctx.setLineDash([]);
}

function outline(ctx, g, li, c0, c1) {
	for (var c = c0; c < c1;) {
		var col = Math.floor(c / R), row = c - col * R, end = Math.min(c1, (col + 1) * R);
		var xy = cellXY(g, li, c);
		if (xy) ctx.strokeRect(xy[0] + 0.5, g.y0 + (R - (row + (end - c))) * g.ch + 0.5, g.cw - 1, (end - c) * g.ch - 1);
		c = end;
	}
}

// overviewPer: the heat map columns per overview column, a round number
// that fits the capture in 600 columns.
function overviewPer(ncols) {
	var per = [1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 180, 360, 720, 1440].find(function (p) { return Math.ceil(ncols / p) <= 600; });
	return per || Math.ceil(ncols / 600);
}

function drawOverview(c, li, g) {
	var ncols = HM.cols[1] - HM.cols[0] + 1, per = overviewPer(ncols), ocols = Math.ceil(ncols / per);
	var ow = Math.max(1, Math.min(12, Math.floor((g.width - g.x0 - 16) / ocols))), oh = 2, rows = 60;
	var w = g.width, h = rows * oh + 20;
	var ctx = sizeCanvas(c, w, h);
	ctx.fillStyle = "#fff";
	ctx.fillRect(0, 0, w, h);
	var s = HM.series[li], span = HM.spans[li], acc = new Float64Array(ocols * rows), mx = 0;
	for (var k = 0; k < s.length; k++) {
		if (!s[k]) continue;
		var cell = span[0] + k, col = Math.floor(cell / R) + HM.shift[li] - HM.cols[0];
		var oc = Math.floor(col / per), within = (col - oc * per) * R + (cell - Math.floor(cell / R) * R);
		var i = oc * rows + Math.floor(within * rows / (per * R));
		acc[i] += s[k];
		if (acc[i] > mx) mx = acc[i];
	}
	for (i = 0; i < acc.length; i++) {
		if (!acc[i]) continue;
		oc = Math.floor(i / rows);
		var r = i - oc * rows;
		ctx.fillStyle = M.palette[level(acc[i], mx)];
		ctx.fillRect(g.x0 + oc * ow, (rows - 1 - r) * oh, ow, oh);
	}
	ctx.strokeStyle = "rgb(20,40,160)";
	ctx.strokeRect(g.x0 + (HM.stretch - HM.cols[0]) / per * ow, 0, STRETCH / per * ow, rows * oh);
	ctx.fillStyle = "rgb(80,80,80)";
	ctx.font = "10px Verdana, sans-serif";
	ctx.textBaseline = "top";
	ctx.fillText("overview: a column per " + fmtDur(per * colSeconds()) + "; click it for the detail there", g.x0, rows * oh + 4);
	HM.ov = { per: per, ow: ow, x0: g.x0 };
}

function overviewClick(li, e) {
	var b = e.target.getBoundingClientRect(), x = e.clientX - b.left;
	var oc = Math.floor((x - HM.ov.x0) / HM.ov.ow);
	var col = HM.cols[0] + oc * HM.ov.per;
	HM.stretch = Math.max(HM.cols[0], Math.min(col - STRETCH / 2, HM.cols[1] - STRETCH + 1));
	drawHeat();
}

function heatCell(li, e) {
	var g = HM.geom, b = HM.lanes[li].canvas.getBoundingClientRect();
	var x = e.clientX - b.left, y = e.clientY - b.top;
	var dc = Math.floor((x - g.x0) / g.cw), row = R - 1 - Math.floor((y - g.y0) / g.ch);
	if (dc < 0 || dc >= g.cols || row < 0 || row >= R) return null;
	return (dc + g.first - HM.shift[li]) * R + row;
}

function heatEvents(c, li) {
	c.addEventListener("mousedown", function (e) {
		var cell = heatCell(li, e);
		if (cell === null || e.button !== 0) return;
		e.preventDefault();
		drag = { lane: li, start: cell, c: cell, vs: e.shiftKey || compareNext };
	});
	c.addEventListener("mousemove", function (e) {
		var cell = heatCell(li, e);
		hoverHeat(li, cell);
		if (drag && cell !== null && drag.lane === li && cell !== drag.c) { drag.c = cell; drawHeat(); }
	});
	c.addEventListener("mouseleave", function () { hoverHeat(li, null); });
	window.addEventListener("mouseup", function (e) {
		if (!drag || drag.lane !== li) return;
		var d = drag;
		drag = null;
		var cell = heatCell(li, e);
		if (cell === null) cell = d.c;
		if (cell !== d.start) { choose(li, d.start, cell, d.vs); return; }
		if (pending && pending.lane === li && pending.vs === d.vs) { var a = pending.cell; pending = null; choose(li, a, cell, d.vs); return; }
		pending = { lane: li, cell: cell, vs: d.vs };
		drawHeat();
		status();
	});
}

function choose(li, a, b, vs) {
	var r = { lane: li, c0: Math.min(a, b), c1: Math.max(a, b) + 1 };
	pending = null;
	if (vs) { S.vs = r; compareNext = false; } else S.sel = r;
	update("range");
}

function hoverHeat(li, cell) {
	if (cell === null) { UI.details.textContent = "\u00a0"; return; }
	var s = HM.series[li], span = HM.spans[li], v = cell >= span[0] && cell <= span[1] ? s[cell - span[0]] : 0;
	var a = cellStartNs(cell), b = cellStartNs(cell + 1);
	UI.details.textContent = (M.lanes.length > 1 ? "host " + M.lanes[li].host + ", " : "") + fmtSecs(a) + " s to " + fmtSecs(b) + " s after the first sample: " +
		fmtInt(v) + " " + (M.measure === "weight" ? M.unit : "samples") + (S.sel ? "" : "  (click a start cell, then an end cell; or drag; shift: the comparison range)");
	var top = v ? cellTop(li, cell) : "";
	if (mapMode() !== "samples" && HM.mode && HM.mode[li] && v) {
		var k = cell - span[0], sc = HM.mode[li][k];
		top = (mapMode() === "change" ? "change " + (100 * sc).toFixed(0) + "%" + (HM.rose && HM.rose[li][k] >= 0 ? " (" + F[HM.rose[li][k]] + " rose)" : "") : "share " + (100 * sc).toFixed(1) + "%") + "; " + top;
	}
	if (top) UI.details.textContent += " — " + top;
}

function legend() {
	var unit = M.measure === "weight" ? M.unit : "samples";
	var cell = M.seconds > 1 ? fmtDur(M.seconds) : (1000 / M.rows).toFixed(M.rows > 100 ? 1 : 0) + " ms";
	var mx = Math.max.apply(null, HM.max.concat([0]));
	var t = "Heat map: " + unit + " per " + cell + " cell, " + (mx > 0 ? "white 0 to red " + HM.max.map(fmtInt).join(" / ") : "empty: no samples under the filters") +
		(S.noIdle ? "; idle CPUs left out" : "; idle CPUs included") + (M.measure === "samples" ? " (cells count samples; flame graphs sum their weights, as flamegraph)" : "") + ".";
	if (M.full) t += " Cells are " + cell + " wide to keep the page small (" + fmtInt(M.full.entries) + " entries at full resolution); for full detail cut a window of up to " + fmtDur(M.full.fitSeconds) + ", the command below.";
	if (mapMode() !== "samples") t = mapLegend() + " " + t.replace(/^Heat map: /, "Samples: ");
	UI.legend.textContent = t;
}

function drawBursts() {
	UI.bursts.textContent = "";
	if (!M.marks.length) return;
	UI.bursts.appendChild(el("li", { class: "head" }, "Bursts, best first (green outlines); click one to select it:"));
	M.marks.forEach(function (m, i) {
		var li = el("li", { class: "burst", "data-mark": i });
		var a = el("a", { href: "#", class: "burstsel" }, (i + 1) + ". " + m.label);
		a.addEventListener("click", function (e) {
			e.preventDefault();
			S.sel = { lane: 0, c0: cellOfNs(m.from), c1: cellOfNs(m.to - 1) + 1 };
			centerOn(S.sel);
			update("range");
		});
		li.appendChild(a);
		var b = el("button", { type: "button", class: "whatrose", id: "rise-" + i, title: "The burst against the whole capture scaled to the burst's total (difffolded -n): red rose in the burst" }, "what rose");
		b.addEventListener("click", function () { showRise(m); });
		li.appendChild(b);
		UI.bursts.appendChild(li);
	});
}

function centerOn(r) {
	if (!HM.long || !r) return;
	var col = Math.floor(r.c0 / R) + HM.shift[r.lane];
	if (col < HM.stretch || col >= HM.stretch + STRETCH) HM.stretch = Math.max(HM.cols[0], Math.min(col - STRETCH / 2, HM.cols[1] - STRETCH + 1));
}

