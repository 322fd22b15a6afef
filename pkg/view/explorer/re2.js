// flamekit explorer: regular expressions with the meaning the command-line
// tools give them. Go twin: package regexp (regexp/syntax with its Perl
// flags, as regexp.Compile parses; MatchString: a match anywhere). The
// page takes exactly the syntax Go takes, or refuses an expression with
// Go's reason ("missing closing ): `(a`"); it matches in time linear in the
// input (a Thompson NFA run in lock step, as RE2 does: no backtracking, so
// ^(\w+)+!$ cannot freeze the tab). The cases of testdata/re2cases.json
// are run through Go's regexp and through this file in Chromium
// (re2_test.go).
//
// re2Compile(src) returns { test(s) } or throws an Error whose message is
// Go's (*syntax.Error).Error() without its "error parsing regexp: ".

var RE2_MAX_STATES = 1 << 21; // beyond this, "expression too large"

function RE2Error(code, expr) {
	var e = new Error(code + ": `" + expr + "`");
	e.code = code;
	return e;
}

// ---- case folding (unicode.SimpleFold's orbits) ----

var RE2_FOLD = null; // canonical code point -> the code points that fold to it

function re2Single(s, dflt) {
	var cp = s.codePointAt(0);
	return s.length === String.fromCodePoint(cp).length ? cp : dflt;
}

function re2Canon(c) {
	var s = String.fromCodePoint(c);
	var l = re2Single(s.toLowerCase(), c);
	var u = re2Single(String.fromCodePoint(l).toUpperCase(), l);
	return re2Single(String.fromCodePoint(u).toLowerCase(), u);
}

// re2Orbit returns the code points that match c under (?i), c included.
function re2Orbit(c) {
	if (!RE2_FOLD) {
		// the code points with case (one scan of a string of them all)
		RE2_FOLD = new Map();
		// (the BMP, and the planes' blocks with case: Deseret to Old
		// Hungarian, Warang Citi, Medefaidrin, Adlam)
		var extra = [[0x10400, 0x10FFF], [0x11800, 0x118FF], [0x16E40, 0x16E9F], [0x1E900, 0x1E95F]], len = 0x10000;
		extra.forEach(function (r) { len += 2 * (r[1] - r[0] + 1); });
		var units = new Uint16Array(len), u = 0;
		for (var x = 0; x < 0x10000; x++) units[u++] = x >= 0xD800 && x <= 0xDFFF ? 0 : x;
		extra.forEach(function (r) {
			for (var y = r[0] - 0x10000; y <= r[1] - 0x10000; y++) { units[u++] = 0xD800 + (y >> 10); units[u++] = 0xDC00 + (y & 1023); }
		});
		var all = [new TextDecoder("utf-16le").decode(units)];
		var cased = all.join("").match(/\p{Changes_When_Casemapped}/gu) || [];
		cased.forEach(function (ch) {
			var x = ch.codePointAt(0);
			if (x === 0x130 || x === 0x131) return; // Go folds neither dotted İ nor dotless ı
			var k = re2Canon(x), list = RE2_FOLD.get(k);
			if (!list) RE2_FOLD.set(k, list = []);
			list.push(x);
		});
	}
	if (c === 0x130 || c === 0x131) return [c];
	var o = RE2_FOLD.get(re2Canon(c));
	return o && o.includes(c) ? o : [c];
}

// ---- character classes ----

function re2Ranges(pairs) {
	return function (c) {
		for (var i = 0; i < pairs.length; i += 2) if (c >= pairs[i] && c <= pairs[i + 1]) return true;
		return false;
	};
}

var RE2_PERL = {
	d: [48, 57],
	s: [9, 10, 12, 13, 32, 32],
	w: [48, 57, 65, 90, 95, 95, 97, 122]
};

var RE2_POSIX = {
	alnum: [48, 57, 65, 90, 97, 122], alpha: [65, 90, 97, 122], ascii: [0, 127], blank: [9, 9, 32, 32],
	cntrl: [0, 31, 127, 127], digit: [48, 57], graph: [33, 126], lower: [97, 122], print: [32, 126],
	punct: [33, 47, 58, 64, 91, 96, 123, 126], space: [9, 13, 32, 32], upper: [65, 90],
	word: [48, 57, 65, 90, 95, 95, 97, 122], xdigit: [48, 57, 65, 70, 97, 102]
};

var RE2_CATEGORIES = ["C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn",
	"N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs"];

// re2Unicode returns the test of a Unicode class name as Go knows them
// (unicode.Categories, unicode.Scripts, Any), or null. Membership comes
// from the browser's Unicode tables, which may be a version apart.
function re2Unicode(name) {
	if (name === "Any") return function () { return true; };
	var src;
	if (RE2_CATEGORIES.includes(name)) src = "^\\p{" + name + "}$";
	else if (/^[A-Z][a-z]+(_[A-Z][a-z]+)*$/.test(name)) src = "^\\p{Script=" + name + "}$";
	else return null;
	var re;
	try { re = new RegExp(src, "u"); } catch (e) { return null; }
	if (name === "C") {
		// Go's C holds Cc, Cf, Co and Cs only (no unassigned code points)
		re = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}]$/u;
	}
	return function (c) { return re.test(String.fromCodePoint(c)); };
}

// re2Item makes one part of a class: a positive test, negated or not,
// folded as Go folds it (before the negation).
function re2Item(pos, neg, fold) {
	var t = pos;
	if (fold) t = function (c) { if (pos(c)) return true; var o = re2Orbit(c); for (var i = 0; i < o.length; i++) if (pos(o[i])) return true; return false; };
	return neg ? function (c) { return !t(c); } : t;
}

// ---- parser: syntax.Parse with syntax.Perl ----

function re2Parse(src) {
	var cps = Array.from(src), pos = 0;
	var flags = { i: false, m: false, s: false, U: false };
	function text(a, b) { return cps.slice(a, b === undefined ? pos : b).join(""); }
	function peek(k) { return cps[pos + (k || 0)]; }
	function isDigit(ch) { return ch !== undefined && ch >= "0" && ch <= "9"; }
	function hexv(ch) { if (ch === undefined) return -1; var v = parseInt(ch, 16); return /^[0-9a-fA-F]$/.test(ch) ? v : -1; }

	// stack of open groups: { alts: [[node...]...], flags, start }
	var stack = [], alts = [[]], depth = 0;
	var lastRepeat = -1; // where the last repetition operator began (-1: none just before)

	function push(node) { alts[alts.length - 1].push(node); lastRepeat = -1; }
	function lit(cp) { push({ op: "char", test: flags.i ? re2Lit(cp) : null, cp: cp }); }
	function re2Lit(cp) {
		var o = re2Orbit(cp);
		return o.length === 1 ? null : function (c) { return o.includes(c); };
	}
	function cls(items, neg) {
		var f = function (c) { for (var i = 0; i < items.length; i++) if (items[i](c)) return true; return false; };
		push({ op: "class", test: neg ? function (c) { return !f(c); } : f });
	}

	// parseEscape reads an escape at pos (a backslash) standing for one
	// character; returns its code point.
	function parseEscape() {
		var start = pos;
		pos++;
		var c = cps[pos++];
		if (c === undefined) throw RE2Error("trailing backslash at end of expression", "");
		var code = c.codePointAt(0);
		if (code < 128 && !/[0-9A-Za-z]/.test(c)) return code;
		if (c >= "1" && c <= "7") {
			if (!(peek() >= "0" && peek() <= "7")) throw RE2Error("invalid escape sequence", text(start));
		}
		if (c >= "0" && c <= "7") {
			var r = code - 48;
			for (var i = 1; i < 3 && peek() >= "0" && peek() <= "7"; i++) r = r * 8 + cps[pos++].charCodeAt(0) - 48;
			return r;
		}
		if (c === "x") {
			if (peek() === undefined) throw RE2Error("invalid escape sequence", text(start));
			var d = cps[pos++];
			if (d === "{") {
				var n = 0, v = 0;
				for (;;) {
					var h = cps[pos++];
					if (h === undefined) throw RE2Error("invalid escape sequence", text(start));
					if (h === "}") break;
					var x = hexv(h);
					if (x < 0) throw RE2Error("invalid escape sequence", text(start));
					v = v * 16 + x;
					if (v > 0x10FFFF) throw RE2Error("invalid escape sequence", text(start));
					n++;
				}
				if (n === 0) throw RE2Error("invalid escape sequence", text(start));
				return v;
			}
			var y = cps[pos++];
			if (hexv(d) < 0 || hexv(y) < 0) throw RE2Error("invalid escape sequence", text(start));
			return hexv(d) * 16 + hexv(y);
		}
		var simple = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 }[c];
		if (simple !== undefined) return simple;
		throw RE2Error("invalid escape sequence", text(start));
	}

	// parseGroupEscape reads \d \s \w (and capitals) or \p \P at pos;
	// returns a class item, or null when the escape is not one.
	function parseGroupEscape() {
		var c = peek(1);
		if (c && "dswDSW".includes(c)) {
			pos += 2;
			return re2Item(re2Ranges(RE2_PERL[c.toLowerCase()]), c !== c.toLowerCase(), flags.i);
		}
		if (c === "p" || c === "P") {
			var start = pos;
			pos += 2;
			var neg = c === "P", name;
			var n = cps[pos];
			if (n === undefined) throw RE2Error("invalid character class range", text(start));
			if (n === "{") {
				var end = cps.indexOf("}", pos);
				if (end < 0) { pos = cps.length; throw RE2Error("invalid character class range", text(start)); }
				name = text(pos + 1, end);
				pos = end + 1;
				if (name[0] === "^") { neg = !neg; name = name.slice(1); }
			} else {
				name = n;
				pos++;
			}
			var t = re2Unicode(name);
			if (!t) throw RE2Error("invalid character class range", text(start));
			return re2Item(t, neg, flags.i);
		}
		return null;
	}

	function parseClass() {
		var whole = pos;
		pos++; // [
		var neg = false;
		if (peek() === "^") { neg = true; pos++; }
		var items = [], ranges = [], first = true;
		while (peek() !== "]" || first) {
			first = false;
			if (peek() === undefined) throw RE2Error("missing closing ]", text(whole, cps.length));
			if (peek() === "[" && peek(1) === ":") {
				var close = -1;
				for (var k = pos + 2; k + 1 < cps.length; k++) if (cps[k] === ":" && cps[k + 1] === "]") { close = k; break; }
				if (close >= 0) {
					var nm = text(pos + 2, close), pneg = false;
					if (nm[0] === "^") { pneg = true; nm = nm.slice(1); }
					var pr = Object.prototype.hasOwnProperty.call(RE2_POSIX, nm) ? RE2_POSIX[nm] : null;
					if (!pr) throw RE2Error("invalid character class range", text(pos, close + 2));
					items.push(re2Item(re2Ranges(pr), pneg, flags.i));
					pos = close + 2;
					continue;
				}
			}
			if (peek() === "\\") {
				var g = parseGroupEscape();
				if (g) { items.push(g); continue; }
			}
			var rstart = pos, lo = classChar(whole), hi = lo;
			if (peek() === "-" && peek(1) !== "]" && peek(1) !== undefined) {
				pos++;
				hi = classChar(whole);
				if (hi < lo) throw RE2Error("invalid character class range", text(rstart));
			} else if (peek() === "-" && peek(1) === undefined) {
				pos++;
				throw RE2Error("missing closing ]", text(whole, cps.length));
			}
			ranges.push(lo, hi);
		}
		pos++; // ]
		if (ranges.length) items.push(re2Item(re2Ranges(ranges), false, flags.i));
		cls(items, neg);
	}

	function classChar(whole) {
		if (peek() === undefined) throw RE2Error("missing closing ]", text(whole, cps.length));
		if (peek() === "\\") return parseEscape();
		return cps[pos++].codePointAt(0);
	}

	// parseRepeat reads {n}, {n,} or {n,m} at pos: [min, max] (max -1:
	// none), or null (the brace is a literal) with pos unchanged.
	function parseRepeat() {
		var p = pos + 1, a = "", b = null;
		while (isDigit(cps[p])) a += cps[p++];
		if (a === "") return null;
		if (cps[p] === ",") {
			p++;
			b = "";
			while (isDigit(cps[p])) b += cps[p++];
		}
		if (cps[p] !== "}") return null;
		pos = p + 1;
		var min = a.length > 8 ? Infinity : +a, max = b === null ? min : b === "" ? -1 : b.length > 8 ? Infinity : +b;
		return [min, max];
	}

	function repeat(min, max, start) {
		var cur = alts[alts.length - 1];
		if (lastRepeat >= 0) {
			// Go: repetition of a repetition (a**, a+?*) is refused
			throw RE2Error("invalid nested repetition operator", text(lastRepeat));
		}
		if (!cur.length || cur[cur.length - 1].op === "bar") throw RE2Error("missing argument to repetition operator", text(start));
		if (min > 1000 || max > 1000 || max >= 0 && min > max) throw RE2Error("invalid repeat count", text(start));
		var node = { op: "repeat", min: min, max: max, sub: cur.pop() };
		cur.push(node);
		if ((min >= 2 || max >= 2) && !re2RepeatOK(node, 1000)) throw RE2Error("invalid repeat count", text(start));
		lastRepeat = start;
	}

	while (pos < cps.length) {
		var c = cps[pos], start = pos;
		switch (c) {
		case "(":
			if (peek(1) === "?") {
				var rest = text(pos, cps.length);
				if (rest.startsWith("(?P<") || rest.startsWith("(?<")) {
					var begin = rest[2] === "<" ? 3 : 4, end = cps.indexOf(">", pos);
					if (end < 0) throw RE2Error("invalid named capture", rest);
					var name = text(pos + begin, end);
					if (!/^[A-Za-z0-9_]+$/.test(name)) throw RE2Error("invalid named capture", text(pos, end + 1));
					pos = end + 1;
					openGroup(start);
					break;
				}
				// flags: (?flags) or (?flags:re)
				var nf = Object.assign({}, flags), sign = 1, saw = false, k = pos + 2, done = false;
				for (; k < cps.length && !done; k++) {
					var f = cps[k];
					if (f === "i" || f === "s" || f === "U") { nf[f] = sign > 0; saw = true; }
					else if (f === "m") { nf.m = sign > 0; saw = true; }
					else if (f === "-") {
						if (sign < 0) break;
						sign = -1;
						saw = false;
					} else if (f === ":" || f === ")") {
						if (sign < 0 && !saw) break;
						done = true;
					} else break;
				}
				if (!done) {
					var bad = k < cps.length ? k + 1 : k;
					throw RE2Error("invalid or unsupported Perl syntax", text(pos, bad));
				}
				pos = k;
				if (cps[k - 1] === ":") { openGroup(start); flags = nf; }
				else { flags = nf; lastRepeat = -1; }
				break;
			}
			pos++;
			openGroup(start);
			break;
		case "|":
			pos++;
			alts.push([]);
			lastRepeat = -1;
			break;
		case ")":
			if (!stack.length) throw RE2Error("unexpected )", src);
			pos++;
			var g = stack.pop();
			var node = { op: "group", alts: alts };
			alts = g.alts;
			flags = g.flags;
			depth--;
			push(node);
			break;
		case "^":
			pos++;
			push({ op: flags.m ? "bol" : "bot" });
			break;
		case "$":
			pos++;
			push({ op: flags.m ? "eol" : "eot" });
			break;
		case ".":
			pos++;
			push({ op: flags.s ? "any" : "anynl" });
			break;
		case "[":
			parseClass();
			break;
		case "*": case "+": case "?":
			pos++;
			var lazy = peek() === "?";
			if (lazy) pos++;
			repeat(c === "+" ? 1 : 0, c === "?" ? 1 : -1, start);
			break;
		case "{":
			var rp = parseRepeat();
			if (!rp) { pos++; lit(123); break; }
			if (peek() === "?") pos++;
			repeat(rp[0], rp[1], start);
			break;
		case "\\":
			var n = peek(1);
			if (n === "A") { pos += 2; push({ op: "bot" }); break; }
			if (n === "z") { pos += 2; push({ op: "eot" }); break; }
			if (n === "b") { pos += 2; push({ op: "wordb" }); break; }
			if (n === "B") { pos += 2; push({ op: "nwordb" }); break; }
			if (n === "C") throw RE2Error("invalid escape sequence", "\\C");
			if (n === "Q") {
				pos += 2;
				var e = pos;
				while (e < cps.length && !(cps[e] === "\\" && cps[e + 1] === "E")) e++;
				for (var q = pos; q < e; q++) lit(cps[q].codePointAt(0));
				pos = e < cps.length ? e + 2 : e;
				break;
			}
			var ge = parseGroupEscape();
			if (ge) { push({ op: "class", test: ge }); break; }
			lit(parseEscape());
			break;
		default:
			pos++;
			lit(c.codePointAt(0));
		}
	}
	if (stack.length) throw RE2Error("missing closing )", src);
	return { op: "group", alts: alts };

	function openGroup(start) {
		depth++;
		if (depth > 1000) throw RE2Error("expression nests too deeply", src);
		stack.push({ alts: alts, flags: flags, start: start });
		alts = [[]];
		lastRepeat = -1;
	}
}

// re2RepeatOK is syntax's repeatIsValid: nested repetitions may not count
// more than n in all.
function re2RepeatOK(node, n) {
	if (node.op === "repeat") {
		var m = node.max;
		if (m === 0) return true;
		if (m < 0) m = node.min;
		if (m > n) return false;
		if (m > 0) n = Math.floor(n / m);
		return re2RepeatOK(node.sub, n);
	}
	if (node.op === "group") return node.alts.every(function (a) { return a.every(function (x) { return re2RepeatOK(x, n); }); });
	return true;
}

// ---- compiler: a Thompson NFA ----
// Instructions: op (0 char test, 1 split, 2 jump, 3 assert, 4 match),
// x and y (targets), test (0), kind (3).

function re2Compile(src) {
	var ast = re2Parse(src);
	var op = [], x = [], y = [], arg = [];
	function emit(o, a) {
		if (op.length >= RE2_MAX_STATES) throw RE2Error("expression too large", src);
		op.push(o); x.push(-1); y.push(-1); arg.push(a === undefined ? null : a);
		return op.length - 1;
	}
	// a fragment: start state and the list of dangling exits [state, field]
	function patch(outs, to) { outs.forEach(function (o) { if (o[1] === 0) x[o[0]] = to; else y[o[0]] = to; }); }
	function empty() { var j = emit(2); return { start: j, outs: [[j, 0]] }; }
	function frag(node) {
		switch (node.op) {
		case "char": {
			var cp = node.cp, t = node.test || function (c) { return c === cp; };
			var s = emit(0, t);
			return { start: s, outs: [[s, 0]] };
		}
		case "class": { var s2 = emit(0, node.test); return { start: s2, outs: [[s2, 0]] }; }
		case "any": { var s3 = emit(0, function () { return true; }); return { start: s3, outs: [[s3, 0]] }; }
		case "anynl": { var s4 = emit(0, function (c) { return c !== 10; }); return { start: s4, outs: [[s4, 0]] }; }
		case "bot": case "eot": case "bol": case "eol": case "wordb": case "nwordb": {
			var a = emit(3, node.op);
			return { start: a, outs: [[a, 0]] };
		}
		case "group": {
			var fs = node.alts.map(function (seq) {
				if (!seq.length) return empty();
				var f = frag(seq[0]);
				for (var i = 1; i < seq.length; i++) { var g = frag(seq[i]); patch(f.outs, g.start); f = { start: f.start, outs: g.outs }; }
				return f;
			});
			var r = fs[fs.length - 1];
			for (var k = fs.length - 2; k >= 0; k--) {
				var sp = emit(1);
				x[sp] = fs[k].start; y[sp] = r.start;
				r = { start: sp, outs: fs[k].outs.concat(r.outs) };
			}
			return r;
		}
		case "repeat": {
			var min = node.min, max = node.max, parts = [];
			for (var m = 0; m < min; m++) parts.push(frag(node.sub));
			if (max < 0) {
				// x*: a split that loops
				var sub = frag(node.sub), l = emit(1);
				x[l] = sub.start;
				patch(sub.outs, l);
				parts.push({ start: l, outs: [[l, 1]] });
			} else if (max > min) {
				// (x(x(x)?)?)? for max-min optional copies, built inside out
				var tail = null;
				for (var o = 0; o < max - min; o++) {
					var sx = frag(node.sub), sq = emit(1);
					x[sq] = sx.start;
					if (tail) patch(sx.outs, tail.start);
					tail = { start: sq, outs: [[sq, 1]].concat(tail ? tail.outs : sx.outs) };
				}
				parts.push(tail);
			}
			if (!parts.length) return empty();
			var f2 = parts[0];
			for (var p = 1; p < parts.length; p++) { patch(f2.outs, parts[p].start); f2 = { start: f2.start, outs: parts[p].outs }; }
			return f2;
		}
		}
		throw new Error("re2: unknown node " + node.op);
	}
	var f = frag(ast), match = emit(4);
	patch(f.outs, match);
	return new RE2Prog(src, f.start, Int8Array.from(op), Int32Array.from(x), Int32Array.from(y), arg);
}

function RE2Prog(src, start, op, x, y, arg) {
	this.source = src;
	this.start = start;
	this.op = op; this.x = x; this.y = y; this.arg = arg;
	this.mark = new Int32Array(op.length);
	this.gen = 0;
	this.lazy = true;
	for (var i = 0; i < op.length; i++) if (op[i] === 3 && arg[i] !== "bot" && arg[i] !== "eot") this.lazy = false;
	this.dfa = null;
}

// The lazy DFA (as RE2's): for programs whose only assertions are \A
// and \z (^ and $ without (?m)), the sets of live states are made into
// DFA states as the input meets them, each char's step cached, so that a
// step is an array read. Other programs run the NFA in lock step (test).
RE2Prog.prototype.closure = function (kernel, bot, eot) {
	var list = [], stack = [], op = this.op, X = this.x, Y = this.y, arg = this.arg, mark = this.mark, gen = ++this.gen, match = false;
	for (var k = kernel.length - 1; k >= 0; k--) stack.push(kernel[k]);
	while (stack.length) {
		var s = stack.pop();
		if (s < 0 || mark[s] === gen) continue;
		mark[s] = gen;
		switch (op[s]) {
		case 0: list.push(s); break;
		case 4: match = true; break;
		case 2: stack.push(X[s]); break;
		case 1: stack.push(Y[s]); stack.push(X[s]); break;
		case 3: if (arg[s] === "bot" ? bot : eot) stack.push(X[s]); break;
		}
	}
	return { list: list, match: match };
};

RE2Prog.prototype.dstate = function (kernel, bot) {
	var c = this.closure(kernel, bot, false);
	return { kernel: kernel, bot: bot, list: c.list, match: c.match, end: null, next: new Int32Array(128).fill(-1), more: null };
};

RE2Prog.prototype.step = function (d, di, c) {
	var to = c < 128 ? d.next[c] : d.more ? d.more.get(c) : undefined;
	if (to !== undefined && to >= 0) return to;
	var set = new Set();
	for (var k = 0; k < d.list.length; k++) if (this.arg[d.list[k]](c)) set.add(this.x[d.list[k]]);
	set.add(this.start); // a match may start anywhere
	var kernel = Array.from(set).sort(function (a, b) { return a - b; }), key = kernel.join(",");
	if (this.dfa.length > 4000) {
		// the cache is full: start again (RE2 does the same)
		this.dfa = [this.dfa[0]];
		this.dmap = new Map();
		this.dfa[0].next.fill(-1);
		this.dfa[0].more = null;
		d = this.dfa[0];
		di = 0;
	}
	to = this.dmap.get(key);
	if (to === undefined) {
		to = this.dfa.length;
		this.dfa.push(this.dstate(kernel, false));
		this.dmap.set(key, to);
	}
	if (c < 128) d.next[c] = to; else (d.more || (d.more = new Map())).set(c, to);
	return to;
};

RE2Prog.prototype.testDFA = function (s) {
	if (!this.dfa) { this.dfa = [this.dstate([this.start], true)]; this.dmap = new Map(); }
	var dfa = this.dfa, di = 0, d = dfa[0];
	if (d.match) return true;
	for (var i = 0; i < s.length; i++) {
		var c = s.charCodeAt(i);
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) {
			var lo = s.charCodeAt(i + 1);
			if (lo >= 0xDC00 && lo <= 0xDFFF) { c = 0x10000 + (c - 0xD800) * 1024 + lo - 0xDC00; i++; }
		}
		var to = c < 128 ? d.next[c] : -1;
		if (to < 0) { to = this.step(d, di, c); dfa = this.dfa; }
		di = to;
		d = dfa[di];
		if (d.match) return true;
	}
	if (d.end === null) d.end = this.closure(d.kernel, d.bot, true).match;
	return d.end;
};

function re2Word(c) { return c >= 48 && c <= 57 || c >= 65 && c <= 90 || c >= 97 && c <= 122 || c === 95; }

// test reports whether the program matches anywhere in s, stepping every
// live state once per character (time: characters × states).
RE2Prog.prototype.test = function (s) {
	if (this.lazy) return this.testDFA(s);
	var cps = [];
	for (var ch of s) cps.push(ch.codePointAt(0));
	var n = cps.length, op = this.op, X = this.x, Y = this.y, arg = this.arg, mark = this.mark;
	var stack = [], self = this;
	// add adds the closure of state s0 at position i to list (the char
	// tests there); true when it reaches the match
	function add(list, s0, i) {
		var prev = i > 0 ? cps[i - 1] : -1, cur = i < n ? cps[i] : -1, gen = self.gen;
		stack.length = 0;
		stack.push(s0);
		while (stack.length) {
			var s = stack.pop();
			if (s < 0 || mark[s] === gen) continue;
			mark[s] = gen;
			switch (op[s]) {
			case 0: list.push(s); break;
			case 4: return true;
			case 2: stack.push(X[s]); break;
			case 1: stack.push(Y[s]); stack.push(X[s]); break;
			case 3: {
				var k = arg[s], ok;
				if (k === "bot") ok = i === 0;
				else if (k === "eot") ok = i === n;
				else if (k === "bol") ok = i === 0 || prev === 10;
				else if (k === "eol") ok = i === n || cur === 10;
				else {
					var b = (prev >= 0 && re2Word(prev)) !== (cur >= 0 && re2Word(cur));
					ok = k === "wordb" ? b : !b;
				}
				if (ok) stack.push(X[s]);
				break;
			}
			}
		}
		return false;
	};
	if (this.gen > 2e9) { mark.fill(0); this.gen = 0; }
	this.gen++;
	var clist = [];
	if (add(clist, this.start, 0)) return true;
	for (var i = 0; i < n; i++) {
		this.gen++;
		var nlist = [], c = cps[i];
		for (var k = 0; k < clist.length; k++) {
			var st = clist[k];
			if (arg[st](c) && add(nlist, X[st], i + 1)) return true;
		}
		// a match may start at every position
		if (add(nlist, this.start, i + 1)) return true;
		clist = nlist;
	}
	return false;
};
