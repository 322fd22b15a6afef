"use strict";
// flamekit interactive flame graph. Written for flamekit; behaves like
// flamegraph.pl's script (hover details, click to zoom, Reset Zoom, regexp
// search with Ctrl-F/F3, Ctrl-I for case, ?x=&y=&s= in the URL) but stays
// fast on 100,000 frames:
//  - frame geometry is read once into typed arrays;
//  - zoom is one transform on the frames group plus a clip, instead of
//    rewriting every rectangle; only the ancestors of the zoomed frame
//    (drawn full width) and the labels that fit are touched;
//  - labels are fitted with the font-width rule the generator uses, never
//    measured (no getSubStringLength);
//  - search matches frame names kept in an array.
// fgConfig (nametype, fontsize, fontwidth, xpad, inverted, highlight) is
// written by the generator just before this script.

var fg = {
	ready: false,
	n: 0,
	els: null, // frame elements (g or a), in document order (pre-order)
	chunks: null, // the groups of #frames, each holding a run of frames
	chunkStart: null, // index of the first frame of each chunk
	chunkHidden: null, // Uint8Array: chunk hidden while zoomed
	frameHidden: null, // Uint8Array: frame hidden while zoomed
	x: null, w: null, y: null, // original rect geometry
	rh: 0, // rect height
	names: null, // frame names, built on first search
	fills: null, // original fills of highlighted frames
	lit: [], // highlighted frame indices
	parents: [], // frames drawn full width while zoomed
	isParent: null, // Uint8Array: 1 for the frames in parents
	zoomed: -1, // zoomed frame, -1 = none
	root: -1, // widest frame
	term: null, // current search term
	searching: false,
	ignorecase: false
};

var svg, framesEl, clipEl, labelsEl, zlabelsEl, zstyle, details, searchbtn, icbtn, unzoombtn, matchedtxt;

function init(evt) {
	svg = document.documentElement;
	framesEl = document.getElementById("frames");
	clipEl = document.getElementById("clip");
	labelsEl = document.getElementById("labels");
	details = document.getElementById("details").firstChild;
	searchbtn = document.getElementById("search");
	icbtn = document.getElementById("ignorecase");
	unzoombtn = document.getElementById("unzoom");
	matchedtxt = document.getElementById("matched");
	if (!framesEl) return;

	framesEl.addEventListener("mouseover", function (e) {
		var i = frameOf(e.target);
		if (i >= 0) details.nodeValue = fgConfig.nametype + " " + tooltip(i);
	});
	framesEl.addEventListener("mouseout", function (e) {
		if (frameOf(e.target) >= 0) details.nodeValue = " ";
	});
	framesEl.addEventListener("click", function (e) {
		var i = frameOf(e.target);
		if (i < 0) return;
		var el = fg.els[i];
		if (el.tagName.toLowerCase() === "a") {
			if (!e.ctrlKey) return; // follow the link
			e.preventDefault();
		}
		clickZoom(i);
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

	var p = getParams();
	if (p.x !== undefined && p.y !== undefined) {
		load();
		var px = +p.x, py = +p.y;
		for (var i = 0; i < fg.n; i++) {
			if (Math.abs(fg.x[i] - px) < 1e-6 && fg.y[i] === py) {
				zoom(i);
				break;
			}
		}
	}
	if (p.s) search(p.s);
}

// load reads the frames' geometry once.
function load() {
	if (fg.ready) return;
	var els = [];
	fg.chunks = [];
	fg.chunkStart = [];
	for (var c = framesEl.firstElementChild; c; c = c.nextElementSibling) {
		fg.chunks.push(c);
		fg.chunkStart.push(els.length);
		for (var e = c.firstElementChild; e; e = e.nextElementSibling) els.push(e);
	}
	var n = els.length;
	fg.n = n;
	fg.els = els;
	fg.x = new Float64Array(n);
	fg.w = new Float64Array(n);
	fg.y = new Float64Array(n);
	fg.isParent = new Uint8Array(n);
	var best = -1;
	for (var i = 0; i < n; i++) {
		var el = els[i];
		el.fgi = i;
		var r = rectOf(el);
		fg.x[i] = +r.getAttribute("x");
		fg.w[i] = +r.getAttribute("width");
		fg.y[i] = +r.getAttribute("y");
		if (best < 0 || fg.w[i] > fg.w[best]) best = i;
		if (i === 0) fg.rh = +r.getAttribute("height");
	}
	fg.root = best;
	fg.ready = true;
}

function rectOf(el) {
	for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
		if (c.tagName === "rect") return c;
	}
	return null;
}

// frameOf returns the index of the frame an event target belongs to, or -1.
function frameOf(t) {
	while (t && t.parentNode && t.parentNode.parentNode !== framesEl) {
		if (t === svg) return -1;
		t = t.parentNode;
	}
	if (!t) return -1;
	load();
	return t.fgi === undefined ? -1 : t.fgi;
}

function tooltip(i) {
	var t = fg.els[i].firstElementChild;
	return t && t.tagName === "title" ? t.textContent : "";
}

// nameOf returns the frame's name: its tooltip without the last
// parenthesised "(N samples, P%)" group.
function nameOf(i) {
	var t = tooltip(i), k = t.lastIndexOf(" (");
	return k >= 0 ? t.substring(0, k) : t;
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

// isUp reports whether frame j is nearer the root than a frame at y.
function isUp(j, y) {
	return fgConfig.inverted ? fg.y[j] < y : fg.y[j] > y;
}

function clickZoom(i) {
	zoom(i);
	if (fg.parents.length === 0) {
		unzoom();
		setParams({ x: null, y: null });
	} else {
		setParams({ x: String(fg.x[i]), y: String(fg.y[i]) });
	}
}

function fullWidth() {
	return svg.width.baseVal.value - 2 * fgConfig.xpad;
}

function zoom(i) {
	load();
	clearZoom();
	var xmin = fg.x[i], wz = fg.w[i], xmax = xmin + wz, ymin = fg.y[i];
	var full = fullWidth(), ratio = full / wz;
	var n = fg.n, x = fg.x, w = fg.w;
	for (var j = 0; j < n; j++) {
		if (isUp(j, ymin) && x[j] <= xmin && x[j] + w[j] + 0.0001 >= xmax) {
			fg.parents.push(j);
			fg.isParent[j] = 1;
		}
	}
	if (fg.parents.length === 0) { // the root: nothing to zoom
		hideOutside(-1);
		return;
	}
	fg.zoomed = i;
	unzoombtn.classList.remove("hide");
	for (var k = 0; k < fg.parents.length; k++) {
		var p = fg.parents[k], el = fg.els[p], r = rectOf(el);
		el.classList.add("parent");
		// in the zoomed coordinates, [xmin, xmax] is the full width
		r.setAttribute("x", xmin);
		r.setAttribute("width", wz);
	}
	hideOutside(i);
	var dx = fgConfig.xpad - xmin * ratio;
	framesEl.setAttribute("transform", "matrix(" + ratio + ",0,0,1," + dx + ",0)");
	clipEl.setAttribute("clip-path", "url(#view)");
	if (!zstyle) {
		zstyle = document.createElementNS("http://www.w3.org/2000/svg", "style");
		svg.appendChild(zstyle);
	}
	zstyle.textContent = "#frames rect { rx:" + (2 / ratio) + "px; }";
	drawLabels(function (j) {
		if (isUp(j, ymin)) return fg.isParent[j] ? full : -1;
		if (x[j] < xmin - 0.0001 || x[j] + w[j] > xmax + 0.0001) return -1;
		return w[j] * ratio;
	}, function (j) {
		return isUp(j, ymin) ? fgConfig.xpad : (x[j] - xmin) * ratio + fgConfig.xpad;
	});
	search();
}

// drawLabels replaces the labels with ones for the frames whose drawn
// width (widthOf, -1 = not shown) fits at least three characters.
function drawLabels(widthOf, xOf) {
	labelsEl.style.display = "none";
	if (!zlabelsEl) {
		zlabelsEl = document.createElementNS("http://www.w3.org/2000/svg", "g");
		zlabelsEl.setAttribute("style", "pointer-events:none");
		labelsEl.parentNode.insertBefore(zlabelsEl, labelsEl.nextSibling);
	}
	var frag = document.createDocumentFragment();
	var cw = fgConfig.fontsize * fgConfig.fontwidth, minw = 3 * cw;
	for (var j = 0; j < fg.n; j++) {
		var sw = widthOf(j);
		if (sw < minw) continue;
		var chars = Math.floor(sw / cw);
		var name = nameOf(j);
		if (name.length > chars) name = name.substring(0, chars - 2) + "..";
		var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
		t.setAttribute("x", (xOf(j) + 3).toFixed(2));
		t.setAttribute("y", fg.y[j] + fg.rh / 2 + 3);
		t.textContent = name;
		frag.appendChild(t);
	}
	zlabelsEl.textContent = "";
	zlabelsEl.appendChild(frag);
}

// hideOutside hides every frame that is neither an ancestor of frame i
// (or -1: shows everything) nor in its subtree (a run of frames in
// pre-order), a whole chunk at a time where it can, so that the browser
// restyles and paints only what is shown. Only frames and chunks whose
// state changes are touched, so zooming from one frame to another costs
// what differs between the two views.
function hideOutside(i) {
	var end = i + 1;
	if (i >= 0) {
		var yi = fg.y[i];
		while (end < fg.n && !isUp(end, yi) && fg.y[end] !== yi) end++;
	}
	if (!fg.chunkHidden) {
		fg.chunkHidden = new Uint8Array(fg.chunks.length);
		fg.frameHidden = new Uint8Array(fg.n);
	}
	var isParent = fg.isParent, nc = fg.chunks.length;
	for (var c = 0; c < nc; c++) {
		var cs = fg.chunkStart[c], ce = c + 1 < nc ? fg.chunkStart[c + 1] : fg.n;
		var hideChunk = 0;
		if (i >= 0 && !(cs < end && ce > i)) {
			hideChunk = 1;
			for (var k = 0; k < fg.parents.length; k++) {
				if (fg.parents[k] >= cs && fg.parents[k] < ce) { hideChunk = 0; break; }
			}
		}
		if (fg.chunkHidden[c] !== hideChunk) {
			fg.chunks[c].style.display = hideChunk ? "none" : "";
			fg.chunkHidden[c] = hideChunk;
		}
		for (var j = cs; j < ce; j++) {
			// frames of a hidden chunk keep their state: it does not matter
			var h = hideChunk ? fg.frameHidden[j] : (i >= 0 && (j < i || j >= end) && !isParent[j]) ? 1 : 0;
			if (fg.frameHidden[j] !== h) {
				fg.els[j].style.display = h ? "none" : "";
				fg.frameHidden[j] = h;
			}
		}
	}
}

// clearZoom puts back the frames drawn full width.
function clearZoom() {
	for (var k = 0; k < fg.parents.length; k++) {
		var p = fg.parents[k], el = fg.els[p], r = rectOf(el);
		el.classList.remove("parent");
		fg.isParent[p] = 0;
		r.setAttribute("x", fg.x[p].toFixed(1));
		r.setAttribute("width", fg.w[p].toFixed(1));
	}
	fg.parents = [];
	fg.zoomed = -1;
}

function unzoom() {
	if (!fg.ready) return;
	clearZoom();
	hideOutside(-1);
	unzoombtn.classList.add("hide");
	framesEl.removeAttribute("transform");
	clipEl.removeAttribute("clip-path");
	if (zstyle) zstyle.textContent = "";
	if (zlabelsEl) zlabelsEl.textContent = "";
	labelsEl.style.display = "";
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
	unhighlight();
	fg.searching = false;
	fg.term = null;
	searchbtn.classList.remove("show");
	searchbtn.firstChild.nodeValue = "Search";
	matchedtxt.classList.add("hide");
	matchedtxt.firstChild.nodeValue = " ";
}

function unhighlight() {
	for (var k = 0; k < fg.lit.length; k++) {
		var j = fg.lit[k];
		rectOf(fg.els[j]).setAttribute("fill", fg.fills[j]);
	}
	fg.lit = [];
}

function toggleIgnorecase() {
	fg.ignorecase = !fg.ignorecase;
	if (fg.ignorecase) icbtn.classList.add("show");
	else icbtn.classList.remove("show");
	search();
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
	if (!fg.names) {
		fg.names = new Array(fg.n);
		fg.fills = new Array(fg.n);
		for (var i = 0; i < fg.n; i++) fg.names[i] = i === fg.root ? "" : nameOf(i);
	}
	unhighlight();
	var hits = [];
	for (var j = 0; j < fg.n; j++) {
		if (j !== fg.root && re.test(fg.names[j])) hits.push(j);
	}
	for (var k = 0; k < hits.length; k++) {
		var h = hits[k], r = rectOf(fg.els[h]);
		if (fg.fills[h] === undefined) fg.fills[h] = r.getAttribute("fill");
		r.setAttribute("fill", fgConfig.highlight);
	}
	fg.lit = hits;
	fg.searching = true;
	setParams({ s: fg.term });
	searchbtn.classList.add("show");
	searchbtn.firstChild.nodeValue = "Reset Search";
	matchedtxt.classList.remove("hide");
	var pct = matchedShare(hits);
	matchedtxt.firstChild.nodeValue = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
}

// matchedShare is the percentage of the zoomed frame (or of the whole
// graph) covered by matching frames, each sample counted once.
function matchedShare(hits) {
	var z = fg.zoomed >= 0 ? fg.zoomed : fg.root;
	var xmin = fg.x[z], xmax = xmin + fg.w[z], ymin = fg.y[z];
	var widths = new Map();
	for (var k = 0; k < hits.length; k++) {
		var j = hits[k];
		if (isUp(j, ymin)) {
			if (fg.isParent[j]) return 100; // an ancestor matched
			continue;
		}
		if (fg.x[j] < xmin - 0.0001 || fg.x[j] + fg.w[j] > xmax + 0.0001) continue;
		var prev = widths.get(fg.x[j]);
		if (prev === undefined || fg.w[j] > prev) widths.set(fg.x[j], fg.w[j]);
	}
	var xs = Array.from(widths.keys()).sort(function (a, b) { return a - b; });
	var sum = 0, lastX = -Infinity, lastW = 0;
	for (var m = 0; m < xs.length; m++) {
		var xv = xs[m], wv = widths.get(xv);
		if (xv >= lastX + lastW - 0.0001) {
			sum += wv;
			lastX = xv;
			lastW = wv;
		}
	}
	return Math.min(100, 100 * sum / fg.w[z]);
}
