// SPDX-License-Identifier: Apache-2.0
// Speed of the console's character diff (apps/server/console/diff.js) on
// 10 KB articles, in node (V8, as in Chromium). Run by hand:
//   node bench/console_diff_bench.mjs
// Prints the median of 15 runs per case. docs/console.md has the figures.
import { diff } from '../apps/server/console/diff.js';

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(42);
// Chinese-like text: 3000 common characters, punctuation every ~20.
const han = (n) => Array.from({ length: n }, (_, i) =>
  (i % 20 === 19 ? '，' : String.fromCodePoint(0x4e00 + Math.floor(rnd() * 3000)))).join('');
const edit = (s, edits) => {
  const x = [...s];
  for (let i = 0; i < edits; ++i) {
    const at = Math.floor(rnd() * x.length);
    x.splice(at, 1 + Math.floor(rnd() * 4), ...han(1 + Math.floor(rnd() * 4)));
  }
  return x.join('');
};

const body = han(3400);  // 3400 CJK characters = 10.2 KB of UTF-8
const cases = [
  ['reprint: new headline + ad line', `标题一\n${body}`, `另一个不同的标题\n${body}\n关注我们的客户端，获取更多资讯。`],
  ['10 KB, 20 small edits', body, edit(body, 20)],
  ['10 KB, 200 small edits', body, edit(body, 200)],
  ['10 KB, 1000 small edits', body, edit(body, 1000)],
  ['two unrelated 10 KB texts', body, han(3400)],
];
for (const [name, a, b] of cases) {
  const times = [];
  let r;
  for (let i = 0; i < 15; ++i) {
    const t0 = performance.now();
    r = diff(a, b);
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  console.log(`${name.padEnd(34)} ${times[7].toFixed(1).padStart(7)} ms  ` +
    `(distance ${r.distance}, ${r.ops.length} runs, exact ${r.exact})`);
}
