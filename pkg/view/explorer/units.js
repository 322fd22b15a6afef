// flamekit explorer: values in their unit, as go tool pprof prints them
// (Go twin: pkg/view/top/units.go, which stacktop uses; the cases of
// pkg/view/top/testdata/labels.json check both). A unit is spelt as pprof
// spells it ("nanoseconds", "bytes", "ms"); counts of no known kind
// ("count", "") print as they are.

var UNIT_KINDS = [
	{ base: 0, units: [["B", ["b", "byte"], 1], ["kB", ["kb", "kbyte", "kilobyte"], 1024], ["MB", ["mb", "mbyte", "megabyte"], 1048576],
		["GB", ["gb", "gbyte", "gigabyte"], 1073741824], ["TB", ["tb", "tbyte", "terabyte"], 1099511627776], ["PB", ["pb", "pbyte", "petabyte"], 1125899906842624]] },
	{ base: 3, units: [["ns", ["ns", "nanosecond"], 1], ["us", ["μs", "µs", "us", "microsecond"], 1e3], ["ms", ["ms", "millisecond"], 1e6],
		["s", ["s", "sec", "second"], 1e9], ["hrs", ["hour", "hr"], 3600e9]] },
];

// findUnit returns [kind, unit] of a unit's name (any case, a trailing
// plural s), or null (Go: findUnit).
function findUnit(name) {
	name = String(name).toLowerCase();
	if (name.length > 2 && name.endsWith("s")) name = name.slice(0, -1);
	for (var i = 0; i < UNIT_KINDS.length; i++) {
		var us = UNIT_KINDS[i].units;
		for (var j = 0; j < us.length; j++) if (us[j][1].indexOf(name) >= 0) return [UNIT_KINDS[i], us[j]];
	}
	return null;
}

var NO_UNIT = { minimum: 1, raw: 1, count: 1, sample: 1, unit: 1, auto: 1 };

// unitScale returns [v in unit to, the unit's short name] for v in unit
// from; to "minimum" is the largest unit in which v is 1 or more (Go:
// scale).
function unitScale(v, from, to) {
	var f = findUnit(from);
	if (!f) return [v, NO_UNIT[to] ? "" : to];
	var kind = f[0], base = v * f[1][2];
	if (to === "minimum" || to === "auto") {
		var best = -1;
		kind.units.forEach(function (u, i) { if (Math.abs(base) / u[2] >= 1) best = i; });
		var u = kind.units[best < 0 ? kind.base : best];
		return [base / u[2], u[0]];
	}
	var t = findUnit(to);
	var w = t && t[0] === kind ? t[1] : kind.units[kind.base];
	return [base / w[2], w[0]];
}

// outputUnit chooses the unit of a table whose values shown are vals and
// whose total is total, as pprof's -unit=minimum (Go: outputUnit).
function outputUnit(want, from, vals, total) {
	if (want !== "minimum") return want;
	var low = 0;
	vals.forEach(function (v) { v = Math.abs(v); if (v > 0 && (low === 0 || v < low)) low = v; });
	if (low === 0) low = Math.abs(total);
	var lu = unitScale(low, from, "minimum")[1], hu = unitScale(Math.abs(total), from, "minimum")[1], u = lu;
	if (lu !== hu && low * 100 < Math.abs(total)) u = unitScale(100 * low, from, "minimum")[1];
	return u === "" ? "raw" : u;
}

// unitLabel prints v (in unit from) in unit to, as pprof prints a value:
// two decimals without ".00", then the unit; 0 alone; to "raw", or of no
// unit, as the page prints counts (with thousands separators, where
// stacktop prints them bare).
function unitLabel(v, from, to) {
	if (to === "raw" || !from) return fmtInt(v);
	var s = unitScale(v, from, to), sv = fmtF(s[0], 2);
	if (sv.endsWith(".00")) sv = sv.slice(0, -3);
	if (sv === "0" || sv === "-0") return "0";
	return sv + s[1];
}
