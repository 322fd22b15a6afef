// flamekit explorer: the SVG that `flamegraph` draws, written by the page
// for a download. A port of pkg/svg's Render (render.go, data.go,
// format.go, escape.go, internal/base/xmlesc) with flamegraph's default options
// and --colors, --hash and --inverted; the tests compare its output with
// flamegraph's byte for byte. The style sheet and the script are pkg/svg's,
// carried in the page's header.

// (In this file "<\!--", "<\script" and "<\/script" stand for the SVG's
// text: the page's HTML parser must not see them in its script.)

// ---- numbers as Go formats them ----

// expandExp writes a JavaScript number string without an exponent.
function expandExp(s) {
	var m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
	if (!m) return s;
	var digits = m[2] + (m[3] || ""), exp = +m[4], sign = m[1];
	var point = 1 + exp;
	if (point <= 0) return sign + "0." + "0".repeat(-point) + digits;
	if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
	return sign + digits.slice(0, point) + "." + digits.slice(point);
}

// exactTail returns |v| with prec+25 fraction digits: exact enough to
// tell a tie at digit prec+1.
function exactTail(v, prec) {
	return Math.abs(v).toFixed(Math.min(prec + 25, 100));
}

// fmtF is Go's strconv.FormatFloat(v, 'f', prec, 64): correctly rounded,
// exact ties to even (JavaScript's toFixed rounds them up).
function fmtF(v, prec) {
	var s = v.toFixed(prec);
	if (Math.abs(v) >= 1e21) return expandExp(s);
	var long = exactTail(v, prec), dot = long.indexOf(".");
	var tail = long.slice(dot + 1 + prec);
	if (/^50*$/.test(tail)) {
		var kept = long.slice(0, prec > 0 ? dot + 1 + prec : dot);
		var last = kept.charCodeAt(kept.length - 1) - 48;
		if (last % 2 === 0) s = (v < 0 ? "-" : "") + kept; // tie: keep the even digit
	}
	if (Object.is(v, -0)) s = "-" + s; // Go keeps the sign of zero
	return s;
}

// roundSig15 rounds v to 15 significant digits as Go's 'g' 15 does (exact
// ties to even; toPrecision rounds them up), returning the number.
function roundSig15(v) {
	var m = /^(-?)(\d)\.(\d+)e([+-]\d+)$/.exec(v.toExponential(40));
	if (m) {
		var digits = m[2] + m[3];
		if (/^50*$/.test(digits.slice(15)) && (digits.charCodeAt(14) - 48) % 2 === 0) {
			return Number(m[1] + digits[0] + "." + digits.slice(1, 15) + "e" + m[4]);
		}
	}
	return Number(v.toPrecision(15));
}

// goNum is folded.AppendCount: Perl's number format without exponents.
function goNum(v) {
	if (v === Math.trunc(v) && isFinite(v)) {
		if (Math.abs(v) <= 9007199254740992) return String(v === 0 ? 0 : v);
		return BigInt(v).toString();
	}
	return expandExp(String(roundSig15(v)));
}

// goG is strconv.FormatFloat(v, 'g', -1, 64).
function goG(v) {
	if (v === 0) return "0";
	var e = v.toExponential(); // shortest digits
	var m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
	var sign = m[1], digits = m[2] + (m[3] || ""), exp = +m[4];
	if (exp < -4 || exp >= 6) {
		var x = Math.abs(exp);
		return sign + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e" + (exp < 0 ? "-" : "+") + (x < 10 ? "0" : "") + x;
	}
	return expandExp(e);
}

// svgNum is data.go's num: integers as integers, others as %g.
function svgNum(v) {
	if (v === Math.trunc(v) && Math.abs(v) < 9007199254740992) return String(v === 0 ? 0 : v);
	return goG(v);
}

function round1(v) { return Number(fmtF(v, 1)); }

// ---- escaping as internal/base/xmlesc and pkg/svg's escape.go ----

function xmlAllowed(cp) {
	if (cp === 9 || cp === 10 || cp === 13) return true;
	if (cp < 0x20) return false;
	return cp !== 0xFFFE && cp !== 0xFFFF;
}

function xmlEscape(s, attr, quot) {
	var out = "";
	for (var ch of s) {
		var c = ch.codePointAt(0);
		if (c < 0x80) {
			if (ch === "&") out += "&amp;";
			else if (ch === "<") out += "&lt;";
			else if (ch === ">") out += "&gt;";
			else if (ch === "\"" && (attr || quot)) out += "&quot;";
			else if (attr && c === 9) out += "&#9;";
			else if (attr && c === 10) out += "&#10;";
			else if (c === 13) out += "&#13;";
			else if (!xmlAllowed(c) || c === 0x7F) out += "\uFFFD";
			else out += ch;
		} else if (!xmlAllowed(c)) out += "\uFFFD";
		else out += ch;
	}
	return out;
}
function xmlText(s) { return xmlEscape(s, false, false); }
function xmlTextQuoted(s) { return xmlEscape(s, false, true); }

function jsName(s, xml) {
	var hex = "0123456789abcdef", out = "\"";
	for (var ch of s) {
		var c = ch.codePointAt(0);
		if (c < 0x80) {
			if (ch === "\"" || ch === "\\") out += "\\" + ch;
			else if (xml && (c === 0x7F || !xmlAllowed(c))) out += "\\ufffd";
			else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x7F) out += "\\u00" + hex[c >> 4] + hex[c & 15];
			else out += ch;
		} else if (c === 0xFFFE || c === 0xFFFF) out += "\\ufffd";
		else if (c === 0x2028 || c === 0x2029) out += "\\u202" + hex[c & 15];
		else out += ch;
	}
	return out + "\"";
}

function gcdF(a, b) {
	while (b !== 0) {
		var t = a % b;
		a = b;
		b = t;
	}
	return a;
}

// renderSVG returns the SVG flamegraph draws for a layout: nodes in
// flamegraph's order (pre-order, siblings by name) as arrays name, start,
// end (count units), depth, delta and hasDelta; total; maxDelta; timed
// (the units are ns of a flame chart: it gets a time axis). o: colors
// (palette), hash, inverted, flamechart (the title only); css and script:
// pkg/svg's.
function renderSVG(l, o, css, script) {
	var W = 1200, fh = 16, fs = 12, xpad = 10, framepad = 1;
	var axis = l.timed ? fh : 0, ypad1 = fs * 3, ypad2 = fs * 2 + 10 + axis, ypad3 = 0;
	var timemax = l.total, wpt = (W - 2 * xpad) / timemax;
	var minTime = 0.1 / wpt;
	var kept = [], depthmax = 0, n = l.name.length;
	for (var i = 0; i < n; i++) {
		if (l.end[i] - l.start[i] < minTime) continue;
		kept.push(i);
		depthmax = Math.max(depthmax, l.depth[i]);
	}
	var height = (depthmax + 1) * fh + ypad1 + ypad2 + ypad3;
	var colorCache = new Map();
	var colors = kept.map(function (i) {
		var name = l.name[i], d = l.depth[i];
		if (name === "--" && d > 0) return "rgb(160,160,160)";
		if (name === "-" && d > 0) return "rgb(200,200,200)";
		if (l.hasDelta[i]) return rgb(diffColor(l.delta[i], l.maxDelta));
		var c = colorCache.get(name);
		if (c === undefined) {
			c = rgb(paletteColor(name, o.colors, o.hash));
			colorCache.set(name, c);
		}
		return c;
	});
	var isStatic = new Uint8Array(kept.length), staticIdx = [];
	for (var k = 0; k < kept.length; k++) {
		var j = kept[k], end = l.depth[j] === 0 ? timemax : l.end[j];
		if (kept.length <= 10000 || (end - l.start[j]) * wpt >= 1) {
			isStatic[k] = 1;
			staticIdx.push(k);
		}
	}
	var charW = fs * 0.59, parts = [], labels = [];
	for (var s = 0; s < staticIdx.length; s++) {
		if (s % 256 === 0) {
			if (s > 0) parts.push("</g>\n");
			parts.push("<g>\n");
		}
		k = staticIdx[s];
		i = kept[k];
		var d = l.depth[i];
		end = d === 0 ? timemax : l.end[i];
		var x1 = xpad + l.start[i] * wpt, x2 = xpad + end * wpt, y1, y2;
		if (o.inverted) {
			y1 = ypad1 + d * fh;
			y2 = ypad1 + (d + 1) * fh - framepad;
		} else {
			y1 = height - ypad2 - (d + 1) * fh + framepad;
			y2 = height - ypad2 - d * fh;
		}
		parts.push("<g><title>", tooltipSVG(l, i, end, timemax, o.countName || "samples"), "</title><rect x=\"", fmtF(x1, 1), "\" y=\"", goNum(y1),
			"\" width=\"", fmtF(round1(x2) - round1(x1), 1), "\" height=\"", fmtF(y2 - y1, 1), "\" fill=\"", colors[k], "\" rx=\"2\" ry=\"2\"/></g>\n");
		var chars = Math.trunc((x2 - x1) / charW);
		if (chars < 3 || d === 0) continue;
		labels.push("<text x=\"", fmtF(x1 + 3, 2), "\" y=\"", goNum(3 + (y1 + y2) / 2), "\">", xmlText(fitLabel(stripAnnotation(l.name[i]), chars)), "</text>\n");
	}
	var data = frameDataSVG(l, kept, colors, isStatic, { countName: o.countName || "samples", width: W, height: height, fh: fh, ypad1: ypad1, ypad2: ypad2, timemax: timemax, depthmax: depthmax });
	var bg = background(o.colors);
	var head = "<?xml version=\"1.0\" standalone=\"no\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg version=\"1.1\" width=\"" +
		goNum(W) + "\" height=\"" + goNum(height) + "\" onload=\"init(evt)\" viewBox=\"0 0 " + goNum(W) + " " + goNum(height) +
		"\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n<\!-- Flame graph stack visualization. See https://github.com/brendangregg/FlameGraph for latest version, and http://www.brendangregg.com/flamegraphs.html for examples. Drawn by flamekit. -->\n<\!-- NOTES:  -->\n" +
		"<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n\t\t<stop stop-color=\"" + bg[0] + "\" offset=\"5%\" />\n\t\t<stop stop-color=\"" + bg[1] +
		"\" offset=\"95%\" />\n\t</linearGradient>\n</defs>\n<style type=\"text/css\">\n" + css + "</style>\n<\script type=\"text/ecmascript\">\n<![CDATA[\n\nvar fgConfig = {nametype: " +
		jsName("Function:", false) + ", fontsize: " + goNum(fs) + ", fontwidth: " + goNum(0.59) + ", xpad: " + goNum(xpad) + ", inverted: " + (o.inverted ? "true" : "false") +
		", highlight: \"rgb(230,0,230)\"" + data + "};\n" + script + "]]>\n<\/script>\n<rect x=\"0.0\" y=\"0\" width=\"" + fmtF(W, 1) + "\" height=\"" + fmtF(height, 1) + "\" fill=\"url(#background)\"  />\n";
	var text = function (id, x, y, extra, content) {
		return "<text id=\"" + id + "\" x=\"" + fmtF(x, 2) + "\" y=\"" + goNum(y) + "\" " + extra + ">" + xmlText(content) + "</text>\n";
	};
	head += text("title", Math.trunc(W / 2), fs * 2, "", o.flamechart ? "Flame Chart" : o.inverted ? "Icicle Graph" : "Flame Graph");
	head += text("details", xpad, height - (ypad2 - axis) / 2, "", " ");
	head += text("unzoom", xpad, fs * 2, "class=\"hide\"", "Reset Zoom");
	head += text("search", W - xpad - 100, fs * 2, "", "Search");
	head += text("ignorecase", W - xpad - 16, fs * 2, "", "ic");
	head += text("matched", W - xpad - 100, height - (ypad2 - axis) / 2, "", " ");
	var closing = staticIdx.length === 0 ? "</g>\n<g id=\"labels\">\n" : "</g>\n</g>\n<g id=\"labels\">\n";
	var tail = axis ? timeAxisSVG(height - ypad2, axis, W, xpad, timemax, wpt, fs * 0.59) : "";
	return head + "<g id=\"frames\">\n" + parts.join("") + closing + labels.join("") + "</g>\n" + tail + "</svg>\n";
}

// timeAxisSVG is pkg/svg's timeAxis (render.go): the time axis of a timed
// flame chart, a band of height h at y top under the frames, with
// chartAxis's ticks (every 1, 2 or 5 × 10^k ns, about every 100 px)
// labelled in seconds after the chart's first sample, after their tick or
// before it at the right end, none over the one before; charW is a
// character's width.
function timeAxisSVG(top, h, W, xpad, timemax, wpt, charW) {
	var want = timemax / Math.max((W - 2 * xpad) / 100, 1), step = 1, exp = 0;
	while (step * 10 <= want) { step *= 10; exp++; }
	if (step * 5 <= want) step *= 5; else if (step * 2 <= want) step *= 2;
	var digits = Math.min(Math.max(9 - exp, 0), 9), bottom = top + h, out = [], end = xpad;
	out.push("<g id=\"axis\">\n<style type=\"text/css\">#unzoom:not(.hide) ~ #axis { display:none; }</style>\n");
	for (var i = 0; ; i++) {
		var t = i * step;
		if (t > timemax) break;
		var x = xpad + t * wpt;
		out.push("<line x1=\"", fmtF(x, 1), "\" y1=\"", goNum(top), "\" x2=\"", fmtF(x, 1), "\" y2=\"", goNum(bottom), "\" stroke=\"rgb(102,102,102)\"/>\n");
		var label = fmtF(t / 1e9, digits) + " s", w = label.length * charW, lx = x + 3;
		if (lx + w > W - xpad) lx = x - 3 - w;
		if (lx < end) continue;
		out.push("<text x=\"", fmtF(lx, 2), "\" y=\"", goNum(3 + (top + bottom) / 2), "\">", label, "</text>\n");
		end = lx + w + 6;
	}
	out.push("</g>\n");
	return out.join("");
}

function tooltipSVG(l, i, end, timemax, cn) {
	var samples = fmtF(end - l.start[i], 0);
	if (l.depth[i] === 0) return "all (" + commas(samples) + " " + xmlTextQuoted(cn) + ", 100%)";
	var out = xmlTextQuoted(stripAnnotation(l.name[i])) + " (" + commas(samples) + " " + xmlTextQuoted(cn) + ", " + fmtF(100 * Number(samples) / timemax, 2) + "%";
	if (l.hasDelta[i]) {
		var d = l.delta[i];
		out += "; " + (d > 0 ? "+" : "") + fmtF(100 * d / timemax, 2) + "%";
	}
	return out + ")";
}

function frameDataSVG(l, kept, colors, isStatic, g) {
	var next = new Float64Array(g.depthmax + 2), gaps = new Float64Array(kept.length);
	var unit = 0, integral = true;
	for (var k = 0; k < kept.length; k++) {
		var i = kept[k], d = l.depth[i];
		gaps[k] = l.start[i] - next[d];
		next[d] = l.end[i];
		next[d + 1] = l.start[i];
		var w = l.end[i] - l.start[i];
		if (integral) {
			for (var v of [gaps[k], w]) {
				if (v !== Math.trunc(v) || v < 0 || v > 9007199254740992) { integral = false; break; }
				unit = gcdF(unit, v);
			}
		}
	}
	if (!integral || unit === 0) unit = 1;
	var out = ", width: " + svgNum(g.width) + ", height: " + svgNum(g.height) + ", fh: " + svgNum(g.fh) + ", ypad1: " + svgNum(g.ypad1) +
		", ypad2: " + svgNum(g.ypad2) + ", timemax: " + svgNum(g.timemax) + ", unit: " + svgNum(unit) + ", factor: " + svgNum(1) + ", countname: " + jsName(g.countName, true);
	var nameIdx = new Map(), names = [], colorIdx = new Map(), cols = [], frames = [], deltas = [];
	for (k = 0; k < kept.length; k++) {
		i = kept[k];
		var name = l.depth[i] === 0 ? "all" : stripAnnotation(l.name[i]);
		var ni = nameIdx.get(name);
		if (ni === undefined) { ni = names.length; nameIdx.set(name, ni); names.push(name); }
		var ci = colorIdx.get(colors[k]);
		if (ci === undefined) { ci = cols.length; colorIdx.set(colors[k], ci); cols.push(colors[k]); }
		frames.push(l.depth[i] + "," + ni + "," + svgNum(gaps[k] / unit) + "," + svgNum((l.end[i] - l.start[i]) / unit) + "," + (2 * ci + isStatic[k]));
		if (l.hasDelta[i] && l.depth[i] > 0) deltas.push(k + "," + svgNum(l.delta[i]));
	}
	return out + ",\nnames: [" + names.map(function (s) { return jsName(s, true); }).join(",") + "],\ncolors: [" +
		cols.map(function (c) { return "\"" + c + "\""; }).join(",") + "],\ndeltas: [" + deltas.join(",") + "],\nframes: [" + frames.join(",") + "]\n";
}
