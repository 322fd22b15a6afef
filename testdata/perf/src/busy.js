// Profiling target for the node capture (run with --perf-basic-prof so
// V8 writes /tmp/perf-PID.map). Usage: node busy.js [seconds]
'use strict';

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

class Tokenizer {
  constructor(text) {
    this.text = text;
  }

  count() {
    const counts = new Map();
    for (const w of this.text.split(/\s+/)) {
      counts.set(w, (counts.get(w) || 0) + 1);
    }
    return counts.size;
  }
}

function buildText(n) {
  const words = [];
  for (let i = 0; i < n; i++) words.push('w' + ((i * 7919) % 1000));
  return words.join(' ');
}

const secs = Number(process.argv[2] || 2);
const end = Date.now() + secs * 1000;
let sink = 0;
const text = buildText(20000);
while (Date.now() < end) {
  sink += fib(22);
  sink += new Tokenizer(text).count();
  sink += JSON.stringify({ a: [1, 2, 3], s: sink }).length;
}
console.log(sink);
