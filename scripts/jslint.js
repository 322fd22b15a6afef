// jslint: the checks of the explorer's modules beyond their syntax (make
// jscheck runs it on the modules in the page's order). The modules are one
// script in the page, so a top-level name declared in two of them would
// silently replace the first: each top-level function and var is declared
// once. Every module starts with a comment saying what it holds.
"use strict";
const fs = require("fs");
const seen = new Map();
let bad = 0;
for (const file of process.argv.slice(2)) {
	const text = fs.readFileSync(file, "utf8");
	if (!text.startsWith("// flamekit explorer: ")) {
		console.error(`${file}: starts without its header comment ("// flamekit explorer: what it holds")`);
		bad++;
	}
	text.split("\n").forEach((line, i) => {
		const m = /^(?:async\s+)?function\s+([A-Za-z_$][\w$]*)|^var\s+(.*)$/.exec(line);
		if (!m) return;
		const names = m[1] ? [m[1]] : declared(m[2]);
		for (const name of names) {
			const where = `${file}:${i + 1}`;
			if (seen.has(name)) {
				console.error(`${where}: ${name} is declared again (first at ${seen.get(name)})`);
				bad++;
			} else seen.set(name, where);
		}
	});
}
if (bad) process.exit(1);

// declared returns the names a one-line var statement declares: the
// identifiers at its top level that start it or follow a comma.
function declared(rest) {
	const out = [];
	let depth = 0, quote = "", expect = true;
	for (let i = 0; i < rest.length; i++) {
		const c = rest[i];
		if (quote) {
			if (c === "\\") i++;
			else if (c === quote) quote = "";
			continue;
		}
		if (c === "/" && rest[i + 1] === "/") break;
		if (c === "\"" || c === "'" || c === "`") quote = c;
		else if ("([{".includes(c)) depth++;
		else if (")]}".includes(c)) depth--;
		else if (c === ";" && depth === 0) break;
		else if (c === "," && depth === 0) expect = true;
		else if (expect && /[A-Za-z_$]/.test(c)) {
			const id = /^[A-Za-z_$][\w$]*/.exec(rest.slice(i))[0];
			out.push(id);
			i += id.length - 1;
			expect = false;
		} else if (!/\s/.test(c)) expect = false;
	}
	return out;
}
console.log(`jslint: ${process.argv.length - 2} modules, ${seen.size} top-level names, each declared once`);
