// flamekit explorer: the page. It unpacks the profile (see encode.go),
// draws the heat map of each host's lane, and the flame graph, differential,
// flame chart, top table or sandwich of the selected range, under the
// filters; the view is kept in the URL fragment, whose keys are the
// command-line flags. Every name reaches the page through textContent or
// a canvas, never as markup.

var M = JSON.parse(document.getElementById("fx-meta").textContent);
var flamekit = { ready: null }; // for tests and the curious: window.flamekit
window.flamekit = flamekit;

// ---- data ----
var F = [], DISP = [], RANK = []; // frame names, shown names, sort ranks
var NN = 0, P, FR, DEP, IDLE; // stack tree: parent, frame, depth, idle
var TP, TT, TC, THAS; // threads: pid, tid, comm frame, which ids (1: pid, 2: tid)
var NE = 0, EC, ES, ET, EU, EI, EN, EW; // entries: cell, stack, thread, cpu, input, samples, weight
var CL, CS; // cells that hold entries, and their first entry
var MAXCPU = 0;
var LANE = []; // lane of each input
var ORIGIN = BigInt(M.origin);

function b64bytes(s) {
	if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s.trim());
	var bin = atob(s.trim()), out = new Uint8Array(bin.length);
	for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
	return out;
}

async function unpack() {
	var gz = b64bytes(document.getElementById("fx-data").textContent);
	var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
	var b = new Uint8Array(await new Response(stream).arrayBuffer());
	var p = 0;
	function uv() {
		var x = 0, s = 1, c;
		do { c = b[p++]; x += (c & 127) * s; s *= 128; } while (c & 128);
		return x;
	}
	function zv() { var u = uv(); return u % 2 ? -(u + 1) / 2 : u / 2; }
	var dec = new TextDecoder();
	var nf = uv();
	for (var i = 0; i < nf; i++) {
		var len = uv();
		var name = dec.decode(b.subarray(p, p + len));
		p += len;
		F.push(name);
		DISP.push(stripAnnotation(name));
		RANK.push(i);
	}
	NN = uv() + 1;
	P = new Int32Array(NN); FR = new Int32Array(NN); DEP = new Int32Array(NN); IDLE = new Uint8Array(NN);
	P[0] = -1; FR[0] = -1;
	for (i = 1; i < NN; i++) {
		P[i] = i - uv();
		FR[i] = uv();
		DEP[i] = DEP[P[i]] + 1;
	}
	var ni = uv(), id = 0;
	for (i = 0; i < ni; i++) { id += uv(); IDLE[id] = 1; }
	var nt = uv();
	TP = new Int32Array(nt); TT = new Int32Array(nt); TC = new Int32Array(nt); THAS = new Uint8Array(nt);
	for (i = 0; i < nt; i++) { THAS[i] = uv(); TP[i] = zv(); TT[i] = zv(); TC[i] = uv(); }
	var nc = uv();
	CL = new Float64Array(nc); CS = new Int32Array(nc + 1);
	var cell = 0, k = 0;
	var runs = new Int32Array(nc);
	for (i = 0; i < nc; i++) {
		cell = i === 0 ? zv() : cell + zv();
		CL[i] = cell;
		runs[i] = uv();
		CS[i] = k;
		k += runs[i];
	}
	CS[nc] = k;
	NE = uv();
	EC = new Float64Array(NE); ES = new Int32Array(NE); ET = new Int32Array(NE); EU = new Int32Array(NE);
	EI = new Int32Array(NE); EN = new Float64Array(NE); EW = new Float64Array(NE);
	for (i = 0; i < nc; i++) {
		var last = 0;
		for (var e = CS[i]; e < CS[i + 1]; e++) { EC[e] = CL[i]; last += zv(); ES[e] = last; }
	}
	for (e = 0; e < NE; e++) ET[e] = uv();
	for (e = 0; e < NE; e++) { EU[e] = uv() - 1; if (EU[e] > MAXCPU) MAXCPU = EU[e]; }
	for (e = 0; e < NE; e++) EI[e] = uv();
	for (e = 0; e < NE; e++) EN[e] = uv();
	if (M.integral) {
		for (e = 0; e < NE; e++) EW[e] = zv() + EN[e] * M.wunit;
	} else {
		var dv = new DataView(b.buffer, b.byteOffset);
		for (e = 0; e < NE; e++) { EW[e] = dv.getFloat64(p, true); p += 8; }
	}
	unpackTimes({ uv: uv, zv: zv });
	M.lanes.forEach(function (l, li) { l.inputs.forEach(function (inp) { LANE[inp] = li; }); });
}

// ---- time ----
var R; // cells per heat map column
function cellStartNs(c) {
	if (M.seconds > 1) return c * M.seconds * 1e9;
	var sec = Math.floor(c / M.rows), row = c - sec * M.rows;
	return sec * 1e9 + Math.ceil(row * 1e9 / M.rows);
}
function cellOfNs(ns) {
	if (M.seconds > 1) return Math.floor(ns / (M.seconds * 1e9));
	var sec = Math.floor(ns / 1e9);
	return sec * M.rows + Math.floor((ns - sec * 1e9) * M.rows / 1e9);
}
// fmtRel writes ns after the origin as timeslice's relative time: 14.2s.
function fmtRel(ns) {
	var neg = ns < 0;
	if (neg) ns = -ns;
	var sec = Math.floor(ns / 1e9), frac = String(ns - sec * 1e9).padStart(9, "0").replace(/0+$/, "");
	return (neg ? "-" : "") + sec + (frac ? "." + frac : "") + "s";
}
function fmtSecs(ns, digits) { return (ns / 1e9).toFixed(digits === undefined ? 3 : digits); }
// perfTime writes an absolute perf-clock time, @SECONDS, for input offset.
function perfTime(ns, offset) {
	var t = ORIGIN + BigInt(Math.round(ns)) - BigInt(offset || "0");
	var neg = t < 0n;
	if (neg) t = -t;
	var s = (t / 1000000000n).toString(), f = (t % 1000000000n).toString().padStart(9, "0");
	if (/000$/.test(f)) f = f.slice(0, 6);
	return "@" + (neg ? "-" : "") + s + "." + f;
}
// parseTime reads a time of the URL: 14.2s, 1m10s, 500ms, 70 (seconds),
// or @SECONDS on perf's clock; it returns ns after the origin, or NaN.
function parseTime(s) {
	s = (s || "").trim();
	if (s[0] === "@") {
		var m = /^@\[?(\d+)(?:\.(\d{0,9})\d*)?\]?s?$/.exec(s);
		if (!m) return NaN;
		var t = BigInt(m[1]) * 1000000000n + BigInt((m[2] || "").padEnd(9, "0") || "0");
		return Number(t - ORIGIN);
	}
	var total = 0, parts = 0, lastUnit = Infinity, re = /^(\d*)(?:\.(\d*))?(ms|h|m|s)?/;
	while (s !== "") {
		m = re.exec(s);
		if (!m || (m[1] === "" && m[2] === undefined)) return NaN;
		var unit = { ms: 1e6, h: 3600e9, m: 60e9, s: 1e9 }[m[3]];
		s = s.slice(m[0].length);
		if (unit === undefined) {
			if (s !== "" || parts > 0) return NaN;
			unit = 1e9;
		}
		if (unit >= lastUnit) return NaN;
		lastUnit = unit;
		parts++;
		var v = Number(m[1] || "0") * unit, scale = unit;
		for (var ch of (m[2] || "")) { scale /= 10; v += (ch.charCodeAt(0) - 48) * scale; }
		total += Math.round(v);
	}
	return parts ? total : NaN;
}

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

// ---- filters ----
var THOK, CPUOK, TMAP; // per thread, per cpu+1, per stack: kept?, and the stack's node in T
var KMAP; // per stack: its node in T, or -1 when the filters (idle included) drop it
var T = null; // the tree the filters make: {n, parent, frame, depth, kids (CSR), pre}
var filterError = "", filterNote = "";

// compileRE compiles a flag's regular expression with Go's syntax and
// meaning (re2.js), or throws the CLI's reason.
function compileRE(key, s) {
	try { return re2Compile(s); } catch (e) { throw new Error("--" + key + " " + JSON.stringify(s) + ": " + e.message); }
}
// anyRE2 is one expression for several values of a flag, matching when
// any matches (each keeps its own flags inside its group).
function anyRE2(key, list) {
	if (!list.length) return null;
	if (list.length === 1) return compileRE(key, list[0]);
	list.forEach(function (s) { compileRE(key, s); });
	return compileRE(key, list.map(function (s) { return "(?:" + s + ")"; }).join("|"));
}
// parseList reads ids and ranges, 0-3,8 (-1 is perf's unknown thread),
// as package selection does, into a test.
function parseList(list) {
	if (!list.length) return null;
	var ranges = [];
	list.join(",").split(",").forEach(function (part) {
		part = part.trim();
		var m = /^(-?\d+)(?:-(\d+))?$/.exec(part);
		if (!m || +m[1] < -1 || m[2] !== undefined && +m[2] < +m[1]) throw new Error("bad id or range " + JSON.stringify(part) + " (want ids and ranges such as 0-3,8)");
		ranges.push([+m[1], m[2] === undefined ? +m[1] : +m[2]]);
	});
	return function (v) { return ranges.some(function (r) { return v >= r[0] && v <= r[1]; }); };
}
// frameTest memoises a regular expression's verdict per frame, matched
// against the name (or what name gives of it).
function frameTest(re, name) {
	if (!re) return null;
	var memo = new Int8Array(F.length + 1024);
	return function (f) {
		var v = memo[f];
		if (v === 0) { var s = name ? name(F[f]) : F[f]; v = s !== null && re.test(s) ? 1 : 2; memo[f] = v; }
		return v === 1;
	};
}

// simplifyName cuts a name before its argument list as pprof does before
// matching -prune_from (stackfilter.SimplifyName): a leading "." goes, the
// name ends at the first "(" that does not start "(anonymous namespace)"
// or belong to "operator()"; an empty name matches nothing.
function simplifyName(name) {
	if (name === "") return null;
	if (name[0] === ".") name = name.slice(1);
	for (var i = 0; i < name.length;) {
		if (name.startsWith("(anonymous namespace)", i)) { i += 21; continue; }
		if (name.startsWith("operator()", i)) { i += 10; continue; }
		if (name[i] === "(") return name.slice(0, i);
		i++;
	}
	return name;
}

var XF = []; // frames made by --merge, after F: [name, rank]
function frameName(f) { return f < 0 ? "" : f < F.length ? F[f] : XF[f - F.length][0]; }
function frameDisp(f) { return f < 0 ? "" : f < F.length ? DISP[f] : stripAnnotation(XF[f - F.length][0]); }
function frameRank(f) { return f < F.length ? f : XF[f - F.length][1]; }
var enc = new TextEncoder();
function byteCmp(a, b) {
	var x = enc.encode(a + ";"), y = enc.encode(b + ";");
	for (var i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
	return x.length - y.length;
}
function mergedFrame(name) {
	var lo = 0, hi = F.length; // rank among F by name+";" bytes
	while (lo < hi) {
		var mid = (lo + hi) >> 1;
		var c = byteCmp(F[mid], name);
		if (c === 0) return mid;
		if (c < 0) lo = mid + 1; else hi = mid;
	}
	for (var i = 0; i < XF.length; i++) if (XF[i][0] === name) return F.length + i;
	XF.push([name, lo - 0.5 + XF.length * 1e-6]);
	return F.length + XF.length - 1;
}

function applyFilters() {
	filterError = "";
	var f = S.f;
	try {
		var comm = anyRE2("comm", f.comm), pid = parseList(f.pid), tid = parseList(f.tid), cpu = parseList(f.cpu);
		var focus = frameTest(anyRE2("focus", f.focus)), ignore = frameTest(anyRE2("ignore", f.ignore));
		var showFrom = frameTest(anyRE2("show-from", f["show-from"])), rootAt = frameTest(anyRE2("root-at", f["root-at"]));
		var pruneFrom = frameTest(anyRE2("prune-from", f["prune-from"]), simplifyName);
		var hide = frameTest(anyRE2("hide", f.hide)), show = frameTest(anyRE2("show", f.show));
		var merges = f.merge.map(function (m) {
			// RE[=NAME], split at the last "=" (stackfilter's rule)
			var i = m.lastIndexOf("="), re = i >= 0 ? m.slice(0, i) : m, name = i >= 0 ? m.slice(i + 1) : m;
			if (name === "" || name.includes(";")) throw new Error("--merge " + JSON.stringify(m) + ": the name after the last = may not be empty or hold ;");
			return { test: frameTest(compileRE("merge", re)), frame: mergedFrame(name) };
		});
	} catch (e) {
		filterError = String(e.message || e);
		comm = pid = tid = cpu = focus = ignore = showFrom = rootAt = pruneFrom = hide = show = null;
		merges = [];
	}
	var nt = TP.length;
	THOK = new Uint8Array(nt);
	for (var t = 0; t < nt; t++) {
		// a sample whose line lacks a field the filter needs is left out
		// (package selection's rule)
		THOK[t] = (!comm || comm.test(F[TC[t]])) && (!pid || THAS[t] & 1 && pid(TP[t])) && (!tid || THAS[t] & 2 && tid(TT[t])) ? 1 : 0;
	}
	CPUOK = new Uint8Array(MAXCPU + 2);
	for (var c = -1; c <= MAXCPU; c++) CPUOK[c + 1] = !cpu || c >= 0 && cpu(c) ? 1 : 0;
	filterNote = missingNote(pid, tid, cpu);

	var plain = !showFrom && !rootAt && !pruneFrom && !hide && !show && !merges.length && !S.collapse;
	TMAP = new Int32Array(NN);
	var fHit = focus ? new Uint8Array(NN) : null, iHit = ignore ? new Uint8Array(NN) : null;
	if (plain) {
		for (var n = 1; n < NN; n++) {
			var fr = FR[n], p = P[n];
			if (fHit) fHit[n] = fHit[p] || focus(fr) ? 1 : 0;
			if (iHit) iHit[n] = iHit[p] || ignore(fr) ? 1 : 0;
			TMAP[n] = (fHit && !fHit[n]) || (iHit && iHit[n]) ? -1 : n;
		}
		T = { n: NN, parent: P, frame: FR, depth: DEP, plain: true };
	} else {
		// One pass down the tree computes what each stack becomes, in
		// FILTERS.md's order: hide and show, then show-from (the rootmost
		// match starts the stack), root-at (the leafmost: a restart at each
		// match), prune-from (the leafmost match ends it: the stack as it
		// was at that frame), then merge and collapse-recursion, which run
		// frame by frame. Per node of the original tree: the new tree's
		// node of the path so far, the merge rule of the run it ends in,
		// whether show-from and root-at have matched, and the node at the
		// last prune-from match.
		var tParent = [-1], tFrame = [-1], tDepth = [0], child = new Map();
		var node = new Int32Array(NN), run = new Int32Array(NN), lm = new Int32Array(NN).fill(-1);
		var started = new Uint8Array(NN), rooted = new Uint8Array(NN);
		started[0] = showFrom ? 0 : 1;
		rooted[0] = rootAt ? 0 : 1;
		var intern = function (parent, frame) {
			var key = parent * 4194304 + frame, id = child.get(key);
			if (id === undefined) {
				id = tParent.length;
				child.set(key, id);
				tParent.push(parent); tFrame.push(frame); tDepth.push(tDepth[parent] + 1);
			}
			return id;
		};
		for (n = 1; n < NN; n++) {
			fr = FR[n]; p = P[n];
			if (fHit) fHit[n] = fHit[p] || focus(fr) ? 1 : 0;
			if (iHit) iHit[n] = iHit[p] || ignore(fr) ? 1 : 0;
			var cur = node[p], keep = !(hide && hide(fr)) && !(show && !show(fr));
			started[n] = started[p];
			rooted[n] = rooted[p];
			lm[n] = lm[p];
			run[n] = run[p];
			if (keep && !started[n]) {
				if (showFrom(fr)) started[n] = 1; else keep = false;
			}
			if (keep && rootAt && rootAt(fr)) { rooted[n] = 1; cur = 0; lm[n] = -1; run[n] = 0; }
			if (keep) {
				var rule = 0;
				for (var k = 0; k < merges.length; k++) if (merges[k].test(fr)) { rule = k + 1; break; }
				var nf = rule ? merges[rule - 1].frame : fr;
				if (rule && rule === run[n] && cur > 0) { /* the run of one merge rule: one frame */ }
				else if (S.collapse && cur > 0 && tFrame[cur] === nf) { /* direct recursion: one frame */ }
				else cur = intern(cur, nf);
				run[n] = rule;
				if (pruneFrom && pruneFrom(fr)) lm[n] = cur;
			}
			node[n] = cur;
			var out = lm[n] >= 0 ? lm[n] : cur;
			TMAP[n] = (fHit && !fHit[n]) || (iHit && iHit[n]) || !started[n] || !rooted[n] || out === 0 ? -1 : out;
		}
		T = { n: tParent.length, parent: Int32Array.from(tParent), frame: Int32Array.from(tFrame), depth: Int32Array.from(tDepth), plain: false };
	}
	trimEmptyTails();
	buildKids(T);
	KMAP = TMAP.slice();
	if (S.noIdle) for (n = 1; n < NN; n++) if (IDLE[n]) KMAP[n] = -1;
	KE = null; // made again by heatSeries, or by the first sums
	BLK = null;
}

// trimEmptyTails ends each stack at its last named frame: flamegraph
// drops a stack's trailing empty frames ("a;b;; 2" is a;b), after the
// filters have seen them (timeslice | stackfilter | flamegraph). A stack
// of empty frames only is left out, as it draws no frame.
function trimEmptyTails() {
	if (!F.length || F[0] !== "") return; // F is sorted: "" comes first
	for (var n = 1; n < NN; n++) {
		var t = TMAP[n];
		while (t > 0 && T.frame[t] === 0) t = T.parent[t];
		if (t !== TMAP[n]) TMAP[n] = t > 0 ? t : -1;
	}
}

// missingNote says how many samples the id filters could not judge as
// their lines lack the field (selection.Missing's message), or "".
function missingNote(pid, tid, cpu) {
	if (!pid && !tid && !cpu) return "";
	var n = 0;
	for (var e = 0; e < NE; e++) {
		var t = ET[e];
		if (pid && !(THAS[t] & 1) || tid && !(THAS[t] & 2) || cpu && EU[e] < 0) n += EN[e];
	}
	if (!n) return "";
	var need = [];
	if (cpu) need.push("cpu=");
	if (pid) need.push("pid=");
	if (tid) need.push("tid=");
	return fmtInt(n) + " samples carry no " + need.join(" or ") + " field and were not selected: fold the capture again with this stackcollapse (perf.data gives cpu, pid and tid; perf script text gives the fields it prints, e.g. perf script -F +pid,+cpu)";
}

// buildKids gives T its children lists, siblings by name (flamegraph's
// order), and a pre-order number per node.
function buildKids(T) {
	var n = T.n, first = new Int32Array(n + 1), kids = new Int32Array(Math.max(n - 1, 0));
	for (var i = 1; i < n; i++) first[T.parent[i] + 1]++;
	for (i = 1; i <= n; i++) first[i] += first[i - 1];
	var fill = first.slice();
	for (i = 1; i < n; i++) kids[fill[T.parent[i]]++] = i;
	if (!T.plain) {
		for (i = 0; i < n; i++) {
			if (first[i + 1] - first[i] > 1) {
				var sub = Array.from(kids.subarray(first[i], first[i + 1]));
				sub.sort(function (a, b) { return frameRank(T.frame[a]) - frameRank(T.frame[b]); });
				kids.set(sub, first[i]);
			}
		}
	}
	T.first = first;
	T.kids = kids;
	var pre = new Int32Array(n), stack = [0], k = 0;
	while (stack.length) {
		var v = stack.pop();
		pre[v] = k++;
		for (var j = first[v + 1] - 1; j >= first[v]; j--) stack.push(kids[j]);
	}
	T.pre = pre;
}

function keepEntry(e) {
	return THOK[ET[e]] && CPUOK[EU[e] + 1] && KMAP[ES[e]] >= 0;
}

function entryRange(c0, c1) {
	function lower(c) {
		var lo = 0, hi = CL.length;
		while (lo < hi) { var mid = (lo + hi) >> 1; if (CL[mid] < c) lo = mid + 1; else hi = mid; }
		return lo;
	}
	return [CS[lower(c0)], CS[lower(c1)]];
}

// KE is, per entry, the node of T its weight goes to under the filters
// (-1: left out), made with the heat map's series (heatSeries), so that a
// range's sums read one array rather than the filters. BLK holds the sums
// per node of blocks of BLOCK cells under the same filters, made in the
// same pass on a page of one lane (blockMaker), in idle time on a page of
// several (prebuildBlocks, a pass per lane): a long range sums its
// blocks' nodes, not their entries (a whole capture of a million entries,
// some thousands of nodes a block). Block sums are exact only with
// integral weights (whole numbers); a page of fractional weights sums
// entries, in order.
var KE = null, BLK = null, BLOCK = 256, SCR = null;

function entryTargets() {
	KE = new Int32Array(NE);
	for (var e = 0; e < NE; e++) KE[e] = keepEntry(e) ? KMAP[ES[e]] : -1;
	BLK = new Map();
}

// addEntries adds the entries of cells [c0, c1) of lane (-1: every lane)
// to self and selfN.
function addEntries(self, selfN, c0, c1, lane) {
	var ij = entryRange(c0, c1);
	for (var e = ij[0]; e < ij[1]; e++) {
		var t = KE[e];
		if (t < 0 || lane >= 0 && LANE[EI[e]] !== lane) continue;
		self[t] += EW[e];
		selfN[t] += EN[e];
	}
}

function blockKey(b, lane) { return b * (M.lanes.length + 1) + lane + 1; }

// blockSums returns the sums of block b of lane: the nodes with weight,
// their self weight and samples; null when the block holds hardly more
// entries than nodes (its entries are summed instead).
function blockSums(b, lane) {
	var key = blockKey(b, lane), got = BLK.get(key);
	if (got !== undefined) return got;
	if (!SCR || SCR.self.length !== T.n) SCR = { self: new Float64Array(T.n), selfN: new Float64Array(T.n), seen: new Uint8Array(T.n) };
	var ij = entryRange(b * BLOCK, (b + 1) * BLOCK), touched = [];
	for (var e = ij[0]; e < ij[1]; e++) {
		var t = KE[e];
		if (t < 0 || lane >= 0 && LANE[EI[e]] !== lane) continue;
		if (!SCR.seen[t]) { SCR.seen[t] = 1; touched.push(t); }
		SCR.self[t] += EW[e];
		SCR.selfN[t] += EN[e];
	}
	var out = takeBlock(touched, ij[1] - ij[0]);
	BLK.set(key, out);
	return out;
}

// prebuildBlocks sums the blocks of every lane in idle time, a few at a
// time, so that a long selection after the page opens or the filters
// change finds them made; a change of filters stops it (gen).
var BUILDING = 0;
function prebuildBlocks() {
	var gen = ++BUILDING;
	if (!M.integral || !CL.length) return;
	var jobs = [], lanes = M.lanes.length > 1;
	for (var l = 0; l < (lanes ? M.lanes.length : 1); l++) {
		var sp = HM.spans[l];
		for (var b = Math.floor(sp[1] / BLOCK); b >= Math.floor(sp[0] / BLOCK); b--) jobs.push([b, lanes ? l : -1]);
	}
	var later = window.requestIdleCallback || function (f) { return setTimeout(function () { f({ timeRemaining: function () { return 10; } }); }, 1); };
	function work(deadline) {
		if (gen !== BUILDING || !BLK) return;
		while (jobs.length && deadline.timeRemaining() > 1) {
			var j = jobs.pop();
			blockSums(j[0], j[1]);
		}
		if (jobs.length) later(work);
	}
	later(work);
}

// sums returns the self weight and samples of each node of T for range r.
function sums(r) {
	var self = new Float64Array(T.n), selfN = new Float64Array(T.n);
	if (!r) return { self: self, selfN: selfN };
	if (!KE) entryTargets();
	var lane = M.lanes.length > 1 ? r.lane : -1;
	var b0 = Math.ceil(r.c0 / BLOCK), b1 = Math.floor(r.c1 / BLOCK);
	if (!M.integral || b1 - b0 < 2) {
		addEntries(self, selfN, r.c0, r.c1, lane);
		return { self: self, selfN: selfN };
	}
	addEntries(self, selfN, r.c0, b0 * BLOCK, lane);
	for (var b = b0; b < b1; b++) {
		// a block not summed yet is summed by entries (prebuildBlocks
		// makes it in idle time): a first long selection costs no more
		// than summing its entries
		var bs = BLK.get(blockKey(b, lane));
		if (!bs) { addEntries(self, selfN, b * BLOCK, (b + 1) * BLOCK, lane); continue; }
		for (var k = 0; k < bs.node.length; k++) {
			self[bs.node[k]] += bs.self[k];
			selfN[bs.node[k]] += bs.selfN[k];
		}
	}
	addEntries(self, selfN, b1 * BLOCK, r.c1, lane);
	return { self: self, selfN: selfN };
}

// totals sums selfs up the tree (a parent's id is below its children's).
function totals(s) {
	var tot = s.self.slice(), totN = s.selfN.slice();
	for (var i = T.n - 1; i > 0; i--) {
		tot[T.parent[i]] += tot[i];
		totN[T.parent[i]] += totN[i];
	}
	s.tot = tot;
	s.totN = totN;
	return s;
}

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

// GraphBuilder collects frames.
function GraphBuilder() {
	this.x = []; this.w = []; this.depth = []; this.name = []; this.node = []; this.color = [];
	this.n = 0; this.maxDepth = 0;
}
GraphBuilder.prototype.add = function (x, w, depth, frame, node, color) {
	this.x.push(x); this.w.push(w); this.depth.push(depth); this.name.push(frame); this.node.push(node); this.color.push(color);
	this.n++;
	if (depth > this.maxDepth) this.maxDepth = depth;
};
GraphBuilder.prototype.done = function (total, info) {
	var g = {
		n: this.n, x: Float64Array.from(this.x), w: Float64Array.from(this.w), depth: Int32Array.from(this.depth),
		name: Int32Array.from(this.name), node: Int32Array.from(this.node), color: this.color,
		total: total, maxDepth: this.maxDepth, bg: background(S.colors)
	};
	g.label = function (i) { return g.depth[i] === 0 && info.rootName ? info.rootName : frameDisp(g.name[i]); };
	g.tipText = function (i, zoomW) { return info.tip(g, i, zoomW); };
	return g;
};

// layoutTree lays out a tree (parent/frame arrays with kids lists) by its
// totals: pre-order, self first, siblings by name or by weight.
function layoutTree(tr, tot, self, colorFn, info, rootFrame) {
	var gb = new GraphBuilder();
	if (!(tot[0] > 0)) return gb.done(0, info);
	var xs = new Float64Array(tr.n), stack = [0];
	gb.add(0, tot[0], 0, rootFrame === undefined ? -1 : rootFrame, 0, colorFn(0));
	while (stack.length) {
		var v = stack.pop(), cursor = xs[v] + (S.sort === "weight" ? 0 : self[v]);
		var list = [];
		for (var j = tr.first[v]; j < tr.first[v + 1]; j++) if (tot[tr.kids[j]] > 0) list.push(tr.kids[j]);
		if (S.sort === "weight") list.sort(function (a, b) { return tot[b] - tot[a] || frameRank(tr.frame[a]) - frameRank(tr.frame[b]); });
		var order = [];
		for (var k = 0; k < list.length; k++) {
			var c = list[k];
			xs[c] = cursor;
			cursor += tot[c];
			gb.add(xs[c], tot[c], tr.depth[c], tr.frame[c], c, colorFn(c));
			order.push(c);
		}
		for (k = order.length - 1; k >= 0; k--) stack.push(order[k]);
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
	if (!r || !(A.tot[0] > 0) || !ST.length) { CUR.chart = null; return new GraphBuilder().done(0, { rootName: "", tip: tipFor("chart", A) }); }
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
	if (S.view === "chart") return chartFolded(chartLayout(S.sel));
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
	if (S.view === "chart") return chartSVG(chartLayout(S.sel), o);
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

// ---- commands ----
function shellQuote(s) {
	if (s !== "" && /^[A-Za-z0-9_.\/=:@+,%-]+$/.test(s)) return s;
	return "'" + s.replace(/'/g, "'\\''") + "'";
}

// inputsOf returns the inputs of a lane whose samples overlap the range.
function inputsOf(r) {
	var from = ORIGIN + BigInt(cellStartNs(r.c0)), to = ORIGIN + BigInt(cellStartNs(r.c1)), all = [], hit = [];
	M.inputs.forEach(function (inp, i) {
		if (LANE[i] !== r.lane) return;
		all.push(i);
		if (inp.first === "" || BigInt(inp.first) + BigInt(inp.offset) < to && BigInt(inp.last) + BigInt(inp.offset) >= from) hit.push(i);
	});
	return hit.length ? hit : all;
}

// selectionArgs gives the filters that pick samples by where they ran
// (package selection's --comm, --pid, --tid, --cpu) as timeslice flags;
// several values of one are OR-ed, as the page does.
function selectionArgs() {
	var a = [];
	["comm", "pid", "tid", "cpu"].forEach(function (k) {
		var v = S.f[k];
		if (!v.length) return;
		var joined = k === "comm" ? (v.length === 1 ? v[0] : v.map(function (x) { return "(?:" + x + ")"; }).join("|")) : v.join(",");
		a.push("--" + k, shellQuote(joined));
	});
	return a;
}

function timesliceCmd(r, extra) {
	var ins = inputsOf(r), every = ins.length === M.inputs.length;
	var args = ["timeslice"];
	if (every) args.push("--from", fmtRel(cellStartNs(r.c0)), "--to", fmtRel(cellStartNs(r.c1)));
	else {
		var off = M.inputs[ins[0]].offset;
		args.push("--from", perfTime(cellStartNs(r.c0), off), "--to", perfTime(cellStartNs(r.c1), off));
	}
	if (S.noIdle) args.push("--no-idle");
	(M.select || []).forEach(function (a) { args.push(shellQuote(a)); }); // the page's own samples
	args.push.apply(args, selectionArgs());
	if (extra) args.push.apply(args, extra);
	ins.forEach(function (i) { args.push(M.inputs[i].file); });
	return args.join(" ");
}

// filterArgs gives the stack filters as stackfilter flags (FILTERS.md).
function filterArgs() {
	var a = [];
	["focus", "ignore", "hide", "show", "show-from", "root-at", "prune-from", "merge"].forEach(function (k) { S.f[k].forEach(function (v) { a.push("--" + k, shellQuote(v)); }); });
	if (S.collapse) a.push("--collapse-recursion");
	return a.length ? " | stackfilter " + a.join(" ") : "";
}

function flamegraphArgs(extra) {
	var a = ["flamegraph"];
	if (extra) a.push(extra);
	if (S.colors !== "hot") a.push("--colors", S.colors);
	if (S.hash) a.push("--hash");
	if (S.inverted) a.push("--inverted");
	return a.join(" ");
}

// elidedFilter keeps difffolded's lines whose other count is 0 and
// writes them as plain folded lines: the elided view from the command
// line (difffolded writes "stack before after").
function elidedFilter() {
	return S.elided === "selection" ? " | grep -E ' 0 [^ ]+$' | sed -E 's/ 0 ([^ ]+)$/ \\1/'" : " | grep -E ' [^ ]+ 0$' | sed -E 's/ 0$//'";
}

// command gives the pipeline that draws (or, for the top table, prints)
// what the view shows; view=chart and view=top take precedence over the
// comparison, as they do on the page.
function command() {
	if (!S.sel) return "";
	var fa = filterArgs(), out;
	if (S.view === "top") {
		// --keep-time keeps the metadata that says the counts' unit, which
		// stacktop prints its values in, as the page does (classic output
		// has none: it is for the Perl tools too).
		out = timesliceCmd(S.sel, M.countUnit ? ["--keep-time"] : []) + fa + " | stacktop -n 0" + (S.cum ? " --cum" : "");
	} else if (S.view === "chart") {
		out = timesliceCmd(S.sel, ["--keep-time"]) + fa + " | " + flamegraphArgs("--flamechart") + " > chart.svg";
		out += "   # a lane per thread, each sample at its own time: the page's chart";
	} else if (S.vs && S.elided) {
		out = "difffolded <(" + timesliceCmd(S.vs) + fa + ") <(" + timesliceCmd(S.sel) + fa + ")" + elidedFilter() + " | " + flamegraphArgs() + " > flame.svg";
	} else if (S.vs) {
		out = "difffolded " + (S.normalize ? "-n " : "") + "<(" + timesliceCmd(S.vs) + fa + ") <(" + timesliceCmd(S.sel) + fa + ") | " + flamegraphArgs() + " > diff.svg";
	} else {
		out = timesliceCmd(S.sel) + fa + " | " + flamegraphArgs() + " > flame.svg";
	}
	if (S.search && S.view !== "top") out += "   # then open the SVG with ?s=" + encodeURIComponent(S.search) + " to search";
	return out;
}

// detailCommand: for a page whose cells were widened, the command that
// gives full detail for the selection (or the stretch that fits).
function detailCommand() {
	if (!M.full) return "";
	var r = S.sel, span = laneSpan(0), c0, c1;
	var fitCells = Math.max(1, Math.floor(M.full.fitSeconds / (M.seconds > 1 ? M.seconds : 1 / M.rows)));
	if (r) { c0 = r.c0; c1 = Math.min(r.c1, r.c0 + fitCells); } else { c0 = span[0]; c1 = Math.min(span[1] + 1, c0 + fitCells); }
	return timesliceCmd({ lane: r ? r.lane : 0, c0: c0, c1: c1 }, ["--heatmap=html", "--rows", String(M.full.rows)]).replace(/$/, " > detail.html");
}

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
		ctx.fillText(colLabel(col - shift, li), g.x0 + (col - g.first) * g.cw + g.cw / 2, g.y0 + R * g.ch + 3);
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
		head = ST.length ? "Flame chart of the selection: a lane per thread, each sample at its own time (click a box to zoom the time axis to it, wheel to zoom, drag to pan)" : "";
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

// warmUp lays out and draws a flame graph off screen once, so that the
// first selection finds the font ready and the code compiled.
function warmUp() {
	if (S.sel || !CL.length) return;
	var c = document.createElement("canvas"), tip = document.createElement("div");
	var hidden = el("div", { style: "position:absolute;left:-10000px;top:0;width:1200px" });
	hidden.appendChild(c);
	document.body.appendChild(hidden);
	var keep = S.sel;
	S.sel = { lane: LANE[EI[0]] || 0, c0: CL[0], c1: CL[Math.min(CL.length - 1, 50)] + 1 };
	var view = new FlameView(c, tip);
	view.set(flameGraph(), false);
	S.sel = keep;
	CUR.A = CUR.B = null;
	hidden.remove();
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
	box.scrollIntoView({ block: "center" });
	var b = v.canvas.getBoundingClientRect();
	return [b.left + x, b.top + y];
};
// chart: the flame chart's boxes (ns after its first sample, x0 ns after
// the origin), its interval, and the time window shown.
flamekit.chart = function () {
	var cl = CUR.chart, v = UI.flame;
	if (!cl || S.view !== "chart") return null;
	var boxes = [];
	for (var i = 0; i < cl.node.length; i++) boxes.push({ name: chartName(cl, i), start: cl.start[i], end: cl.end[i], depth: cl.depth[i], samples: cl.samples[i], lane: cl.frame[i] < 0 && i > 0 });
	return { x0: cl.x0, interval: cl.interval, boxes: boxes, window: v.g && v.g.time ? v.range().slice(0, 2) : null, details: UI.details.textContent };
};
flamekit.frames = function () {
	var g = UI.flame.g;
	if (!g) return [];
	var out = [];
	for (var i = 0; i < g.n; i++) out.push({ name: g.label(i), w: g.w[i], depth: g.depth[i], color: g.color[i] });
	return out;
};
// measure times a change and its drawing (until the next frame), in ms:
// "select" a range of ns after the origin, or "filter" by comm.
flamekit.measure = function (what, a, b) {
	var t0 = performance.now();
	if (what === "select") { S.sel = { lane: 0, c0: cellOfNs(a), c1: cellOfNs(b) }; update("range"); }
	if (what === "filter") { S.f.comm = a ? [a] : []; update("filter"); }
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
