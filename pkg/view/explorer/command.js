// flamekit explorer: the commands. The pipeline that draws (or prints)
// what the view shows from the command line: timeslice for the range and
// the sample selection, stackfilter for the stack filters, difffolded for
// a comparison, flamegraph or stacktop (Go twins: the tools' flags,
// pkg/tool/*/flags.go; the browser tests run each command and compare).

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
function selectionArgs(only) {
	var a = [];
	["comm", "pid", "tid", "cpu"].forEach(function (k) {
		var v = S.f[k];
		if (only && only[k]) v = [only[k]]; // within the filter's: the chart's threads (chartCut)
		if (!v.length) return;
		var joined = k === "comm" ? (v.length === 1 ? v[0] : v.map(function (x) { return "(?:" + x + ")"; }).join("|")) : v.join(",");
		a.push("--" + k, shellQuote(joined));
	});
	return a;
}

function timesliceCmd(r, extra, only) {
	var ins = inputsOf(r), every = ins.length === M.inputs.length;
	var args = ["timeslice"];
	if (every) args.push("--from", fmtRel(cellStartNs(r.c0)), "--to", fmtRel(cellStartNs(r.c1)));
	else {
		var off = M.inputs[ins[0]].offset;
		args.push("--from", perfTime(cellStartNs(r.c0), off), "--to", perfTime(cellStartNs(r.c1), off));
	}
	if (S.noIdle) args.push("--no-idle");
	(M.select || []).forEach(function (a) { args.push(shellQuote(a)); }); // the page's own samples
	args.push.apply(args, selectionArgs(only));
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
		var cut = CUR.chart && CUR.chart.cut ? CUR.chart.cut.only : null;
		out = timesliceCmd(S.sel, ["--keep-time"], cut) + fa + " | " + flamegraphArgs("--flamechart") + " > chart.svg";
		out += "   # a lane per thread, each sample at its own time: the page's chart" + (cut ? " of the busiest threads" : "");
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

