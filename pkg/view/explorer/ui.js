// flamekit explorer: the page. The toolbar and the filter panel, the
// status line, the views drawn below the map (graph, chart, call tree,
// top table, sandwich), the actions (copy, save, reset, ←/→), main (which
// unpacks and draws), and the test hooks (window.flamekit). Every name
// reaches the page through textContent or a canvas, never as markup.

// ---- the page ----
var UI = {};

function el(tag, attrs, text) {
	var e = document.createElement(tag);
	if (attrs) for (var k in attrs) {
		if (k === "class") e.className = attrs[k];
		else e.setAttribute(k, attrs[k]);
	}
	if (text !== undefined) e.textContent = text;
	return e;
}

function buildUI() {
	var app = document.getElementById("app");
	app.textContent = "";
	var bar = el("div", { class: "bar", id: "bar" });
	function button(id, label, title) { var b = el("button", { id: id, type: "button", title: title || "" }, label); bar.appendChild(b); return b; }
	function group(label) { var g = el("span", { class: "group" }); if (label) g.appendChild(el("span", { class: "label" }, label)); bar.appendChild(g); return g; }
	var g = group("View");
	UI.views = {};
	[["flame", "Flame graph"], ["chart", "Flame chart"], ["tree", "Call tree"], ["top", "Top"]].forEach(function (v) {
		var b = el("button", { type: "button", id: "view-" + v[0], class: "seg" }, v[1]);
		b.addEventListener("click", function () { S.view = v[0]; update("view"); });
		g.appendChild(b);
		UI.views[v[0]] = b;
	});
	UI.inverted = checkbox(g, "inverted", "icicle", "Root at the top (flamegraph --inverted)");
	UI.sortWeight = checkbox(g, "sort-weight", "by weight", "Siblings by weight, heaviest first (else by name, as flamegraph)");
	g = group("Colours");
	UI.colors = el("select", { id: "colors", title: "flamegraph --colors" });
	PALETTES.forEach(function (p) { UI.colors.appendChild(el("option", { value: p }, p)); });
	g.appendChild(UI.colors);
	UI.colors.addEventListener("change", function () { S.colors = UI.colors.value; update("colors"); });
	UI.hash = checkbox(g, "hash", "hash", "Colour by a hash of the name (flamegraph --hash)");
	g = group("Map");
	UI.map = el("select", { id: "map", title: "What the heat map's cells show" });
	[["samples", "samples"], ["change", "change"], ["share", "share of…"]].forEach(function (o) { UI.map.appendChild(el("option", { value: o[0] }, o[1])); });
	g.appendChild(UI.map);
	UI.map.addEventListener("change", function () { S.map = UI.map.value === MAP_DEFAULT ? "" : UI.map.value; update("map"); });
	UI.share = el("input", { id: "share", type: "text", size: 12, placeholder: "process or function RE", spellcheck: "false", title: "share: colour cells by the share of the samples whose stack holds a frame matching (stackfilter --focus)" });
	g.appendChild(UI.share);
	UI.share.addEventListener("change", function () { S.share = UI.share.value.trim(); if (S.share && mapMode() !== "share") S.map = "share"; update("map"); });
	g = group("Search");
	UI.search = el("input", { id: "search", type: "search", placeholder: "regexp (Ctrl-F)", size: 16, spellcheck: "false" });
	g.appendChild(UI.search);
	UI.search.addEventListener("input", function () { S.search = UI.search.value; update("search"); });
	g = group("Compare");
	UI.compare = button("compare", "Compare with…", "The next range you select is compared with the selection (or shift-select it)");
	bar.appendChild(UI.compare);
	g.appendChild(UI.compare);
	UI.compare.addEventListener("click", function () {
		if (S.vs) { S.vs = null; S.elided = ""; compareNext = false; update("range"); return; }
		compareNext = !compareNext;
		status();
		UI.compare.classList.toggle("on", compareNext);
	});
	UI.normalize = checkbox(g, "normalize", "-n", "Scale the comparison range to the selection's total (difffolded -n)");
	UI.elided = el("select", { id: "elided", title: "FlameScope's elided view: the stacks present in one range only" });
	[["", "differential"], ["vs", "only in the comparison"], ["selection", "only in the selection"]].forEach(function (o) { UI.elided.appendChild(el("option", { value: o[0] }, o[1])); });
	g.appendChild(UI.elided);
	UI.elided.addEventListener("change", function () { S.elided = UI.elided.value; update("view"); });
	g = group("");
	UI.noIdle = checkbox(g, "no-idle", "no idle", "Leave out the samples of idle CPUs (timeslice --no-idle)");
	UI.copy = el("button", { id: "copy", type: "button", title: "The command line that draws this flame graph" }, "Copy command");
	g.appendChild(UI.copy);
	UI.copy.addEventListener("click", copyCommand);
	UI.svgLink = el("a", { id: "save-svg", download: "flame.svg", href: "#" , class: "save" }, "SVG");
	UI.foldedLink = el("a", { id: "save-folded", download: "stacks.folded", href: "#", class: "save" }, "folded");
	g.appendChild(el("span", { class: "label" }, "Save"));
	g.appendChild(UI.svgLink);
	g.appendChild(UI.foldedLink);
	UI.svgLink.addEventListener("click", function (e) { if (!prepareDownload(UI.svgLink, "svg")) e.preventDefault(); });
	UI.foldedLink.addEventListener("click", function (e) { if (!prepareDownload(UI.foldedLink, "folded")) e.preventDefault(); });
	UI.reset = button("reset", "Reset", "Reset zoom, search and selection (Esc)");
	g.appendChild(UI.reset);
	UI.reset.addEventListener("click", resetAll);
	app.appendChild(bar);

	// the filters fold into a panel (open when the link sets one)
	UI.filterPanel = el("details", { id: "filter-panel" });
	UI.filterSummary = el("summary", { id: "filter-summary" }, "Filters");
	UI.filterPanel.appendChild(UI.filterSummary);
	var fb = el("div", { class: "bar filters", id: "filters" });
	UI.filters = {};
	[["comm", "comm RE", "process (root frame) regexp"], ["pid", "pid", "0-3,8"], ["tid", "tid", "0-3,8"], ["cpu", "cpu", "0-3,8"],
		["focus", "focus RE", "keep stacks with a frame matching"], ["ignore", "ignore RE", "drop stacks with a frame matching"],
		["hide", "hide RE", "drop matching frames"], ["show", "show RE", "keep only matching frames"],
		["show-from", "show-from RE", "start stacks at the rootmost match"], ["root-at", "root-at RE", "start stacks at the leafmost match"],
		["prune-from", "prune-from RE", "end stacks at the leafmost match"],
		["merge", "merge RE=NAME", "rename matching frames"]].forEach(function (f) {
		var lab = el("label", { class: "filter" });
		lab.appendChild(el("span", null, f[1]));
		// merge takes a rule per line (rules are not one expression); the
		// others one value, which shows several of the link OR-ed
		var inp = f[0] === "merge" ? el("textarea", { id: "f-merge", rows: 1, cols: 14, title: "--merge: " + f[2] + " (a rule per line)", spellcheck: "false" }) :
			el("input", { id: "f-" + f[0], type: "text", size: f[0].length < 4 ? 5 : 10, title: "--" + f[0] + ": " + f[2], spellcheck: "false" });
		inp.addEventListener("change", function () {
			var v = f[0] === "merge" ? inp.value.split(/\n/) : [inp.value];
			S.f[f[0]] = v.map(function (s) { return s.trim(); }).filter(Boolean);
			update("filter");
		});
		lab.appendChild(inp);
		fb.appendChild(lab);
		UI.filters[f[0]] = inp;
	});
	UI.collapse = checkbox(fb, "collapse-recursion", "collapse recursion", "--collapse-recursion");
	UI.filterError = el("span", { id: "filter-error", class: "error" });
	fb.appendChild(UI.filterError);
	UI.filterNote = el("span", { id: "filter-note", class: "note" });
	fb.appendChild(UI.filterNote);
	UI.filterPanel.appendChild(fb);
	app.appendChild(UI.filterPanel);

	UI.heat = el("section", { id: "heat" });
	app.appendChild(UI.heat);
	UI.legend = el("div", { id: "legend", class: "note" });
	app.appendChild(UI.legend);
	UI.tracks = el("div", { id: "tracks" });
	app.appendChild(UI.tracks);
	UI.bursts = el("ol", { id: "bursts" });
	app.appendChild(UI.bursts);
	UI.status = el("div", { id: "status" });
	app.appendChild(UI.status);
	UI.cmd = el("pre", { id: "cmd", class: "cmd" });
	app.appendChild(UI.cmd);
	UI.detail = el("pre", { id: "detail-cmd", class: "cmd" });
	app.appendChild(UI.detail);
	UI.graphHead = el("div", { id: "graph-head", class: "head" });
	app.appendChild(UI.graphHead);
	var wrap = el("div", { class: "canvaswrap", id: "flamewrap" });
	UI.flameCanvas = el("canvas", { id: "flame" });
	UI.tip = el("div", { id: "tip", class: "tip" });
	UI.tip.hidden = true;
	wrap.appendChild(UI.flameCanvas);
	wrap.appendChild(UI.tip);
	app.appendChild(wrap);
	UI.details = el("div", { id: "details", class: "details" }, "\u00a0");
	app.appendChild(UI.details);
	UI.matched = el("div", { id: "matched", class: "details" });
	app.appendChild(UI.matched);
	UI.flame = new FlameView(UI.flameCanvas, UI.tip, function (t) { UI.details.textContent = t || "\u00a0"; });
	chartEvents(UI.flame, showMatch);
	UI.flameCanvas.addEventListener("click", function (e) {
		if (UI.flame.dragged) { UI.flame.dragged = false; return; }
		var p = UI.flame.pos(e), i = UI.flame.frameAt(p[0], p[1]);
		if (i < 0) return;
		UI.flame.zoomTo(i === UI.flame.zoom || UI.flame.g.depth[i] === 0 ? -1 : i);
		showMatch();
	});
	UI.top = el("div", { id: "top" });
	app.appendChild(UI.top);
	UI.sandwich = el("div", { id: "sandwich" });
	app.appendChild(UI.sandwich);

	UI.inverted.addEventListener("change", function () { S.inverted = UI.inverted.checked; update("view"); });
	UI.sortWeight.addEventListener("change", function () { S.sort = UI.sortWeight.checked ? "weight" : "name"; update("view"); });
	UI.hash.addEventListener("change", function () { S.hash = UI.hash.checked; update("colors"); });
	UI.normalize.addEventListener("change", function () { S.normalize = UI.normalize.checked; update("view"); });
	UI.noIdle.addEventListener("change", function () { S.noIdle = UI.noIdle.checked; update("filter"); });
	UI.collapse.addEventListener("change", function () { S.collapse = UI.collapse.checked; update("filter"); });
}

// filterText shows the values of a filter key in its box as one value
// of the same meaning: ids joined by ",", expressions OR-ed as
// (?:a)|(?:b) (each keeps its own flags), merge rules a line each.
function filterText(k) {
	var v = S.f[k];
	if (v.length < 2) return v.join("");
	if (k === "merge") return v.join("\n");
	if (k === "pid" || k === "tid" || k === "cpu") return v.join(",");
	return v.map(function (x) { return "(?:" + x + ")"; }).join("|");
}

function checkbox(parent, id, label, title) {
	var lab = el("label", { class: "check", title: title });
	var c = el("input", { type: "checkbox", id: id });
	lab.appendChild(c);
	lab.appendChild(document.createTextNode(" " + label));
	parent.appendChild(lab);
	return c;
}

function syncControls() {
	for (var v in UI.views) UI.views[v].classList.toggle("on", S.view === v);
	UI.inverted.checked = S.inverted;
	UI.sortWeight.checked = S.sort === "weight";
	UI.colors.value = S.colors;
	UI.hash.checked = S.hash;
	if (document.activeElement !== UI.search) UI.search.value = S.search;
	UI.normalize.checked = S.normalize;
	UI.elided.value = S.elided;
	UI.noIdle.checked = S.noIdle;
	UI.collapse.checked = S.collapse;
	for (var k in UI.filters) if (document.activeElement !== UI.filters[k]) UI.filters[k].value = filterText(k);
	UI.compare.textContent = S.vs ? "Stop comparing" : "Compare with…";
	UI.compare.classList.toggle("on", compareNext);
	UI.filterError.textContent = filterError;
	UI.map.value = mapMode();
	if (document.activeElement !== UI.share) UI.share.value = S.share;
	UI.share.hidden = mapMode() !== "share" && !S.share;
	UI.filterNote.textContent = filterNote;
	var on = LIST_KEYS.filter(function (k) { return S.f[k].length; }).length + (S.collapse ? 1 : 0);
	UI.filterSummary.textContent = "Filters" + (on ? " (" + on + " on)" : "") + (filterError ? " — invalid" : "");
	if ((on || filterError) && !UI.filterPanel.dataset.shown) { UI.filterPanel.open = true; UI.filterPanel.dataset.shown = "1"; }
}

// ---- status, views ----
function rangeText(r) {
	var a = cellStartNs(r.c0), b = cellStartNs(r.c1);
	return fmtSecs(a) + " s to " + fmtSecs(b) + " s (" + fmtSecs(b - a) + " s" + (M.lanes.length > 1 ? ", host " + M.lanes[r.lane].host : "") + ")";
}

function status() {
	var t = "";
	if (pending) t = (pending.vs ? "Comparison" : "Selection") + " starts at " + fmtSecs(cellStartNs(pending.cell)) + " s: click the end cell.";
	else if (compareNext) t = "Select the range to compare with (click-click or drag).";
	else if (!S.sel) t = "Select a range on the heat map: click a start cell, then an end cell, or drag. Shift-select a second range to compare.";
	else {
		var A = CUR.A;
		t = "Selection " + rangeText(S.sel) + ": " + fmtInt(A ? A.totN[0] : 0) + " samples, " + weightText(A ? A.tot[0] : 0);
		if (S.vs) t += ". Compared with " + rangeText(S.vs) + ": " + fmtInt(CUR.B ? CUR.B.totN[0] : 0) + " samples, " + weightText(CUR.B ? CUR.B.tot[0] : 0) + (S.elided ? "" : "; red: more in the selection, blue: less" + (S.normalize ? " (comparison scaled to the selection's total, -n)" : ""));
		// a chart of more threads than fit draws the busiest: its totals,
		// as its command gives them
		var cc = S.view === "chart" && CUR.chart && CUR.chart.cut;
		if (cc) t += ". The chart draws " + fmtInt(CUR.chart.samples[0]) + " of them, the " + fmtInt(cc.drawn) + " busiest of " + fmtInt(cc.lanes) + " threads, as its command selects them";
		t += ".  ←/→ move it, Esc resets.";
	}
	UI.status.textContent = t;
	syncControls();
}

// searchRE is the search box's expression (Go's syntax, as the SVG's
// ?s= is not: see docs/explorer.md), null when empty or refused; the
// reason is shown beside the box.
var searchError = "";
function searchRE() {
	searchError = "";
	if (!S.search) return null;
	try { return re2Compile(S.search); } catch (e) { searchError = "search: " + e.message; return null; }
}

function showMatch() {
	var m = UI.flame.matched();
	UI.matched.classList.toggle("error", !!searchError);
	UI.matched.textContent = searchError ? searchError : m === null ? "" : "Matched: " + (100 * m).toFixed(1) + "% of " + (UI.flame.zoom >= 0 ? "the zoomed frame" : "all") + " (" + S.search + ")";
}

function drawGraph() {
	UI.top.textContent = "";
	UI.sandwich.textContent = "";
	var head = "";
	var g;
	if (!S.sel) { CUR.A = null; g = null; }
	else if (S.view === "chart") {
		g = flameChart();
		var cc = CUR.chart && CUR.chart.cut;
		head = "Flame chart of the selection: a lane per thread" + (cc ? " (" + fmtInt(cc.drawn) + " of " + fmtInt(cc.lanes) + ", the busiest: a filter by tid, pid or comm shows others)" : "") +
			", each sample at its own time (click a box to zoom the time axis to it, wheel to zoom, drag to pan)";
		if (!ST.length) { head = chartMissing(); g = null; }
	}
	else {
		g = flameGraph();
		head = S.vs ? (S.elided ? "Elided view: the stacks found " + (S.elided === "selection" ? "in the selection only" : "in the comparison range only") : "Differential flame graph: the selection's frames, red where they grew against the comparison range, blue where they shrank (difffolded | flamegraph)") :
			(S.inverted ? "Icicle graph" : "Flame graph") + " of the selection" + (S.sort === "weight" ? ", siblings by weight" : "");
	}
	if (g && !(g.total > 0)) {
		// an empty range says so, rather than drawing a blank band
		head = emptyText();
		g = null;
	}
	var table = S.view === "top" || S.view === "tree";
	UI.graphHead.textContent = table ? (S.sel && !(CUR.A && CUR.A.tot[0] > 0) ? emptyText() : "") : head + (g && S.view !== "chart" ? "  (click a frame to zoom, again to zoom out)" : "");
	UI.graphHead.classList.toggle("empty", !!S.sel && !g && !table);
	UI.flameCanvas.parentNode.hidden = !g || table;
	if (g) {
		UI.flame.set(g, S.inverted, searchRE()); // drawn once, with its matches
		showMatch();
	}
	if (S.view === "top" && S.sel) drawTop();
	if (S.view === "tree" && S.sel && g) drawTree();
	status();
}

// drawTop draws the top table: every row, sortable by self (flat) or
// total (cum) as stacktop [--cum] prints it.
// chartMissing says why a page draws no chart: it holds no sample times.
function chartMissing() {
	return "This page holds no sample times" + (M.timesCut ? " (more than its " + fmtInt(2000000) + " samples, or its cells were widened)" : "") +
		": the flame chart of a shorter window is a page away (timeslice --from … --to … --heatmap=html), or from its command below.";
}

// emptyText says why a range draws nothing.
function emptyText() {
	var what = S.vs && S.elided && S.view !== "chart" ? "No stacks found " + (S.elided === "selection" ? "in the selection only" : "in the comparison range only") : "No samples in " + rangeText(S.sel);
	var why = [];
	if (filterError) why.push("a filter is invalid: " + filterError);
	if (filterNote) why.push(filterNote);
	var any = LIST_KEYS.some(function (k) { return S.f[k].length; }) || S.collapse;
	if (!why.length) why.push(any ? "the filters leave none here; the heat map shows where they keep samples" : S.noIdle ? "only idle CPUs here, and idle is left out (no idle)" : "the capture holds none here");
	return what + ": " + why.join("; ") + ".";
}

function drawTop() {
	var t = topTable(), tbl = el("table", { id: "toptable" });
	var hr = el("tr");
	[["Function", ""], ["Self", "self"], ["Self %", "self"], ["Sum %", ""], ["Total", "cum"], ["Total %", "cum"]].forEach(function (h) {
		var th = el("th", null, h[0]);
		if (h[1]) {
			var on = (h[1] === "cum") === S.cum;
			th.className = "sortable" + (on ? " on" : "");
			th.title = "Sort by " + (h[1] === "cum" ? "total (stacktop --cum)" : "self (stacktop)");
			th.id = "top-sort-" + h[1] + (h[0].endsWith("%") ? "-pct" : "");
			th.addEventListener("click", function () { S.cum = h[1] === "cum"; update("view"); });
			if (on) th.textContent += " ▾";
		}
		hr.appendChild(th);
	});
	tbl.appendChild(hr);
	var run = 0, frag = document.createDocumentFragment();
	// Values in the counts' unit, chosen as stacktop -n 0 chooses it.
	var cu = M.countUnit || "", out = outputUnit("minimum", cu, t.rows.map(function (f) { return t.self[f] || t.total[f]; }), t.all);
	t.rows.forEach(function (f) {
		run += t.self[f];
		var tr = el("tr", { class: frameName(f) === S.fn ? "on" : "" });
		var td = el("td", { class: "fn" });
		var a = el("a", { href: "#", "data-frame": f }, frameDisp(f));
		a.addEventListener("click", function (e) { e.preventDefault(); S.fn = frameName(f); update("view"); });
		td.appendChild(a);
		tr.appendChild(td);
		[unitLabel(t.self[f], cu, out), pct(t.self[f], t.all), pct(run, t.all), unitLabel(t.total[f], cu, out), pct(t.total[f], t.all)].forEach(function (v) { tr.appendChild(el("td", { class: "num" }, v)); });
		frag.appendChild(tr);
	});
	tbl.appendChild(frag);
	UI.top.appendChild(el("div", { class: "head" }, t.rows.length + " functions of the selection by " + (S.cum ? "total" : "self") + " weight, as stacktop" + (S.cum ? " --cum" : "") + " ranks them (total counts a function once per stack, recursion included); click a column to sort, a function for its callers and callees"));
	UI.top.appendChild(tbl);
	if (S.fn) drawSandwich();
}

// drawTree draws the call tree of the view (Firefox Profiler's): a row per
// call path with its total and self, children by total; a click on ▸
// opens a row, and the heaviest path opens at first.
function drawTree() {
	var A = viewSums(), all = A.tot[0], tbl = el("table", { id: "calltree" });
	var hr = el("tr");
	["Total", "Total %", "Self", "Self %", "Function"].forEach(function (h) { hr.appendChild(el("th", null, h)); });
	tbl.appendChild(hr);
	function kids(v) {
		var out = [];
		for (var j = T.first[v]; j < T.first[v + 1]; j++) if (A.tot[T.kids[j]] > 0) out.push(T.kids[j]);
		return out.sort(function (a, b) { return A.tot[b] - A.tot[a] || frameRank(T.frame[a]) - frameRank(T.frame[b]); });
	}
	function row(v, depth) {
		var tr = el("tr", { "data-node": v, "data-depth": depth });
		[fmtInt(A.tot[v]), pct(A.tot[v], all), fmtInt(A.self[v]), pct(A.self[v], all)].forEach(function (x) { tr.appendChild(el("td", { class: "num" }, x)); });
		var td = el("td", { class: "fn" });
		td.style.paddingLeft = (4 + 14 * depth) + "px";
		var k = kids(v), btn = el("button", { type: "button", class: "treeopen" }, k.length ? "▸" : "·");
		btn.disabled = !k.length;
		td.appendChild(btn);
		td.appendChild(document.createTextNode(" " + frameDisp(T.frame[v])));
		tr.appendChild(td);
		tr.open = false;
		btn.addEventListener("click", function () { toggle(tr, v, depth); });
		return tr;
	}
	function toggle(tr, v, depth) {
		var btn = tr.querySelector("button");
		if (tr.open) {
			// close: drop the rows below it that are deeper
			for (var n = tr.nextSibling; n && +n.dataset.depth > depth; n = tr.nextSibling) n.remove();
			tr.open = false;
			btn.textContent = "▸";
			return null;
		}
		var after = tr, first = null;
		kids(v).forEach(function (c) { var r = row(c, depth + 1); after.after(r); after = r; if (!first) first = [r, c]; });
		tr.open = true;
		btn.textContent = "▾";
		return first;
	}
	var top = kids(0), firstRow = null;
	top.forEach(function (c) { var r = row(c, 0); tbl.appendChild(r); if (!firstRow) firstRow = [r, c]; });
	UI.top.appendChild(el("div", { class: "head" }, "Call tree of the " + (S.vs && S.elided ? "elided view" : "selection") + ": total and self of each call path, children by total; ▸ opens a row"));
	UI.top.appendChild(tbl);
	// open the heaviest path while it holds most of its parent
	for (var d = 0, cur = firstRow; cur && d < 64; d++) {
		var parentTot = A.tot[cur[1]];
		var next = toggle(cur[0], cur[1], d);
		if (!next || A.tot[next[1]] < 0.5 * parentTot) break;
		cur = next;
	}
}

function drawSandwich() {
	var sw = sandwich(S.fn);
	UI.sandwich.appendChild(el("div", { class: "head" }, "Sandwich of " + stripAnnotation(S.fn) + (sw.found ? ": its callers above it, its callees below" : ": not in the selection")));
	if (!sw.found) return;
	var fnFrame = -1;
	for (var f = 0; f < F.length + XF.length; f++) if (frameName(f) === S.fn) { fnFrame = f; break; }
	[["callers", sw.callers, false], ["callees", sw.callees, true]].forEach(function (x) {
		var tr = x[1], wrap = el("div", { class: "canvaswrap" }), c = el("canvas", { id: "sandwich-" + x[0] }), tip = el("div", { class: "tip" });
		tip.hidden = true;
		wrap.appendChild(c);
		wrap.appendChild(tip);
		UI.sandwich.appendChild(wrap);
		var info = { rootName: stripAnnotation(S.fn), tip: function (g, i, zw) {
			return g.label(i) + " — " + pct(g.w[i], g.total) + " of " + stripAnnotation(S.fn) + "'s total; " + weightText(g.w[i]);
		} };
		var g = layoutTree(tr, tr.tot, tr.self, function (v) { return colorOf(v === 0 ? fnFrame : tr.frame[v]); }, info, fnFrame);
		var view = new FlameView(c, tip, function (t) { UI.details.textContent = t || "\u00a0"; });
		view.set(g, x[2]);
		view.setMatch(searchRE());
		c.addEventListener("click", function (e) {
			var p = view.pos(e), i = view.frameAt(p[0], p[1]);
			if (i >= 0) view.zoomTo(i === view.zoom || g.depth[i] === 0 ? -1 : i);
		});
	});
}

// ---- actions ----
function copyCommand() {
	var cmd = command();
	UI.cmd.textContent = cmd || "Select a range first.";
	if (cmd && navigator.clipboard) navigator.clipboard.writeText(cmd).then(function () { UI.copy.textContent = "Copied"; setTimeout(function () { UI.copy.textContent = "Copy command"; }, 1500); }, function () {});
	var sel = window.getSelection(), range = document.createRange();
	range.selectNodeContents(UI.cmd);
	sel.removeAllRanges();
	sel.addRange(range);
}

var blobURLs = {};
function prepareDownload(a, kind) {
	if (!S.sel) return false;
	if (!CUR.A) drawGraph();
	var text = kind === "svg" ? svgText() : foldedText();
	if (!text) return false;
	if (blobURLs[kind]) URL.revokeObjectURL(blobURLs[kind]);
	blobURLs[kind] = URL.createObjectURL(new Blob([text], { type: kind === "svg" ? "image/svg+xml" : "text/plain" }));
	a.href = blobURLs[kind];
	var diff = S.vs && !S.elided;
	a.download = kind === "svg" ? (diff ? "diff.svg" : "flame.svg") : (diff ? "diff.folded" : "stacks.folded");
	return true;
}

function resetAll() {
	if (UI.flame.zoom >= 0 || S.search) {
		UI.flame.zoomTo(-1);
		S.search = "";
		UI.search.value = "";
		update("search");
		return;
	}
	pending = null;
	compareNext = false;
	if (S.vs) S.vs = null;
	else S.sel = null;
	S.fn = "";
	update("range");
}

function step(dir) {
	var r = S.sel;
	if (!r) return;
	var w = r.c1 - r.c0, span = HM.spans[r.lane];
	// clamped to the lane's samples: a range never starts before the
	// first (a negative --from is no time the tools take) nor after the last
	var c0 = Math.max(span[0], Math.min(r.c0 + dir * w, span[1] + 1 - w));
	if (c0 === r.c0) return;
	S.sel = { lane: r.lane, c0: c0, c1: c0 + w };
	centerOn(S.sel);
	update("range");
}

// update redraws what a change needs and saves the view in the URL.
function update(what) {
	if (what === "filter") { applyFilters(); heatSeries(); }
	if (what === "filter" || what === "range" || what === "init" || what === "map") drawHeat();
	if (what === "map") { syncControls(); saveFragment(false); return; }
	if (what === "search") {
		UI.flame.setMatch(searchRE());
		showMatch();
		if (S.view === "top" || S.view === "tree") drawGraph();
	} else drawGraph();
	UI.cmd.textContent = S.sel ? command() : "";
	UI.detail.textContent = M.full ? "Full detail: " + detailCommand() : "";
	saveFragment(what === "range");
}

function keys(e) {
	var t = e.target, typing = t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
	if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F") || e.key === "F3") {
		e.preventDefault();
		UI.search.focus();
		UI.search.select();
		return;
	}
	if (e.key === "Escape") {
		if (typing) t.blur();
		resetAll();
		return;
	}
	if (typing) return;
	if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
	if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
}

// warmUp lays out and draws a flame graph once on the graph's own canvas,
// its box moved off screen, so that the first selection finds the font
// ready, the code compiled and the canvas allocated at the box's size
// (allocating a canvas of a million pixels costs tens of ms in Chromium,
// more than drawing on it).
function warmUp() {
	if (S.sel || !CL.length) return;
	var wrap = UI.flameCanvas.parentNode;
	if (!wrap.hidden) return;
	var keep = S.sel;
	S.sel = { lane: LANE[EI[0]] || 0, c0: CL[0], c1: CL[Math.min(CL.length - 1, 50)] + 1 };
	var g = flameGraph();
	S.sel = keep;
	CUR.A = CUR.B = null;
	// as deep as the box is high: the canvas is then the one the box shows
	var rows = Math.ceil(boxHeight(wrap) / FRAME_H);
	if (rows < 1000) g.maxDepth = Math.max(g.maxDepth, rows);
	wrap.style.cssText = "position:absolute;left:-20000px;top:0;width:" + UI.heat.clientWidth + "px"; // the width it has in the page
	wrap.hidden = false;
	UI.flame.set(g, false);
	wrap.hidden = true;
	wrap.style.cssText = "";
	UI.flame.g = null;
}

async function main() {
	var t0 = performance.now();
	await unpack();
	var t1 = performance.now();
	buildUI();
	readFragment(location.hash);
	lastFragment = null;
	setupHeat();
	applyFilters();
	heatSeries();
	chooseDefaultMap();
	centerOn(S.sel);
	drawBursts();
	update("init");
	warmUp();
	window.addEventListener("keydown", keys);
	window.addEventListener("hashchange", function () {
		if (location.hash.replace(/^#/, "") === lastFragment) return;
		readFragment(location.hash);
		lastFragment = null;
		applyFilters();
		heatSeries();
		centerOn(S.sel);
		update("init");
	});
	var pendingResize = false;
	window.addEventListener("resize", function () {
		if (pendingResize) return;
		pendingResize = true;
		requestAnimationFrame(function () { pendingResize = false; drawHeat(); if (UI.flame.g) { UI.flame.draw(); } });
	});
	flamekit.timing = { unpack: t1 - t0, first: performance.now() - t0, loaded: performance.now() };
}

// The test hooks read the page; they change nothing.
flamekit.state = function () { return JSON.parse(JSON.stringify({ sel: S.sel, vs: S.vs, view: S.view, search: S.search, noIdle: S.noIdle, f: S.f, fragment: fragment() })); };
flamekit.command = command;
flamekit.unitLabel = unitLabel;
flamekit.outputUnit = outputUnit;
flamekit.foldedText = foldedText;
flamekit.svgText = svgText;
flamekit.totals = function () { return CUR.A ? { samples: CUR.A.totN[0], weight: CUR.A.tot[0], vsSamples: CUR.B ? CUR.B.totN[0] : 0, vsWeight: CUR.B ? CUR.B.tot[0] : 0 } : null; };
// cellPoint: the page coordinates of the centre of a cell of a lane
// (scrolled into view), for tests that click like a user.
flamekit.cellPoint = function (lane, ns) {
	var cell = cellOfNs(ns), g = HM.geom, xy = cellXY(g, lane, cell);
	if (!xy) return null;
	var c = HM.lanes[lane].canvas;
	c.scrollIntoView({ block: "center" });
	var b = c.getBoundingClientRect();
	return [b.left + xy[0] + g.cw / 2, b.top + xy[1] + g.ch / 2];
};
// framePoint: the centre of the widest visible frame whose label matches.
flamekit.framePoint = function (name) {
	var v = UI.flame, g = v.g;
	if (!g) return null;
	var best = -1;
	for (var i = 0; i < g.n; i++) if (g.label(i) === name && (best < 0 || g.w[i] > g.w[best])) best = i;
	if (best < 0) return null;
	var r = v.range(), scale = (v.cssW - 20) / r[1];
	var x = 10 + (g.x[best] - r[0] + g.w[best] / 2) * scale, d = g.depth[best];
	var y = v.inverted ? d * FRAME_H + 4 + FRAME_H / 2 : v.cssH - 4 - (d + 0.5) * FRAME_H;
	var box = v.canvas.parentNode;
	box.scrollTop = Math.max(0, y - box.clientHeight / 2);
	v.draw(); // the rows now in view (a scroll draws them in the next frame)
	box.scrollIntoView({ block: "center" });
	var b = v.canvas.getBoundingClientRect();
	return [b.left + x, b.top + y - v.top];
};
// chart: the flame chart's boxes (ns after its first sample, x0 ns after
// the origin), its interval, and the time window shown.
flamekit.chart = function () {
	var cl = CUR.chart, v = UI.flame;
	if (!cl || S.view !== "chart") return null;
	var boxes = [];
	for (var i = 0; i < cl.node.length; i++) boxes.push({ name: chartName(cl, i), start: cl.start[i], end: cl.end[i], depth: cl.depth[i], samples: cl.samples[i], lane: cl.frame[i] < 0 && i > 0 });
	return { x0: cl.x0, interval: cl.interval, boxes: boxes, window: v.g && v.g.time ? v.range().slice(0, 2) : null, details: UI.details.textContent,
		axis: v.g && v.g.time && v.g.time.labels || [], width: v.cssW };
};
flamekit.frames = function () {
	var g = UI.flame.g;
	if (!g) return [];
	var out = [];
	for (var i = 0; i < g.n; i++) out.push({ name: g.label(i), w: g.w[i], depth: g.depth[i], color: g.color[i] });
	return out;
};
// measure times a change and its drawing (until the next frame), in ms:
// "select" a range of ns after the origin, "filter" by comm, or "chart":
// the flame chart of a range.
flamekit.measure = function (what, a, b) {
	var t0 = performance.now();
	if (what === "select") { S.sel = { lane: 0, c0: cellOfNs(a), c1: cellOfNs(b) }; update("range"); }
	if (what === "filter") { S.f.comm = a ? [a] : []; update("filter"); }
	if (what === "chart") { S.view = "chart"; S.sel = { lane: 0, c0: cellOfNs(a), c1: cellOfNs(b) }; update("view"); }
	return new Promise(function (done) { requestAnimationFrame(function () { setTimeout(function () { done(performance.now() - t0); }, 0); }); });
};
// re2 runs the page's regular expressions (re2.js) on inputs: the matches,
// or Go's message for an expression it refuses.
flamekit.re2 = function (src, inputs) {
	try {
		var re = re2Compile(src);
		return { ok: true, matches: inputs.map(function (s) { return re.test(s); }) };
	} catch (e) {
		return { ok: false, error: String(e.message) };
	}
};
// mapTop: the heat map's mode and the start (ns) of its highest cell.
flamekit.mapTop = function () {
	var ms = mapSeries(0), best = -1;
	for (var i = 0; i < ms.s.length; i++) if (best < 0 || ms.s[i] > ms.s[best]) best = i;
	return { mode: mapMode(), ns: best < 0 ? -1 : cellStartNs(HM.spans[0][0] + best), value: best < 0 ? 0 : ms.s[best] };
};
// tree: the rows the call tree shows.
flamekit.tree = function () {
	return [...document.querySelectorAll("#calltree tr[data-node]")].map(function (tr) {
		var v = +tr.dataset.node;
		return { name: frameName(T.frame[v]), depth: +tr.dataset.depth, total: CUR.A ? viewSums().tot[v] : 0, self: CUR.A ? viewSums().self[v] : 0 };
	});
};
// settled resolves when the tracks and the bursts' rises are drawn (they
// are drawn after the map and the graph).
flamekit.settled = function () { return (TR.pending || Promise.resolve()).then(function () { return true; }); };
flamekit.heat = function () {
	return HM.series.map(function (s, l) { var sum = 0; for (var i = 0; i < s.length; i++) sum += s[i]; return { lane: M.lanes[l].host, sum: sum, max: HM.max[l], cells: s.length }; });
};
flamekit.top = function () {
	var t = topTable();
	return t.rows.map(function (f) { return { name: frameName(f), self: t.self[f], total: t.total[f] }; });
};
flamekit.ready = main().catch(function (e) {
	var app = document.getElementById("app");
	app.textContent = "";
	app.appendChild(el("p", { class: "error" }, "The page could not unpack its profile: " + (e && e.message || e) + ". It needs a browser with DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later)."));
	throw e;
});
