// SPDX-License-Identifier: Apache-2.0
// The console's character diff (apps/server/console/diff.js) under node:
// the edit script spells both texts, is minimal (checked against an LCS
// table on small random strings), treats code points as units, and stays
// correct when the work budget cuts the search short; with keys (the
// engine's fold of each character) it compares the keys and spells the
// texts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diff, EQUAL, DELETE, INSERT } from '../../apps/server/console/diff.js';

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Text a (skip INSERT) or text b (skip DELETE: equal runs spell b's side).
const spell = (ops, skip) => ops.filter((o) => o.op !== skip)
  .map((o) => (o.op === EQUAL && skip === DELETE ? o.textB : o.text)).join('');

function lcsLength(a, b) {
  a = [...a];
  b = [...b];
  let prev = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; ++i) {
    const cur = new Int32Array(b.length + 1);
    for (let j = 1; j <= b.length; ++j) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    }
    prev = cur;
  }
  return prev[b.length];
}

describe('diff', () => {
  const rnd = mulberry32(20241121);
  const alphabet = ['a', 'b', 'c', '的', '是', '😀', '\n'];
  const word = (n) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');

  it('spells both texts and is minimal without cleanup', () => {
    for (let t = 0; t < 2000; ++t) {
      const a = word(Math.floor(rnd() * 40));
      const b = rnd() < 0.5 ? word(Math.floor(rnd() * 40))
        : [...a].slice(0, 6).join('') + word(3) + [...a].slice(9).join('');
      const r = diff(a, b, { cleanup: false });
      assert.equal(spell(r.ops, INSERT), a);
      assert.equal(spell(r.ops, DELETE), b);
      assert.ok(r.exact);
      assert.equal(r.distance, [...a].length + [...b].length - 2 * lcsLength(a, b), `${a} / ${b}`);
      const c = diff(a, b);  // cleanup keeps both texts
      assert.equal(spell(c.ops, INSERT), a);
      assert.equal(spell(c.ops, DELETE), b);
      assert.ok(c.distance >= r.distance);
    }
  });

  it('marks a changed headline, changed characters and an ad line in a long article', () => {
    const body = Array.from({ length: 300 }, (_, i) => `第${i}段新闻内容，记者从现场发回报道。`).join('');
    const a = `滨江新图书馆今日开放\n${body}`;
    const b = `百万册藏书！滨江新馆迎客\n${body.replace('第150段', '第一百五十段')}\n下载客户端，更多资讯抢先看。`;
    const r = diff(a, b);
    assert.ok(r.exact);
    assert.equal(spell(r.ops, INSERT), a);
    assert.equal(spell(r.ops, DELETE), b);
    const inserted = r.ops.filter((o) => o.op === INSERT).map((o) => o.text);
    assert.ok(inserted.some((t) => t.includes('下载客户端，更多资讯抢先看')), inserted.join('|'));
    assert.ok(inserted.some((t) => t.includes('百万册藏书！')), inserted.join('|'));
    assert.ok(inserted.some((t) => t.includes('一百五十')));
    assert.ok(r.distance < 60, String(r.distance));
    // Runs alternate: no two neighbours of one kind, edits as DELETE then INSERT.
    for (let i = 1; i < r.ops.length; ++i) {
      assert.ok(r.ops[i].op !== r.ops[i - 1].op);
      assert.ok(!(r.ops[i - 1].op === INSERT && r.ops[i].op === DELETE));
    }
  });

  it('stays correct when the budget runs out', () => {
    const a = word(3000);
    const b = word(3000);
    const r = diff(a, b, { budget: 10000 });
    assert.equal(r.exact, false);
    assert.equal(spell(r.ops, INSERT), a);
    assert.equal(spell(r.ops, DELETE), b);
  });

  it('handles empty and identical texts', () => {
    assert.deepEqual(diff('', '').ops, []);
    assert.deepEqual(diff('同一篇', '同一篇').ops, [{ op: EQUAL, text: '同一篇', textB: '同一篇' }]);
    assert.deepEqual(diff('', '新').ops, [{ op: INSERT, text: '新' }]);
    assert.deepEqual(diff('旧', '').ops, [{ op: DELETE, text: '旧' }]);
    assert.equal(diff('😀a', '😀b').distance, 2);  // one emoji is one unit
  });

  it('compares keys: a Traditional reprint is equal where it folds equal', () => {
    const simplified = '国家统计局发布数据，十月份居民消费价格上涨。';
    const traditional = '國家統計局發佈數據，十月份居民消費價格上漲。';
    const raw = diff(simplified, traditional);
    assert.ok(raw.distance > 10, String(raw.distance));  // a wall of edits
    // The server's fold maps each character; here 佈 is left unfolded.
    const fold = traditional.replace(/國/g, '国').replace(/統/g, '统').replace(/計/g, '计')
      .replace(/發/g, '发').replace(/數/g, '数').replace(/據/g, '据').replace(/費/g, '费')
      .replace(/價/g, '价').replace(/漲/g, '涨');
    const r = diff(simplified, traditional, { keys: [simplified, fold] });
    assert.equal(spell(r.ops, INSERT), simplified);
    assert.equal(spell(r.ops, DELETE), traditional);
    assert.equal(r.distance, 2);  // 布 / 佈 only
    const equal = r.ops.filter((o) => o.op === EQUAL);
    assert.ok(equal.some((o) => o.text !== o.textB));  // folded-equal, shown as equal
    // Keys that do not match the text's length are ignored.
    assert.equal(diff(simplified, traditional, { keys: [simplified, 'x'] }).distance, raw.distance);
  });

  it('spells both texts with random keys', () => {
    for (let t = 0; t < 500; ++t) {
      const a = word(Math.floor(rnd() * 30));
      const b = word(Math.floor(rnd() * 30));
      const fold = (s) => [...s].map((c) => (c === 'b' ? 'a' : c)).join('');
      const r = diff(a, b, { keys: [fold(a), fold(b)] });
      assert.equal(spell(r.ops, INSERT), a);
      assert.equal(spell(r.ops, DELETE), b);
      for (const o of r.ops) if (o.op === EQUAL) assert.equal(fold(o.text), fold(o.textB));
    }
  });
});
