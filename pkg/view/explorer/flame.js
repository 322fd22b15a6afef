// flamekit explorer: colours (a port of pkg/svg's color.go, so the page and
// flamegraph colour a name alike) and the flame graph drawn on a canvas.
// Names are drawn with fillText and shown with textContent only.

var FLAT = {
	red: function (i) { return [200 + i(55), 50 + i(80), 50 + i(80)]; },
	green: function (i) { return [50 + i(60), 200 + i(55), 50 + i(60)]; },
	blue: function (i) { return [80 + i(60), 80 + i(60), 205 + i(50)]; },
	yellow: function (i) { return [175 + i(55), 175 + i(55), 50 + i(20)]; },
	purple: function (i) { return [190 + i(65), 80 + i(60), 190 + i(65)]; },
	aqua: function (i) { return [50 + i(60), 165 + i(55), 165 + i(55)]; },
	orange: function (i) { return [190 + i(65), 90 + i(65), 0]; }
};
var PALETTES = ["hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange"];

// drand48Seeded is Perl's srand(seed); rand(1) (Perl's own drand48).
function drand48Seeded(seed) {
	var x = (BigInt(seed) << 16n) + 0x330En;
	x = (0x5DEECE66Dn * x + 0xBn) & ((1n << 48n) - 1n);
	return Number(x) / 281474976710656;
}

// codePointSum is Perl's unpack("%32W*", name).
function codePointSum(name) {
	var s = 0;
	for (var ch of name) s = (s + ch.codePointAt(0)) >>> 0;
	return s;
}

// nameHash is flamegraph.pl's namehash of the first three characters.
function nameHash(name) {
	var cps = Array.from(name);
	if (cps.length > 0) {
		var j = cps.indexOf("`", 1);
		if (j >= 0) cps = cps.slice(j + 1);
	}
	var vector = 0, weight = 1, max = 1, mod = 10;
	for (var k = 0; k < 3 && k < cps.length; k++) {
		var v = cps[k].codePointAt(0) % mod;
		vector += v / (mod - 1) * weight;
		mod++;
		max += weight;
		weight *= 0.7;
	}
	return 1 - vector / max;
}

function isJavaPackage(name) {
	if (name.startsWith("L")) name = name.slice(1);
	return ["java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"].some(function (p) { return name.startsWith(p); });
}

function classify(palette, name) {
	switch (palette) {
	case "java":
		if (name.endsWith("_[j]")) return "green";
		if (name.endsWith("_[i]")) return "aqua";
		if (isJavaPackage(name)) return "green";
		if (name.includes(":::")) return "green";
		if (name.includes("::")) return "yellow";
		if (name.endsWith("_[k]")) return "orange";
		return "red";
	case "perl":
		if (name.includes("::")) return "yellow";
		if (name.includes("Perl") || name.includes(".pl")) return "green";
		if (name.endsWith("_[k]")) return "orange";
		return "red";
	case "js":
		if (name.endsWith("_[j]")) return name.includes("/") ? "green" : "aqua";
		if (name.includes("::")) return "yellow";
		var i = name.indexOf("/");
		if (i >= 0 && name.slice(i + 1).includes(".js")) return "green";
		if (name.includes(":")) return "aqua";
		if (name === " ") return "green";
		if (name.includes("_[k]")) return "orange";
		return "red";
	case "wakeup":
		return "aqua";
	case "chain":
		return name.includes("_[w]") ? "aqua" : "blue";
	}
	return palette;
}

// paletteColor returns [r, g, b] for a frame name as pkg/svg's Colorer
// (hash: --hash; else flamegraph.pl's default seeded variates).
function paletteColor(name, palette, hash) {
	var v1, v2, v3;
	if (hash) {
		v1 = nameHash(name);
		v2 = nameHash(Array.from(name).reverse().join(""));
		v3 = v2;
	} else {
		v1 = v2 = v3 = drand48Seeded(codePointSum(name));
	}
	var t = Math.trunc;
	switch (palette) {
	case "hot": return [205 + t(50 * v3), t(230 * v1), t(55 * v2)];
	case "mem": return [0, 190 + t(50 * v2), t(210 * v1)];
	case "io": var g = 80 + t(60 * v1); return [g, g, 190 + t(55 * v2)];
	}
	var f = FLAT[classify(palette, name)];
	return f ? f(function (s) { return t(s * v1); }) : [0, 0, 0];
}

// diffColor is pkg/svg's DiffColor: red grew, blue shrank, white none.
function diffColor(delta, maxDelta) {
	var x;
	if (delta > 0) {
		x = Math.trunc(210 * (maxDelta - delta) / maxDelta) & 255;
		return [255, x, x];
	}
	if (delta < 0) {
		x = Math.trunc(210 * (maxDelta + delta) / maxDelta) & 255;
		return [x, x, 255];
	}
	return [255, 255, 255];
}

function rgb(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }

// background returns the two stops of flamegraph's background gradient.
function background(palette) {
	switch (palette) {
	case "mem": return ["#eef2ee", "#e0ffe0"];
	case "io": case "wakeup": case "chain": return ["#eeeeee", "#e0e0ff"];
	case "red": case "green": case "blue": case "aqua": case "yellow": case "purple": case "orange": return ["#f8f8f8", "#e8e8e8"];
	}
	return ["#eeeeee", "#eeeeb0"];
}

// stripAnnotation removes one trailing _[k], _[w], _[i] or _[j].
function stripAnnotation(name) {
	var n = name.length;
	if (n >= 4 && name[n - 4] === "_" && name[n - 3] === "[" && name[n - 1] === "]" && "kwij".includes(name[n - 2])) return name.slice(0, n - 4);
	return name;
}

// fitLabel cuts a name to chars characters, the last two "..".
function fitLabel(name, chars) {
	var cps = Array.from(name);
	if (cps.length <= chars) return name;
	return cps.slice(0, Math.max(chars - 2, 0)).join("") + "..";
}

function commas(s) {
	var neg = s[0] === "-";
	if (neg) s = s.slice(1);
	var out = "";
	for (var i = 0; i < s.length; i++) {
		if (i > 0 && (s.length - i) % 3 === 0) out += ",";
		out += s[i];
	}
	return (neg ? "-" : "") + out;
}

// ---------------------------------------------------------------------------
// The flame graph on a canvas. A graph is a list of frames (typed arrays):
// x and w in count units, depth, name (index in names), and per frame its
// colour; drawn bottom-up (flame) or top-down (icicle), zoomable to a
// frame, with search highlights. One FlameView per canvas.

var FRAME_H = 16, FONT = "12px Verdana, sans-serif", CHAR_W = 12 * 0.59, HIGHLIGHT = "rgb(230,0,230)";

// sizeCanvas sizes a canvas for its CSS size and the screen's pixel ratio
// (reallocating it only when that changed) and returns its context.
function sizeCanvas(c, cssW, cssH) {
	var dpr = window.devicePixelRatio || 1, w = Math.round(cssW * dpr), h = Math.round(cssH * dpr);
	if (c.width !== w || c.height !== h) {
		c.style.width = cssW + "px";
		c.style.height = cssH + "px";
		c.width = w;
		c.height = h;
	}
	var ctx = c.getContext("2d");
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	return ctx;
}

// A graph taller than its box (CSS max-height) is drawn a box high: the
// canvas stays at the top of the box (CSS sticky), a spacer after it gives
// the box the graph's height to scroll, and a scroll draws the rows then in
// view (top: the graph's y at the canvas's top). A canvas as tall as a deep
// graph (2,000 px and more) cost more to allocate and paint than its
// drawing.
function FlameView(canvas, tip, onHover) {
	this.canvas = canvas;
	this.tip = tip;
	this.onHover = onHover;
	this.g = null;
	this.zoom = -1;
	this.match = null;
	this.inverted = false;
	this.top = 0;
	this.pin = "";
	var self = this, box = canvas.parentNode;
	this.spacer = document.createElement("div");
	canvas.after(this.spacer);
	canvas.addEventListener("mousemove", function (e) { self.hover(e); });
	canvas.addEventListener("mouseleave", function () { self.hideTip(); });
	var pending = false;
	box.addEventListener("scroll", function () {
		if (pending || !self.g || Math.abs(box.scrollTop - self.top) < 0.5) return;
		pending = true;
		requestAnimationFrame(function () { pending = false; if (Math.abs(box.scrollTop - self.top) >= 0.5) self.draw(); });
	});
}

// set shows graph g: {n, x, w, depth, name, color (css strings), total,
// maxDepth, names, tipText(i, zoomW), bg}, its frames whose label matches
// re highlighted (none when re is null or left out; see setMatch).
FlameView.prototype.set = function (g, inverted, re) {
	this.g = g;
	this.inverted = !!inverted;
	this.zoom = -1;
	this.win = null;
	this.byDepth = null;
	this.match = re ? this.matches(re) : null;
	// a deep graph scrolls in its box: the base in view, the tops a
	// scroll up (the box scrolled to it in the next frame: setting the
	// scroll now would lay the page out at once)
	this.pin = this.inverted ? "top" : "base";
	this.draw();
	this.pin = "";
	var box = this.canvas.parentNode, self = this;
	requestAnimationFrame(function () { box.scrollTop = self.top; });
};

FlameView.prototype.index = function () {
	var g = this.g, rows = [];
	for (var d = 0; d <= g.maxDepth; d++) rows.push([]);
	for (var i = 0; i < g.n; i++) rows[g.depth[i]].push(i);
	for (d = 0; d < rows.length; d++) rows[d].sort(function (a, b) { return g.x[a] - g.x[b]; });
	this.byDepth = rows;
};

// range is the visible x range: the zoomed frame's, or the whole graph.
// A chart (a graph with time) zooms its time axis only: every lane stays,
// the window is a box's span or what the wheel and a drag made it.
FlameView.prototype.range = function () {
	var g = this.g;
	if (g && g.time) return this.win ? [this.win[0], this.win[1], 0] : [0, g.total, 0];
	if (this.zoom >= 0) return [g.x[this.zoom], g.w[this.zoom], g.depth[this.zoom]];
	return [0, g.total, 0];
};

FlameView.prototype.visible = function (i, r) {
	var g = this.g, x = g.x[i], w = g.w[i];
	if (g.depth[i] >= r[2]) return x + w > r[0] + r[1] * 1e-12 && x < r[0] + r[1] - r[1] * 1e-12 || w === 0 && x >= r[0] && x <= r[0] + r[1];
	return x <= r[0] && x + w >= r[0] + r[1]; // an ancestor of the zoomed frame
};

// boxHeight is the most a view's box shows (its CSS max-height), or
// Infinity.
function boxHeight(box) {
	var m = parseFloat(getComputedStyle(box).maxHeight);
	return m > 0 ? m : Infinity;
}

FlameView.prototype.draw = function () {
	var c = this.canvas, g = this.g, box = c.parentNode;
	var cssW = Math.max(box.clientWidth, 300), scrolled = box.scrollTop;
	var depth = g ? g.maxDepth + 1 : 1;
	var cssH = depth * FRAME_H + 8, viewH = Math.min(cssH, Math.max(Math.floor(boxHeight(box)), 4 * FRAME_H));
	// the graph's y at the canvas's top: the base or the top when set
	// pins it, else where the box is scrolled
	var top = this.pin === "base" ? cssH - viewH : this.pin === "top" ? 0 : scrolled;
	top = Math.max(0, Math.min(top, cssH - viewH));
	this.spacer.style.height = (cssH - viewH) + "px";
	var ctx = sizeCanvas(c, cssW, viewH);
	var bg = g && g.bg || ["#eeeeee", "#eeeeb0"];
	var grad = ctx.createLinearGradient(0, -top, 0, cssH - top);
	grad.addColorStop(0.05, bg[0]);
	grad.addColorStop(0.95, bg[1]);
	ctx.fillStyle = grad;
	ctx.fillRect(0, 0, cssW, viewH);
	this.cssW = cssW;
	this.cssH = cssH;
	this.top = top;
	if (!g || g.n === 0 || !(g.total > 0)) return;
	var r = this.range(), scale = (cssW - 20) / r[1];
	ctx.font = FONT;
	ctx.textBaseline = "middle";
	ctx.translate(0, -top);
	// the depths in view
	var dLo = this.inverted ? Math.floor((top - 4) / FRAME_H) : Math.floor((cssH - 4 - top - viewH) / FRAME_H);
	var dHi = dLo + Math.ceil(viewH / FRAME_H) + 1;
	for (var i = 0; i < g.n; i++) {
		var d = g.depth[i];
		if (d < dLo || d > dHi || !this.visible(i, r)) continue;
		var x0, x1, y = this.inverted ? d * FRAME_H + 4 : cssH - 4 - (d + 1) * FRAME_H;
		if (d === 0 && g.time) { chartAxis(ctx, g, r, scale, y, cssW); ctx.fillStyle = "#000"; continue; }
		if (d < r[2]) { x0 = 10; x1 = cssW - 10; } else { x0 = Math.max(10 + (g.x[i] - r[0]) * scale, 10); x1 = Math.min(10 + (g.x[i] + g.w[i] - r[0]) * scale, cssW - 10); }
		if (x1 - x0 < 0.3) continue;
		ctx.globalAlpha = d < r[2] ? 0.5 : 1;
		ctx.fillStyle = this.match && this.match[i] ? HIGHLIGHT : g.color[i];
		ctx.fillRect(x0, y + 0.5, Math.max(x1 - x0 - 0.5, 0.3), FRAME_H - 1);
		var chars = Math.floor((x1 - x0) / CHAR_W);
		if (chars >= 3) {
			ctx.fillStyle = "#000";
			ctx.fillText(fitLabel(g.label(i), chars), x0 + 3, y + FRAME_H / 2 + 0.5, x1 - x0 - 3);
		}
	}
	ctx.globalAlpha = 1;
};

// frameAt returns the frame under a point of the canvas (CSS pixels), or -1.
FlameView.prototype.frameAt = function (px, py) {
	var g = this.g;
	if (!g || !(g.total > 0)) return -1;
	if (!this.byDepth) this.index();
	var d = this.inverted ? Math.floor((py - 4) / FRAME_H) : Math.floor((this.cssH - 4 - py) / FRAME_H);
	if (d < 0 || d > g.maxDepth) return -1;
	var r = this.range(), scale = (this.cssW - 20) / r[1];
	var rows = this.byDepth[d];
	if (d < r[2]) {
		for (var k = 0; k < rows.length; k++) if (this.visible(rows[k], r)) return rows[k];
		return -1;
	}
	var x = r[0] + (px - 10) / scale;
	var lo = 0, hi = rows.length - 1, best = -1;
	while (lo <= hi) {
		var mid = (lo + hi) >> 1;
		if (g.x[rows[mid]] <= x) { best = mid; lo = mid + 1; } else hi = mid - 1;
	}
	if (best >= 0) {
		var i = rows[best];
		if (x < g.x[i] + g.w[i] && this.visible(i, r)) return i;
	}
	return -1;
};

// pos is a mouse event's point on the graph (CSS pixels; y from the
// graph's top, not the canvas's).
FlameView.prototype.pos = function (e) {
	var b = this.canvas.getBoundingClientRect();
	return [e.clientX - b.left, e.clientY - b.top + this.top];
};

FlameView.prototype.hover = function (e) {
	var p = this.pos(e), i = this.frameAt(p[0], p[1]);
	if (i < 0) { this.hideTip(); return; }
	var r = this.range();
	var text = this.g.tipText(i, this.zoom >= 0 ? r[1] : 0);
	this.tip.textContent = text;
	this.tip.hidden = false;
	var x = Math.min(p[0] + 14, Math.max(this.cssW - this.tip.offsetWidth - 4, 0));
	this.tip.style.left = x + "px";
	this.tip.style.top = (p[1] + 18) + "px";
	if (this.onHover) this.onHover(text);
};

FlameView.prototype.hideTip = function () {
	this.tip.hidden = true;
	if (this.onHover) this.onHover("");
};

// setMatch highlights the frames whose label matches re (null: none) and
// returns the matched share of the visible range, flamegraph's way: the
// widths of matched frames not inside another matched frame.
FlameView.prototype.setMatch = function (re) {
	var g = this.g;
	if (!re || !g) { this.match = null; this.draw(); return null; }
	this.match = this.matches(re);
	this.draw();
	return this.matched();
};

// matches returns which frames' labels match re.
FlameView.prototype.matches = function (re) {
	var g = this.g;
	if (!g) return null;
	var byName = new Map(), m = new Uint8Array(g.n);
	for (var i = 0; i < g.n; i++) {
		var k = g.matchKey ? g.matchKey(i) : g.name[i], v = byName.get(k);
		if (v === undefined) { re.lastIndex = 0; v = re.test(g.label(i)); byName.set(k, v); }
		if (v) m[i] = 1;
	}
	return m;
};

FlameView.prototype.matched = function () {
	var g = this.g, m = this.match;
	if (!m || !g || !(g.total > 0)) return null;
	var r = this.range(), hits = [];
	for (var i = 0; i < g.n; i++) if (m[i] && g.depth[i] >= r[2] && g.x[i] >= r[0] && g.x[i] + g.w[i] <= r[0] + r[1] + r[1] * 1e-9) hits.push(i);
	hits.sort(function (a, b) { return g.x[a] - g.x[b] || g.depth[a] - g.depth[b]; });
	var sum = 0, end = -Infinity;
	for (var k = 0; k < hits.length; k++) {
		var j = hits[k];
		if (g.x[j] >= end - r[1] * 1e-12) { sum += g.w[j]; end = g.x[j] + g.w[j]; }
	}
	return r[1] > 0 ? sum / r[1] : 0;
};

FlameView.prototype.zoomTo = function (i) {
	this.zoom = i;
	if (this.g && this.g.time) this.win = i >= 0 && this.g.w[i] > 0 ? [this.g.x[i], this.g.w[i]] : null;
	this.draw();
};

// setWindow shows [x, x+w) of a chart's time axis, within the chart.
FlameView.prototype.setWindow = function (x, w) {
	var g = this.g;
	w = Math.min(w, g.total);
	x = Math.min(Math.max(x, 0), g.total - w);
	this.win = w >= g.total ? null : [x, w];
	this.zoom = -1;
	this.draw();
};

// pan moves a chart's window by dx count units.
FlameView.prototype.pan = function (dx) {
	var r = this.range();
	this.setWindow(r[0] + dx, r[1]);
};
