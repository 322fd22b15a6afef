// flamekit explorer: the data. The page's header (M) and the profile it
// carries, unpacked (Go twin: encode.go, which writes the format described
// there), and time on its axis: cells (Go twin: pkg/timeline's cells,
// Timeline.CellStart), relative times as timeslice writes and reads them
// (fmtRel, parseTime; Go twin: pkg/filter/window, ParseRange) and perf's
// clock (perfTime; Go twin: folded.Time.Append). The page's modules are
// one script, in the order explorer.go writes them (scriptOrder): this
// one first of the page's own, ui.js last.

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

