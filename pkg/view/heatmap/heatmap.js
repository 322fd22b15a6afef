"use strict";
// flamekit heat map. Written for flamekit. hmData (written by the
// generator just before this script) holds only numbers and base64: the
// origin (the first sample, [seconds, nanoseconds] on perf's clock), the
// cells of every second (run-length encoded, decoded a minute at a time
// as stretches are shown), the overview of a long capture, the layout,
// the palette and the marks. Text (arguments, input names, labels) is
// read from elements. Seconds count from the first sample everywhere:
// "second 14, 200 ms" is timeslice --from 14.2s. The command a selection
// gives uses absolute perf-clock times.

// ---- pure helpers, also run by node in the tests ----

// absTime returns the perf time rel nanoseconds after origin, as
// [seconds, nanoseconds].
function absTime(origin, rel) {
	var ns = origin[1] + rel;
	var s = Math.floor(ns / 1e9);
	return [origin[0] + s, ns - s * 1e9];
}

// formatTime formats a perf time as flamekit does: six decimals, nine when
// the time has sub-microsecond digits.
function formatTime(t) {
	var ns = t[1], digits = 9;
	if (ns % 1000 === 0) {
		ns = ns / 1000;
		digits = 6;
	}
	var frac = String(ns);
	while (frac.length < digits) {
		frac = "0" + frac;
	}
	return String(t[0]) + "." + frac;
}

// cellStart returns the start of cell (second sec, row row) in
// nanoseconds after the origin: the first nanosecond whose row is row.
// Row == rows is the start of the next second.
function cellStart(rows, sec, row) {
	return sec * 1e9 + Math.ceil(row * 1e9 / rows);
}

// cellOf returns the cell of a time rel nanoseconds after the origin.
function cellOf(rows, rel) {
	var s = Math.floor(rel / 1e9);
	return { s: s, r: Math.floor((rel - s * 1e9) * rows / 1e9) };
}

// rangeCommand returns the timeslice command for the cells from (s1, r1)
// to (s2, r2), both included, in time order; args and the inputs follow.
function rangeCommand(origin, rows, s1, r1, s2, r2, args) {
	if (s2 * rows + r2 < s1 * rows + r1) {
		var s = s1, r = r1;
		s1 = s2; r1 = r2; s2 = s; r2 = r;
	}
	return "timeslice --from @" + formatTime(absTime(origin, cellStart(rows, s1, r1))) +
		" --to @" + formatTime(absTime(origin, cellStart(rows, s2, r2 + 1))) + args;
}

// formatRel formats nanoseconds as seconds for --from/--to: "14.2s".
function formatRel(ns) {
	var sign = ns < 0 ? "-" : "";
	ns = Math.abs(ns);
	var s = Math.floor(ns / 1e9), frac = String(ns - s * 1e9);
	while (frac.length < 9) {
		frac = "0" + frac;
	}
	frac = frac.replace(/0+$/, "");
	return sign + s + (frac ? "." + frac : "") + "s";
}

// formatMs formats the start of row r as milliseconds to a tenth.
function formatMs(r, rows) {
	return String(Math.round(r * 10000 / rows) / 10);
}

// clock formats seconds as h:mm:ss or m:ss.
function clock(s) {
	var neg = s < 0 ? "-" : "";
	s = Math.abs(s);
	var h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
	var two = function (v) { return (v < 10 ? "0" : "") + v; };
	return neg + (h > 0 ? h + ":" + two(m) : String(m)) + ":" + two(sec);
}

// level returns the colour level (0..255) of a cell of n samples when the
// fullest has max, as heatmap.Level.
function level(n, max) {
	if (n <= 0 || max <= 0) {
		return 0;
	}
	if (n >= max) {
		return 255;
	}
	var l = Math.floor((n * 255 + Math.floor(max / 2)) / max);
	return l < 1 ? 1 : Math.min(255, l);
}

// decode decodes n counts of a run-length encoded stream (a binary
// string) from byte pos: a count is an unsigned varint, a 0 byte and a
// varint k are k empty cells.
function decode(bin, pos, n, Type) {
	var out = new Type(n), i = 0;
	while (i < n && pos < bin.length) {
		var zero = bin.charCodeAt(pos) === 0;
		if (zero) {
			pos++;
		}
		var v = 0, mult = 1, b;
		do {
			b = bin.charCodeAt(pos++);
			v += (b & 0x7f) * mult;
			mult *= 128;
		} while (b & 0x80);
		if (zero) {
			i += v;
		} else {
			out[i++] = v;
		}
	}
	return out;
}

// gapAt returns the index of the first part not recorded (gaps: sorted
// [from, to) pairs of nanoseconds after the origin) that ends after t.
function gapAt(gaps, t) {
	var lo = 0, hi = gaps.length;
	while (lo < hi) {
		var mid = (lo + hi) >> 1;
		if (gaps[mid][1] <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

// inGap reports whether time t (ns after the origin) was not recorded.
function inGap(gaps, t) {
	var i = gapAt(gaps, t);
	return i < gaps.length && gaps[i][0] <= t;
}

// covered returns how many nanoseconds of [from, to) were not recorded.
function covered(gaps, from, to) {
	var n = 0;
	for (var i = gapAt(gaps, from); i < gaps.length && gaps[i][0] < to; i++) {
		n += Math.min(gaps[i][1], to) - Math.max(gaps[i][0], from);
	}
	return Math.max(n, 0);
}

// unrecordedRows returns the runs [lo, hi] of the rows of second s drawn
// as not recorded: no sample (col: the counts, or null) and the middle of
// the cell not recorded, as Grid.UnrecordedCell.
function unrecordedRows(gaps, rows, s, col) {
	var runs = [], lo = -1;
	if (covered(gaps, cellStart(rows, s, 0), cellStart(rows, s + 1, 0)) === 0) {
		return runs;
	}
	for (var r = 0; r <= rows; r++) {
		var un = false;
		if (r < rows && (col === null || col[r] === 0)) {
			var a = cellStart(rows, s, r), b = cellStart(rows, s, r + 1);
			un = inGap(gaps, a + Math.floor((b - a) / 2));
		}
		if (un && lo < 0) {
			lo = r;
		} else if (!un && lo >= 0) {
			runs.push([lo, r - 1]);
			lo = -1;
		}
	}
	return runs;
}

if (typeof module !== "undefined") {
	module.exports = {
		absTime: absTime, formatTime: formatTime, cellStart: cellStart, cellOf: cellOf,
		rangeCommand: rangeCommand, formatRel: formatRel, formatMs: formatMs, clock: clock,
		level: level, decode: decode, inGap: inGap, covered: covered, unrecordedRows: unrecordedRows
	};
}

// ---- the drawing ----

var SVGNS = "http://www.w3.org/2000/svg";
var hm = null;

function byId(id) {
	return document.getElementById(id);
}

function init(evt) {
	var t0 = performance.now();
	var d = hmData, root = byId("hm");
	hm = {
		d: d, g: d.grid, rows: d.grid.rows, origin: d.origin, dc: d.detail, ov: d.ov,
		args: root.getAttribute("data-args") || "",
		unit: root.getAttribute("data-unit") || "",
		wallMs: root.hasAttribute("data-wall-ms") ? Number(root.getAttribute("data-wall-ms")) : null,
		wallEst: root.getAttribute("data-wall-est") === "true",
		bin: atob(d.grid.cells), chunks: new Map(), gaps: d.gaps || [],
		start: d.detail.start, sel: null, done: false,
		inputs: [], palette: [],
		details: byId("details"), cmd: byId("cmd"), copied: byId("copied"),
		selG: byId("sel"), marksG: byId("dmarks"), hover: byId("hover")
	};
	var ins = byId("inputs").getElementsByTagName("text");
	for (var i = 0; i < ins.length; i++) {
		var e = ins[i];
		hm.inputs.push({
			arg: e.textContent,
			first: e.hasAttribute("data-first") ? Number(e.getAttribute("data-first")) : null,
			last: e.hasAttribute("data-last") ? Number(e.getAttribute("data-last")) : null
		});
	}
	for (var p = 0; p < d.palette.length; p++) {
		var h = d.palette[p];
		hm.palette.push([parseInt(h.substr(1, 2), 16), parseInt(h.substr(3, 2), 16), parseInt(h.substr(5, 2), 16)]);
	}
	// The sub-second map is drawn on a canvas over the static image: one
	// pixel per cell on a small canvas, scaled up without smoothing.
	var w = hm.dc.cols * hm.dc.cw, ht = hm.rows * hm.dc.ch;
	var fo = document.createElementNS(SVGNS, "foreignObject");
	fo.setAttribute("x", hm.dc.x0);
	fo.setAttribute("y", hm.dc.y0);
	fo.setAttribute("width", w);
	fo.setAttribute("height", ht);
	var canvas = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas");
	canvas.width = w;
	canvas.height = ht;
	canvas.setAttribute("style", "display: block");
	fo.appendChild(canvas);
	var dimg = byId("dimg");
	dimg.parentNode.insertBefore(fo, dimg.nextSibling);
	dimg.setAttribute("visibility", "hidden");
	hm.canvas = canvas;
	hm.small = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas");
	hm.small.width = hm.dc.cols;
	hm.small.height = hm.rows;

	var dg = byId("dgrid");
	dg.addEventListener("mousemove", detailMove);
	dg.addEventListener("mouseleave", function () { hide(hm.hover); });
	dg.addEventListener("click", detailClick);
	if (hm.ov) {
		hm.ovCounts = decode(atob(hm.ov.cells), 0, hm.ov.cols * 60, Float64Array);
		var og = byId("ogrid");
		og.addEventListener("mousemove", overviewMove);
		og.addEventListener("mouseleave", function () { hide(byId("ohover")); });
		og.addEventListener("click", overviewClick);
		byId("prev").addEventListener("click", function () { show(hm.start - hm.dc.cols / 2); });
		byId("next").addEventListener("click", function () { show(hm.start + hm.dc.cols / 2); });
	}
	var bs = byId("bursts");
	if (bs) {
		bs.addEventListener("click", function (e) {
			var m = e.target.getAttribute && e.target.getAttribute("data-mark");
			if (m !== null && m !== undefined) {
				openMark(Number(m));
			}
		});
	}
	document.addEventListener("keydown", function (e) {
		if (e.key === "Escape") {
			clearSelection();
		} else if (hm.ov && e.key === "ArrowLeft") {
			show(hm.start - hm.dc.cols / 2);
		} else if (hm.ov && e.key === "ArrowRight") {
			show(hm.start + hm.dc.cols / 2);
		}
	});
	show(hm.start);
	hm.cmd.textContent = "Click a start cell, then an end cell: the timeslice command for that range appears here.";
	// heat.svg#range=S1:R1-S2:R2 opens with that range selected (seconds
	// after the first sample, rows from the start of the second);
	// heat.svg#at=S opens the stretch around second S.
	var m = /^#range=(-?\d+):(\d+)-(-?\d+):(\d+)$/.exec(location.hash);
	if (m !== null) {
		var a = { s: Number(m[1]), r: Number(m[2]) }, b = { s: Number(m[3]), r: Number(m[4]) };
		if (a.r < hm.rows && b.r < hm.rows && inGrid(a.s) && inGrid(b.s)) {
			centre(a.s);
			select(a, b);
		}
	}
	m = /^#at=(-?\d+)$/.exec(location.hash);
	if (m !== null) {
		centre(Number(m[1]));
	}
	hm.initMs = performance.now() - t0; // for the benchmarks
}

function inGrid(s) {
	return s >= hm.g.first && s < hm.g.first + hm.g.cols;
}

function hide(el) {
	el.setAttribute("visibility", "hidden");
}

// column returns the counts of second s (a Uint32Array of rows), or null
// outside the capture.
function column(s) {
	var c = s - hm.g.first;
	if (c < 0 || c >= hm.g.cols) {
		return null;
	}
	var k = Math.floor(c / 60);
	var ch = hm.chunks.get(k);
	if (ch === undefined) {
		ch = decode(hm.bin, hm.g.index[k], Math.min(60, hm.g.cols - k * 60) * hm.rows, Uint32Array);
		hm.chunks.set(k, ch);
	}
	var i = (c - k * 60) * hm.rows;
	return ch.subarray(i, i + hm.rows);
}

function count(s, r) {
	var col = column(s);
	return col === null ? 0 : col[r];
}

// centre shows the stretch around second s.
function centre(s) {
	show(Math.floor((s - hm.dc.cols / 2) / 10) * 10);
}

// show draws the sub-second map of the stretch starting at second start.
function show(start) {
	var dc = hm.dc, g = hm.g, rows = hm.rows;
	start = Math.max(Math.min(Math.floor(start), g.first + g.cols - dc.cols), g.first);
	hm.start = start;
	var sctx = hm.small.getContext("2d");
	var img = sctx.createImageData(dc.cols, rows), px = img.data;
	for (var c = 0; c < dc.cols; c++) {
		var col = column(start + c);
		for (var r = 0; r < rows; r++) {
			var rgb = hm.palette[col === null ? 0 : level(col[r], g.max)];
			var i = ((rows - 1 - r) * dc.cols + c) * 4;
			px[i] = rgb[0];
			px[i + 1] = rgb[1];
			px[i + 2] = rgb[2];
			px[i + 3] = 255;
		}
	}
	sctx.putImageData(img, 0, 0);
	var ctx = hm.canvas.getContext("2d");
	ctx.imageSmoothingEnabled = false;
	ctx.drawImage(hm.small, 0, 0, hm.canvas.width, hm.canvas.height);
	if (hm.ov) {
		byId("dhead").textContent = "Sub-second map of seconds " + start + " to " + (start + dc.cols - 1) +
			" after the first sample (" + clock(start) + " to " + clock(start + dc.cols) + ")";
		byId("prev").setAttribute("visibility", start > g.first ? "visible" : "hidden");
		byId("next").setAttribute("visibility", start + dc.cols < g.first + g.cols ? "visible" : "hidden");
		var st = byId("stretch");
		st.setAttribute("x", hm.ov.x0 + (start - hm.ov.first) / hm.ov.len * hm.ov.cw);
		st.setAttribute("width", Math.max(dc.cols / hm.ov.len * hm.ov.cw, 1));
		st.setAttribute("visibility", "visible");
	}
	drawAxis();
	drawUnrecorded();
	drawMarks();
	drawSelection();
}

// drawUnrecorded hatches the cells of the stretch that were not recorded.
function drawUnrecorded() {
	var g = byId("dunrec"), dc = hm.dc, rows = hm.rows;
	while (g.firstChild) {
		g.removeChild(g.firstChild);
	}
	if (hm.gaps.length === 0) {
		return;
	}
	for (var c = 0; c < dc.cols; c++) {
		var s = hm.start + c;
		if (!inGrid(s)) {
			continue;
		}
		var runs = unrecordedRows(hm.gaps, rows, s, column(s));
		for (var i = 0; i < runs.length; i++) {
			var r = document.createElementNS(SVGNS, "rect");
			r.setAttribute("class", "unrec");
			r.setAttribute("x", dc.x0 + c * dc.cw);
			r.setAttribute("y", dc.y0 + (rows - 1 - runs[i][1]) * dc.ch);
			r.setAttribute("width", dc.cw);
			r.setAttribute("height", (runs[i][1] - runs[i][0] + 1) * dc.ch);
			g.appendChild(r);
		}
	}
}

function drawAxis() {
	var dc = hm.dc, ax = byId("daxis");
	while (ax.firstChild) {
		ax.removeChild(ax.firstChild);
	}
	var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600], step = 3600;
	for (var i = 0; i < steps.length; i++) {
		if (steps[i] * dc.cw >= 40) {
			step = steps[i];
			break;
		}
	}
	var y = dc.y0 + hm.rows * dc.ch + 13;
	for (var s = Math.ceil(hm.start / step) * step; s < hm.start + dc.cols; s += step) {
		var t = document.createElementNS(SVGNS, "text");
		t.setAttribute("class", "axis");
		t.setAttribute("x", dc.x0 + (s - hm.start) * dc.cw + Math.floor(dc.cw / 2));
		t.setAttribute("y", y);
		t.setAttribute("text-anchor", "middle");
		t.textContent = String(s);
		ax.appendChild(t);
	}
}

// outline adds rectangles over the cells from a to b (both included, in
// time order) that the stretch shows, one per column, to group.
function outline(group, cls, a, b) {
	var dc = hm.dc, rows = hm.rows;
	for (var s = Math.max(a.s, hm.start); s <= Math.min(b.s, hm.start + dc.cols - 1); s++) {
		var lo = s === a.s ? a.r : 0, hi = s === b.s ? b.r : rows - 1;
		var r = document.createElementNS(SVGNS, "rect");
		r.setAttribute("class", cls);
		r.setAttribute("x", dc.x0 + (s - hm.start) * dc.cw);
		r.setAttribute("y", dc.y0 + (rows - 1 - hi) * dc.ch);
		r.setAttribute("width", dc.cw);
		r.setAttribute("height", (hi - lo + 1) * dc.ch);
		group.appendChild(r);
	}
}

function markCells(i) {
	var m = hm.d.marks[i];
	return { a: cellOf(hm.rows, m[0]), b: cellOf(hm.rows, m[1] - 1) };
}

function drawMarks() {
	var g = hm.marksG;
	while (g.firstChild) {
		g.removeChild(g.firstChild);
	}
	for (var i = 0; i < hm.d.marks.length; i++) {
		var m = markCells(i);
		outline(g, "mark", m.a, m.b);
	}
}

function drawSelection() {
	while (hm.selG.firstChild) {
		hm.selG.removeChild(hm.selG.firstChild);
	}
	if (hm.sel !== null) {
		outline(hm.selG, "sel", hm.sel.a, hm.sel.b);
	}
}

function svgPoint(evt) {
	var svg = document.documentElement;
	var pt = svg.createSVGPoint();
	pt.x = evt.clientX;
	pt.y = evt.clientY;
	return pt.matrixTransform(svg.getScreenCTM().inverse());
}

// detailCell returns the cell of the sub-second map under the mouse
// ({s: second, r: row}), or null.
function detailCell(evt) {
	var p = svgPoint(evt), dc = hm.dc;
	var c = Math.floor((p.x - dc.x0) / dc.cw), rr = Math.floor((p.y - dc.y0) / dc.ch);
	if (c < 0 || c >= dc.cols || rr < 0 || rr >= hm.rows || !inGrid(hm.start + c)) {
		return null;
	}
	return { s: hm.start + c, r: hm.rows - 1 - rr };
}

function wall(rel) {
	if (hm.wallMs === null) {
		return "";
	}
	return "  " + new Date(hm.wallMs + rel / 1e6).toISOString() + (hm.wallEst ? " (estimated)" : "");
}

function plural(n, what) {
	return n + " " + what + (n === 1 ? "" : "s");
}

// amount says what a cell holds: samples, or the sum of their weights in
// the map's unit (data-unit, e.g. "µs off-CPU").
function amount(n) {
	return hm.unit ? n + " " + hm.unit : plural(n, "sample");
}

function detailMove(evt) {
	var cell = detailCell(evt);
	if (cell === null) {
		hide(hm.hover);
		return;
	}
	hm.hover.setAttribute("x", hm.dc.x0 + (cell.s - hm.start) * hm.dc.cw);
	hm.hover.setAttribute("y", hm.dc.y0 + (hm.rows - 1 - cell.r) * hm.dc.ch);
	hm.hover.setAttribute("visibility", "visible");
	var rel = cellStart(hm.rows, cell.s, cell.r), end = cellStart(hm.rows, cell.s, cell.r + 1);
	var n = count(cell.s, cell.r);
	var what = n === 0 && inGap(hm.gaps, rel + Math.floor((end - rel) / 2)) ? "not recorded" : amount(n);
	hm.details.textContent = "second " + cell.s + ", " + formatMs(cell.r, hm.rows) + " ms (" + formatRel(rel) +
		" after the first sample): " + what +
		"   @" + formatTime(absTime(hm.origin, rel)) + wall(rel);
}

function clearSelection() {
	hm.sel = null;
	hm.done = false;
	drawSelection();
}

function detailClick(evt) {
	var cell = detailCell(evt);
	if (cell === null) {
		return;
	}
	if (hm.sel === null || hm.done) {
		hm.sel = { a: cell, b: cell };
		hm.done = false;
		drawSelection();
		hm.cmd.textContent = "Start: second " + cell.s + ", " + formatMs(cell.r, hm.rows) + " ms. Now click the end cell" +
			(hm.ov ? " (in this stretch or another one)." : ".");
		hm.copied.textContent = " ";
		return;
	}
	var sel = select(hm.sel.a, cell);
	if (navigator.clipboard && navigator.clipboard.writeText) {
		navigator.clipboard.writeText(sel.text).then(function () {
			hm.copied.textContent = sel.note + " Command copied to the clipboard.";
		}, function () {});
	}
}

// inputsFor returns the inputs whose span overlaps [from, to) (all of
// them when none does), as shell words after a blank each.
function inputsFor(from, to) {
	var names = [], all = [];
	for (var i = 0; i < hm.inputs.length; i++) {
		var x = hm.inputs[i];
		all.push(x.arg);
		if (x.first === null || x.first < to && x.last >= from) {
			names.push(x.arg);
		}
	}
	if (names.length === 0) {
		names = all;
	}
	return names.length ? " " + names.join(" ") : "";
}

// rangeTotal returns the samples of the cells from a to b (in time
// order): whole overview rows inside the range are counted from the
// overview, so that a range of hours decodes only its ends.
function rangeTotal(a, b) {
	var total = 0, rows = hm.rows, o = hm.ov;
	var cells = function (s, lo, hi) {
		var col = column(s);
		if (col !== null) {
			for (var r = lo; r <= hi; r++) {
				total += col[r];
			}
		}
	};
	if (a.s === b.s) {
		cells(a.s, a.r, b.r);
		return total;
	}
	cells(a.s, a.r, rows - 1);
	for (var s = a.s + 1; s < b.s;) {
		if (o) {
			var per = o.len / 60, i = Math.floor((s - o.first) / per);
			if (s === o.first + i * per && s + per <= b.s && i >= 0 && i < o.cols * 60) {
				total += hm.ovCounts[i];
				s += per;
				continue;
			}
		}
		cells(s, 0, rows - 1);
		s++;
	}
	cells(b.s, 0, b.r);
	return total;
}

// select selects the cells from a to b (either order) and shows the
// timeslice command for them.
function select(a, b) {
	if (b.s * hm.rows + b.r < a.s * hm.rows + a.r) {
		var x = a;
		a = b;
		b = x;
	}
	hm.sel = { a: a, b: b };
	hm.done = true;
	drawSelection();
	var total = rangeTotal(a, b);
	var from = cellStart(hm.rows, a.s, a.r), to = cellStart(hm.rows, b.s, b.r + 1);
	var ins = inputsFor(from, to);
	var text = rangeCommand(hm.origin, hm.rows, a.s, a.r, b.s, b.r, hm.args) + ins;
	var note = plural(total, "sample") + " in the range, " + formatRel(from) + " to " + formatRel(to) +
		" after the first sample (--from " + formatRel(from) + " --to " + formatRel(to) + ").";
	if (/(^| )-( |$)/.test(ins)) {
		note += " The input was standard input (-): pipe it in again.";
	}
	hm.cmd.textContent = text;
	hm.copied.textContent = note + " Select the command above to copy it.";
	return { text: text, total: total, note: note };
}

// openMark shows mark i and selects it.
function openMark(i) {
	var m = markCells(i);
	centre(Math.floor((m.a.s + m.b.s) / 2));
	select(m.a, m.b);
}

// overviewCell returns the overview cell under the mouse ({c, r}), or null.
function overviewCell(evt) {
	var p = svgPoint(evt), o = hm.ov;
	var c = Math.floor((p.x - o.x0) / o.cw), rr = Math.floor((p.y - o.y0) / o.ch);
	if (c < 0 || c >= o.cols || rr < 0 || rr >= 60) {
		return null;
	}
	return { c: c, r: 59 - rr };
}

function overviewMove(evt) {
	var cell = overviewCell(evt), h = byId("ohover"), o = hm.ov;
	if (cell === null) {
		hide(h);
		return;
	}
	h.setAttribute("x", o.x0 + cell.c * o.cw);
	h.setAttribute("y", o.y0 + (59 - cell.r) * o.ch);
	h.setAttribute("visibility", "visible");
	var per = o.len / 60, from = o.first + cell.c * o.len + cell.r * per;
	var n = hm.ovCounts[cell.c * 60 + cell.r];
	var un = covered(hm.gaps, from * 1e9, (from + per) * 1e9);
	hm.details.textContent = (per === 1 ? "second " + from : "seconds " + from + " to " + (from + per - 1)) +
		" (" + clock(from) + " after the first sample): " + amount(n) +
		(un > 0 ? " (" + (un / 1e9).toFixed(3) + " s of it not recorded)" : "") +
		"; click for the sub-second map there" + wall(from * 1e9);
}

function overviewClick(evt) {
	var cell = overviewCell(evt), o = hm.ov;
	if (cell === null) {
		return;
	}
	var per = o.len / 60;
	centre(o.first + cell.c * o.len + cell.r * per + Math.floor(per / 2));
}
