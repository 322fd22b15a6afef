// flamekit explorer: the filters and the sums of a range. The sample
// selection (comm, pid, tid, cpu; Go twin: pkg/filter/selection), the stack
// filters in stackfilter's order (focus, ignore, hide, show, show-from,
// root-at, prune-from, merge, collapse recursion; Go twin:
// pkg/filter/stackfilter), idle CPUs (decided in Go: IdleStacks, from
// pkg/filter/idle), a stack's trailing empty frames (Go twin:
// folded.TrimStack); they make the tree T the views draw, and each
// entry's node in it (KE), summed per range and per block of cells.

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

