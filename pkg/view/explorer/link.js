// flamekit explorer: the link. The view's state (S) lives in the URL
// fragment, whose keys are the command-line flags' long names with their
// syntax (Go twins: the flags of timeslice, stackfilter and flamegraph,
// pkg/tool/*/flags.go); every selection is a history entry.

// ---- view state (the URL fragment) ----
var LIST_KEYS = ["comm", "pid", "tid", "cpu", "focus", "ignore", "hide", "show", "show-from", "root-at", "prune-from", "merge"];
var S = {
	sel: null, vs: null, // {lane, c0, c1}: cells [c0, c1) of a lane
	f: {}, collapse: false, noIdle: M.noIdle,
	search: "", colors: "hot", hash: false, inverted: false,
	view: "flame", sort: "name", fn: "", normalize: false, elided: "", cum: false,
	map: "", share: "", // the heat map's mode ("": the page's default) and share's expression
	stretch: null
};
LIST_KEYS.forEach(function (k) { S.f[k] = []; });

function fragEnc(s) {
	return encodeURIComponent(s).replace(/%(40|2C|3B|3A|2F|5B|5D|24|21|27|28|29|2A)/g, function (m, h) { return String.fromCharCode(parseInt(h, 16)); });
}

function fragment() {
	var parts = [];
	function add(k, v) { parts.push(v === true ? k : k + "=" + fragEnc(v)); }
	function range(prefix, r) {
		if (!r) return;
		add(prefix + "from", fmtRel(cellStartNs(r.c0)));
		add(prefix + "to", fmtRel(cellStartNs(r.c1)));
	}
	range("", S.sel);
	range("vs-", S.vs);
	if (M.lanes.length > 1) {
		if (S.sel) add("host", M.lanes[S.sel.lane].host);
		if (S.vs) add("vs-host", M.lanes[S.vs.lane].host);
	}
	if (S.noIdle !== M.noIdle) add("no-idle", S.noIdle ? true : "false");
	else if (S.noIdle) add("no-idle", true);
	LIST_KEYS.forEach(function (k) { S.f[k].forEach(function (v) { add(k, v); }); });
	if (S.collapse) add("collapse-recursion", true);
	if (S.search) add("search", S.search);
	if (S.colors !== "hot") add("colors", S.colors);
	if (S.hash) add("hash", true);
	if (S.inverted) add("inverted", true);
	if (S.view !== "flame") add("view", S.view);
	if (S.sort !== "name") add("sort", S.sort);
	if (S.cum) add("cum", true);
	if (S.map) add("map", S.map);
	if (S.share) add("share", S.share);
	if (S.fn) add("fn", S.fn);
	if (S.normalize) add("normalize", true);
	if (S.elided) add("elided", S.elided);
	return parts.join("&");
}

function readFragment(h) {
	var q = {};
	(h || "").replace(/^#/, "").split("&").forEach(function (kv) {
		if (!kv) return;
		var i = kv.indexOf("="), k = i < 0 ? kv : kv.slice(0, i), v = i < 0 ? true : kv.slice(i + 1);
		try { k = decodeURIComponent(k); if (v !== true) v = decodeURIComponent(v); } catch (e) { return; }
		(q[k] = q[k] || []).push(v);
	});
	function one(k) { return q[k] ? q[k][q[k].length - 1] : undefined; }
	function bool(k, dflt) { var v = one(k); return v === undefined ? dflt : v === true || !/^(false|0|no)$/i.test(v); }
	function lane(k) {
		var h = one(k);
		if (h === undefined || h === true) return 0;
		var i = M.lanes.findIndex(function (l) { return l.host === h; });
		return i < 0 ? 0 : i;
	}
	function range(prefix, laneKey) {
		var a = parseTime(one(prefix + "from")), b = parseTime(one(prefix + "to"));
		if (isNaN(a) && isNaN(b)) return null;
		var span = laneSpan(lane(laneKey));
		var c0 = isNaN(a) ? span[0] : cellOfNs(a), c1 = isNaN(b) ? span[1] + 1 : cellOfNs(b - 1) + 1;
		if (c1 <= c0) return null;
		return { lane: lane(laneKey), c0: c0, c1: c1 };
	}
	S.sel = range("", "host");
	S.vs = range("vs-", "vs-host");
	S.noIdle = bool("no-idle", M.noIdle);
	LIST_KEYS.forEach(function (k) { S.f[k] = (q[k] || []).filter(function (v) { return v !== true && v !== ""; }); });
	S.collapse = bool("collapse-recursion", false);
	S.search = typeof one("search") === "string" ? one("search") : "";
	S.colors = PALETTES.includes(one("colors")) ? one("colors") : "hot";
	S.hash = bool("hash", false);
	S.inverted = bool("inverted", false);
	S.view = ["flame", "chart", "top", "tree"].includes(one("view")) ? one("view") : "flame";
	S.sort = one("sort") === "weight" ? "weight" : "name";
	S.cum = bool("cum", false);
	S.map = ["samples", "change", "share"].includes(one("map")) ? one("map") : "";
	S.share = typeof one("share") === "string" ? one("share") : "";
	S.fn = typeof one("fn") === "string" ? one("fn") : "";
	S.normalize = bool("normalize", false);
	S.elided = ["vs", "selection"].includes(one("elided")) ? one("elided") : "";
}

// saveFragment keeps the view in the URL: a new history entry for a new
// selection (Back returns to the one before), the same entry otherwise.
var lastFragment = null;
function saveFragment(entry) {
	var f = fragment();
	if (f === lastFragment) return;
	var push = entry && lastFragment !== null;
	lastFragment = f;
	var url = f ? "#" + f : location.pathname + location.search;
	if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

