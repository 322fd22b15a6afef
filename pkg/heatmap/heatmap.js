"use strict";
// flamekit heat map: hover shows second, millisecond and count; click a
// start cell and an end cell (end included) to get the timeslice command
// for the range, with absolute perf-clock times. Escape clears the
// selection. Everything is read from attributes of #grid and its cells.

// cellStart returns the start of cell (col, row) as [second, nanoseconds]
// on perf's clock: the first nanosecond whose row is row. Row == rows is
// the start of the next second.
function cellStart(base, rows, col, row) {
	var sec = base + col;
	var ns = Math.ceil(row * 1e9 / rows);
	if (ns >= 1e9) {
		sec += Math.floor(ns / 1e9);
		ns = ns % 1e9;
	}
	return [sec, ns];
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

// rangeCommand returns the timeslice command for the cells from (c1, r1)
// to (c2, r2), both included, in time order.
function rangeCommand(base, rows, c1, r1, c2, r2, args) {
	if (c2 * rows + r2 < c1 * rows + r1) {
		var c = c1, r = r1;
		c1 = c2; r1 = r2; c2 = c; r2 = r;
	}
	var from = cellStart(base, rows, c1, r1);
	var to = cellStart(base, rows, c2, r2 + 1);
	return "timeslice --from @" + formatTime(from) + " --to @" + formatTime(to) + args;
}

if (typeof module !== "undefined") {
	module.exports = { cellStart: cellStart, formatTime: formatTime, rangeCommand: rangeCommand };
}

var hm = null;

function num(el, name) {
	return Number(el.getAttribute(name));
}

function init(evt) {
	var g = document.getElementById("grid");
	hm = {
		g: g,
		base: num(g, "data-base"), rows: num(g, "data-rows"), cols: num(g, "data-cols"),
		x0: num(g, "data-x0"), y0: num(g, "data-y0"), cw: num(g, "data-cw"), ch: num(g, "data-ch"),
		args: g.getAttribute("data-args") || "",
		wallMs: g.hasAttribute("data-wall-ms") ? num(g, "data-wall-ms") : null,
		wallEst: g.getAttribute("data-wall-est") === "true",
		counts: {}, start: null,
		hover: document.getElementById("hover"),
		sel: document.getElementById("sel"),
		details: document.getElementById("details"),
		cmd: document.getElementById("cmd"),
		copied: document.getElementById("copied")
	};
	var cells = g.getElementsByTagName("rect");
	for (var i = 0; i < cells.length; i++) {
		var n = cells[i].getAttribute("data-n");
		if (n !== null) {
			hm.counts[cells[i].getAttribute("data-c") + ":" + cells[i].getAttribute("data-r")] = Number(n);
		}
	}
	g.addEventListener("mousemove", move);
	g.addEventListener("mouseleave", leave);
	g.addEventListener("click", click);
	document.addEventListener("keydown", function (e) {
		if (e.key === "Escape") {
			clearSelection();
		}
	});
	// heat.svg#range=C1:R1-C2:R2 opens with that range selected (columns
	// and rows count from 0, rows from the start of the second).
	var m = /^#range=(\d+):(\d+)-(\d+):(\d+)$/.exec(location.hash);
	if (m !== null) {
		var a = { c: Number(m[1]), r: Number(m[2]) }, b = { c: Number(m[3]), r: Number(m[4]) };
		if (a.c < hm.cols && b.c < hm.cols && a.r < hm.rows && b.r < hm.rows) {
			select(a, b);
		}
	}
}

function count(c, r) {
	return hm.counts[c + ":" + r] || 0;
}

// cellAt returns the cell under the mouse, or null.
function cellAt(evt) {
	var svg = hm.g.ownerSVGElement;
	var pt = svg.createSVGPoint();
	pt.x = evt.clientX;
	pt.y = evt.clientY;
	var p = pt.matrixTransform(svg.getScreenCTM().inverse());
	var c = Math.floor((p.x - hm.x0) / hm.cw);
	var rr = Math.floor((p.y - hm.y0) / hm.ch);
	if (c < 0 || c >= hm.cols || rr < 0 || rr >= hm.rows) {
		return null;
	}
	return { c: c, r: hm.rows - 1 - rr };
}

function ms(r) {
	return Math.round(r * 1000 / hm.rows * 1000) / 1000;
}

function wall(t) {
	if (hm.wallMs === null) {
		return "";
	}
	var d = new Date(hm.wallMs + (t[0] - hm.base) * 1000 + t[1] / 1e6);
	return "  " + d.toISOString() + (hm.wallEst ? " (estimated)" : "");
}

function move(evt) {
	var cell = cellAt(evt);
	if (cell === null) {
		leave();
		return;
	}
	hm.hover.setAttribute("x", hm.x0 + cell.c * hm.cw);
	hm.hover.setAttribute("y", hm.y0 + (hm.rows - 1 - cell.r) * hm.ch);
	hm.hover.setAttribute("visibility", "visible");
	var t = cellStart(hm.base, hm.rows, cell.c, cell.r);
	var n = count(cell.c, cell.r);
	hm.details.textContent = "second " + cell.c + ", " + ms(cell.r) + " ms: " + n +
		(n === 1 ? " sample" : " samples") + "   @" + formatTime(t) + wall(t);
}

function leave() {
	hm.hover.setAttribute("visibility", "hidden");
}

function clearSelection() {
	while (hm.sel.firstChild) {
		hm.sel.removeChild(hm.sel.firstChild);
	}
	hm.start = null;
}

function mark(c, rlo, rhi) {
	var r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
	r.setAttribute("class", "sel");
	r.setAttribute("x", hm.x0 + c * hm.cw);
	r.setAttribute("y", hm.y0 + (hm.rows - 1 - rhi) * hm.ch);
	r.setAttribute("width", hm.cw);
	r.setAttribute("height", (rhi - rlo + 1) * hm.ch);
	hm.sel.appendChild(r);
}

function click(evt) {
	var cell = cellAt(evt);
	if (cell === null) {
		return;
	}
	if (hm.start === null || hm.done) {
		clearSelection();
		hm.start = cell;
		hm.done = false;
		mark(cell.c, cell.r, cell.r);
		hm.cmd.textContent = "Start: second " + cell.c + ", " + ms(cell.r) + " ms. Now click the end cell.";
		hm.copied.textContent = " ";
		return;
	}
	var sel = select(hm.start, cell);
	if (navigator.clipboard && navigator.clipboard.writeText) {
		navigator.clipboard.writeText(sel.text).then(function () {
			hm.copied.textContent = sel.total + " samples in the range. Command copied to the clipboard.";
		}, function () {});
	}
}

// select selects the cells from a to b (either order) and shows the
// timeslice command for them.
function select(a, b) {
	if (b.c * hm.rows + b.r < a.c * hm.rows + a.r) {
		var x = a;
		a = b;
		b = x;
	}
	clearSelection();
	var total = 0;
	for (var c = a.c; c <= b.c; c++) {
		var lo = c === a.c ? a.r : 0, hi = c === b.c ? b.r : hm.rows - 1;
		mark(c, lo, hi);
		for (var r = lo; r <= hi; r++) {
			total += count(c, r);
		}
	}
	hm.start = a;
	hm.done = true;
	var text = rangeCommand(hm.base, hm.rows, a.c, a.r, b.c, b.r, hm.args);
	hm.cmd.textContent = text;
	hm.copied.textContent = total + " samples in the range. Select the command above to copy it.";
	return { text: text, total: total };
}
