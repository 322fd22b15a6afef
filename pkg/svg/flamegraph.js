"use strict";
// flamekit interactive flame graph. Written for flamekit; behaves like
// flamegraph.pl's script (hover details, click to zoom, Reset Zoom, regexp
// search with Ctrl-F/F3, Ctrl-I for case, ?x=&y=&s= in the URL) but stays
// fast on graphs of any size:
//  - every frame is in fgConfig.frames (written by the generator), read
//    once into typed arrays; the SVG elements are the picture at the
//    initial view (for a big graph only the frames at least 1 px wide);
//  - a zoomed view is drawn from the data: the written frames are hidden
//    with one class, and the zoomed frame's ancestors and the frames of
//    its subtree at least 0.5 px wide are created; reset removes them;
//  - search matches each distinct name once, then the frames by name, and
//    Matched % is summed from the data, so it covers every frame;
//  - labels are fitted with the font-width rule the generator uses, never
//    measured.
// fgConfig is written by the generator just before this script: nametype,
// fontsize, fontwidth, xpad, inverted, highlight, width, height, fh
// (frame height), ypad1, ypad2, timemax, unit, factor, countname, names,
// colors, deltas (frame, change pairs) and frames (depth, name, gap,
// width, colour*2+written: five integers per frame, in pre-order).

var SVGNS = "http://www.w3.org/2000/svg";

var fg = {
	ready: false,
	n: 0,
	depth: null, name: null, color: null, written: null, // per frame
	start: null, width: null, // in units of fgConfig.unit counts
	parent: null, end: null, // parent frame; end of the subtree (pre-order)
	delta: null, // Map frame -> change, for differential graphs
	els: null, // written elements, by frame (undefined if not written)
	dyn: null, // the group of the zoomed view's elements
	dynEls: [], // frames drawn in the zoomed view
	zoomed: -1, // zoomed frame, -1 = none
	nameMatch: null, // Uint8Array by name index, for the current search
	lit: [], // highlighted written frames
	term: null, // current search term
	searching: false,
	ignorecase: false
};

var svg, framesEl, labelsEl, zlabelsEl, details, searchbtn, icbtn, unzoombtn, matchedtxt;

function init(evt) {
	svg = document.documentElement;
	framesEl = document.getElementById("frames");
	labelsEl = document.getElementById("labels");
	details = document.getElementById("details").firstChild;
	searchbtn = document.getElementById("search");
	icbtn = document.getElementById("ignorecase");
	unzoombtn = document.getElementById("unzoom");
	matchedtxt = document.getElementById("matched");
	if (!framesEl) return;

	framesEl.addEventListener("mouseover", function (e) {
		var el = elementOf(e.target);
		if (!el) return;
		var t = el.firstElementChild;
		if (t.tagName !== "title") { // a frame of a zoomed view
			t = document.createElementNS(SVGNS, "title");
			t.textContent = tooltip(el.fgi);
			el.insertBefore(t, el.firstChild);
		}
		details.nodeValue = fgConfig.nametype + " " + t.textContent;
	});
	framesEl.addEventListener("mouseout", function (e) {
		if (elementOf(e.target)) details.nodeValue = " ";
	});
	framesEl.addEventListener("click", function (e) {
		var el = elementOf(e.target);
		if (!el) return;
		if (el.tagName.toLowerCase() === "a") {
			if (!e.ctrlKey) return; // follow the link
			e.preventDefault();
		}
		clickZoom(el.fgi);
	});
	unzoombtn.addEventListener("click", function () { unzoom(); setParams({ x: null, y: null }); });
	searchbtn.addEventListener("click", searchPrompt);
	icbtn.addEventListener("click", toggleIgnorecase);
	window.addEventListener("keydown", function (e) {
		var k = (e.key || "").toLowerCase();
		if (e.keyCode === 114 || k === "f3" || (e.ctrlKey && (e.keyCode === 70 || k === "f"))) {
			e.preventDefault();
			searchPrompt();
		} else if (e.ctrlKey && (e.keyCode === 73 || k === "i")) {
			e.preventDefault();
			toggleIgnorecase();
		}
	});

	load();
	var p = getParams();
	if (p.x !== undefined && p.y !== undefined) {
		var px = +p.x, py = +p.y;
		for (var i = 0; i < fg.n; i++) {
			if (Math.abs(rx(i) - px) < 1e-6 && ry(i) === py) {
				zoom(i);
				break;
			}
		}
	}
	if (p.s) search(p.s);
}

// load reads the frame data once and finds the written elements.
function load() {
	if (fg.ready) return;
	var c = fgConfig, d = c.frames, n = d.length / 5;
	fg.n = n;
	fg.depth = new Int32Array(n);
	fg.name = new Int32Array(n);
	fg.color = new Int32Array(n);
	fg.written = new Uint8Array(n);
	fg.start = new Float64Array(n);
	fg.width = new Float64Array(n);
	fg.parent = new Int32Array(n);
	fg.end = new Int32Array(n);
	var next = [0], open = [];
	for (var i = 0, k = 0; i < n; i++, k += 5) {
		var dp = d[k], s = next[dp] + d[k + 2], w = d[k + 3];
		fg.depth[i] = dp;
		fg.name[i] = d[k + 1];
		fg.start[i] = s;
		fg.width[i] = w;
		fg.color[i] = d[k + 4] >> 1;
		fg.written[i] = d[k + 4] & 1;
		next[dp] = s + w;
		next[dp + 1] = s;
		while (open.length > dp) fg.end[open.pop()] = i;
		fg.parent[i] = dp > 0 ? open[dp - 1] : -1;
		open.push(i);
	}
	while (open.length) fg.end[open.pop()] = n;
	fg.delta = new Map();
	for (var j = 0; j < c.deltas.length; j += 2) fg.delta.set(c.deltas[j], c.deltas[j + 1]);
	// the written elements are the written frames, in the same order
	fg.els = new Array(n);
	var f = 0;
	for (var g = framesEl.firstElementChild; g; g = g.nextElementSibling) {
		for (var e = g.firstElementChild; e; e = e.nextElementSibling) {
			while (f < n && !fg.written[f]) f++;
			if (f >= n) break;
			fg.els[f] = e;
			e.fgi = f++;
		}
	}
	fg.ready = true;
}

// elementOf returns the frame element an event target belongs to.
function elementOf(t) {
	while (t && t.parentNode && t.parentNode.parentNode !== framesEl) {
		if (t === svg) return null;
		t = t.parentNode;
	}
	if (!t || !t.parentNode) return null;
	load();
	return t.fgi === undefined ? null : t;
}

// Geometry of frame i in the initial view.
function wpt() { return (fgConfig.width - 2 * fgConfig.xpad) / fgConfig.timemax; }
function countWidth(i) { return fg.depth[i] === 0 ? fgConfig.timemax : fg.width[i] * fgConfig.unit; }
function rx(i) { return Math.round((fgConfig.xpad + fg.start[i] * fgConfig.unit * wpt()) * 10) / 10; }
function ry(i) {
	var c = fgConfig, d = fg.depth[i];
	return c.inverted ? c.ypad1 + d * c.fh : c.height - c.ypad2 - (d + 1) * c.fh + 1;
}

// tooltip returns what the generator writes in a frame's <title>.
function tooltip(i) {
	var c = fgConfig;
	var samples = (countWidth(i) * c.factor).toFixed(0);
	var txt = samples.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	if (fg.depth[i] === 0) return "all (" + txt + " " + c.countname + ", 100%)";
	var out = c.names[fg.name[i]] + " (" + txt + " " + c.countname + ", " +
		(100 * +samples / (c.timemax * c.factor)).toFixed(2) + "%";
	var d = fg.delta.get(i);
	if (d !== undefined) out += "; " + (d > 0 ? "+" : "") + (100 * d / (c.timemax * c.factor)).toFixed(2) + "%";
	return out + ")";
}

// URL state: ?x=&y= (zoomed frame) and s= (search term).
function getParams() {
	var out = {};
	try {
		new URLSearchParams(window.location.search).forEach(function (v, k) {
			if (k && v) out[k] = v;
		});
	} catch (e) { /* no URL support: no state */ }
	return out;
}

function setParams(changes) {
	try {
		var u = new URL(window.location.href);
		for (var k in changes) {
			if (changes[k] === null) u.searchParams.delete(k);
			else u.searchParams.set(k, changes[k]);
		}
		history.replaceState(null, null, u.toString());
	} catch (e) { /* e.g. a sandboxed viewer: keep going without URL state */ }
}

function clickZoom(i) {
	load();
	if (fg.depth[i] === 0) {
		unzoom();
		setParams({ x: null, y: null });
		return;
	}
	zoom(i);
	setParams({ x: String(rx(i)), y: String(ry(i)) });
}

// zoom draws frame i full width: its ancestors above it (dimmed, full
// width) and the frames of its subtree wide enough to see.
function zoom(i) {
	load();
	if (fg.depth[i] === 0) { unzoom(); return; }
	if (!(fg.width[i] > 0)) return; // nothing to show
	clearDyn();
	fg.zoomed = i;
	var c = fgConfig, full = c.width - 2 * c.xpad, xpad = c.xpad;
	var s0 = fg.start[i], scale = full / fg.width[i];
	var cw = c.fontsize * c.fontwidth, minw = 3 * cw;
	var frag = document.createDocumentFragment(), lfrag = document.createDocumentFragment();
	var drawn = [];
	var anc = [];
	for (var a = fg.parent[i]; a >= 0; a = fg.parent[a]) anc.push(a);
	for (var k = anc.length - 1; k >= 0; k--) drawn.push(anc[k], xpad, full, 1);
	for (var j = i, e = fg.end[i]; j < e;) {
		var w = fg.width[j] * scale;
		if (w < 0.5) { j = fg.end[j]; continue; }
		drawn.push(j, xpad + (fg.start[j] - s0) * scale, w, 0);
		j++;
	}
	for (var m = 0; m < drawn.length; m += 4) {
		var f = drawn[m], x = drawn[m + 1], wd = drawn[m + 2], y = ry(f);
		var g = document.createElementNS(SVGNS, "g");
		if (drawn[m + 3]) g.setAttribute("class", "parent");
		// (its <title> is added on the first mouseover; height, rx and ry
		// come from the style sheet)
		var r = document.createElementNS(SVGNS, "rect");
		r.setAttribute("x", x.toFixed(1));
		r.setAttribute("y", y);
		r.setAttribute("width", wd.toFixed(1));
		r.setAttribute("fill", fg.nameMatch && fg.depth[f] > 0 && fg.nameMatch[fg.name[f]] ? c.highlight : c.colors[fg.color[f]]);
		g.appendChild(r);
		g.fgi = f;
		frag.appendChild(g);
		fg.dynEls.push(g);
		if (wd >= minw) {
			var chars = Math.floor(wd / cw);
			var name = fitLabel(fg.depth[f] === 0 ? "all" : c.names[fg.name[f]], chars);
			var lt = document.createElementNS(SVGNS, "text");
			lt.setAttribute("x", (x + 3).toFixed(2));
			lt.setAttribute("y", y + (c.fh - 1) / 2 + 3);
			lt.textContent = name;
			lfrag.appendChild(lt);
		}
	}
	if (!fg.dyn) {
		fg.dyn = document.createElementNS(SVGNS, "g");
		fg.dyn.setAttribute("id", "zoomed");
		var st = document.createElementNS(SVGNS, "style");
		st.textContent = "#zoomed rect { height:" + (c.fh - 1) + "px; rx:2px; ry:2px; }";
		svg.appendChild(st);
		framesEl.appendChild(fg.dyn);
		zlabelsEl = document.createElementNS(SVGNS, "g");
		zlabelsEl.setAttribute("style", "pointer-events:none");
		labelsEl.parentNode.insertBefore(zlabelsEl, labelsEl.nextSibling);
	}
	fg.dyn.appendChild(frag);
	zlabelsEl.appendChild(lfrag);
	framesEl.setAttribute("class", "zoomed");
	labelsEl.style.display = "none";
	unzoombtn.classList.remove("hide");
	search();
}

// fitLabel is the generator's fitLabel: the first chars characters of
// name, the last two replaced by ".." when name is longer. Characters are
// code points, not UTF-16 units, so a name beyond the BMP is cut where
// the generator cuts it and never inside a surrogate pair.
function fitLabel(name, chars) {
	if (name.length <= chars) return name; // (no more code points than units)
	var cut = 0, n = 0;
	for (var i = 0; i < name.length; n++) {
		if (n === chars - 2) cut = i;
		if (n === chars) return name.substring(0, cut) + "..";
		var u = name.charCodeAt(i);
		i += u >= 0xD800 && u < 0xDC00 && i + 1 < name.length && (name.charCodeAt(i + 1) & 0xFC00) === 0xDC00 ? 2 : 1;
	}
	return name;
}

function clearDyn() {
	if (fg.dyn) {
		fg.dyn.textContent = "";
		zlabelsEl.textContent = "";
	}
	fg.dynEls = [];
}

function unzoom() {
	if (!fg.ready) return;
	clearDyn();
	fg.zoomed = -1;
	framesEl.removeAttribute("class");
	labelsEl.style.display = "";
	unzoombtn.classList.add("hide");
	search();
}

// Search.
function searchPrompt() {
	if (fg.searching) {
		resetSearch();
		setParams({ s: null });
		return;
	}
	var term = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
		(fg.ignorecase ? ", ignoring case" : "") +
		"\nPress Ctrl-i to toggle case sensitivity", "");
	if (term) search(term);
}

function resetSearch() {
	fg.nameMatch = null;
	paint();
	fg.searching = false;
	fg.term = null;
	searchbtn.classList.remove("show");
	searchbtn.firstChild.nodeValue = "Search";
	matchedtxt.classList.add("hide");
	matchedtxt.firstChild.nodeValue = " ";
}

function toggleIgnorecase() {
	fg.ignorecase = !fg.ignorecase;
	if (fg.ignorecase) icbtn.classList.add("show");
	else icbtn.classList.remove("show");
	search();
}

// paint highlights the drawn frames whose name matches (all of them when
// not zoomed: the written ones; zoomed: the ones of the zoomed view) and
// puts back the colour of the others that were highlighted.
function paint() {
	var c = fgConfig, m = fg.nameMatch, k;
	for (k = 0; k < fg.lit.length; k++) {
		var j = fg.lit[k];
		fg.els[j].lastElementChild.setAttribute("fill", c.colors[fg.color[j]]);
	}
	fg.lit = [];
	if (fg.zoomed >= 0) {
		for (k = 0; k < fg.dynEls.length; k++) {
			var el = fg.dynEls[k], f = el.fgi;
			el.lastElementChild.setAttribute("fill", m && fg.depth[f] > 0 && m[fg.name[f]] ? c.highlight : c.colors[fg.color[f]]);
		}
		return;
	}
	if (!m) return;
	for (var i = 1; i < fg.n; i++) {
		if (m[fg.name[i]] && fg.written[i]) {
			fg.els[i].lastElementChild.setAttribute("fill", c.highlight);
			fg.lit.push(i);
		}
	}
}

function search(term) {
	if (term) fg.term = term;
	if (fg.term === null) return;
	load();
	var re;
	try {
		re = new RegExp(fg.term, fg.ignorecase ? "i" : "");
	} catch (e) {
		matchedtxt.classList.remove("hide");
		matchedtxt.firstChild.nodeValue = "Bad regexp";
		return;
	}
	var names = fgConfig.names, m = new Uint8Array(names.length);
	for (var k = 0; k < names.length; k++) m[k] = re.test(names[k]) ? 1 : 0;
	fg.nameMatch = m;
	paint();
	fg.searching = true;
	setParams({ s: fg.term });
	searchbtn.classList.add("show");
	searchbtn.firstChild.nodeValue = "Reset Search";
	matchedtxt.classList.remove("hide");
	var pct = matchedShare();
	matchedtxt.firstChild.nodeValue = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
}

// matchedShare is the percentage of the zoomed frame (or of the whole
// graph) covered by matching frames, each sample counted once: the
// outermost matching frames of its subtree are summed. A matching
// ancestor covers it all.
function matchedShare() {
	var m = fg.nameMatch, z = fg.zoomed >= 0 ? fg.zoomed : 0;
	if (fg.n === 0) return 0;
	for (var a = fg.parent[z]; a > 0; a = fg.parent[a]) {
		if (m[fg.name[a]]) return 100;
	}
	var sum = 0;
	for (var j = z, e = fg.end[z]; j < e;) {
		if (fg.depth[j] > 0 && m[fg.name[j]]) {
			sum += fg.width[j] * fgConfig.unit;
			j = fg.end[j];
		} else {
			j++;
		}
	}
	return Math.min(100, 100 * sum / countWidth(z));
}
