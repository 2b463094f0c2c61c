// SPDX-License-Identifier: Apache-2.0
// Cost of the list page's API (GET /v1/clusters) with and without a title
// filter, against a real `neardup serve` holding N single-document stories.
// Run by hand:
//   node bench/console_list_bench.mjs build/neardup [N=20000]
// Prints the median latency of 21 calls per case. docs/console.md has the figures.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const [binary, nArg] = process.argv.slice(2);
const N = Number(nArg || 20000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'neardup_listbench_'));
const portFile = path.join(dir, 'port');
const child = spawn(binary, ['serve', '--data', path.join(dir, 'data'), '--listen', '127.0.0.1:0',
  '--port-file', portFile, '--ttl', '0', '--no-fsync'], { stdio: 'ignore' });
while (!fs.existsSync(portFile)) await sleep(50);
const base = `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;

let seed = 7;  // mulberry32
const rnd = () => {
  seed = (seed + 0x6D2B79F5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const han = (n) => Array.from({ length: n }, () => String.fromCodePoint(0x4e00 + Math.floor(rnd() * 3000))).join('');
try {
  for (let i = 0; i < N; i += 1000) {
    const docs = [];
    for (let j = i; j < Math.min(N, i + 1000); ++j) {
      docs.push({ id: `doc-${j}`, text: `${j % 100 === 0 ? '图书馆' : ''}${han(12)}\n${han(300)}`,
        meta: { source: `outlet-${j % 50}` } });
    }
    const r = await fetch(`${base}/v1/documents:batch`, { method: 'POST', body: JSON.stringify(docs) });
    if (!r.ok) throw new Error(`batch: ${r.status}`);
  }
  const time = async (p) => {
    const t = [];
    let body;
    for (let i = 0; i < 21; ++i) {
      const t0 = performance.now();
      body = await (await fetch(base + p)).json();
      t.push(performance.now() - t0);
    }
    t.sort((a, b) => a - b);
    return [t[10], body];
  };
  for (const [name, p] of [
    ['first page, 20 rows, by size', '/v1/clusters?sort=size&limit=20'],
    ['first page, 100 rows, by recency', '/v1/clusters?sort=recent&limit=100'],
    ['filter, 20 of 1% matching', `/v1/clusters?limit=20&q=${encodeURIComponent('图书馆')}`],
    ['filter, nothing matches', '/v1/clusters?limit=20&q=nomatch'],
  ]) {
    const [ms, body] = await time(p);
    console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  (rows ${body.clusters.length}` +
      `${body.scanned !== undefined ? `, scanned ${body.scanned}` : ''})`);
  }
} finally {
  child.kill('SIGTERM');
  await sleep(500);
  fs.rmSync(dir, { recursive: true, force: true });
}
