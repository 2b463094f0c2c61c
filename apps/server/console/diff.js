// SPDX-License-Identifier: Apache-2.0
// Character-level diff of two texts for the console's side-by-side view.
//
// Method: Myers' O((N+M)D) shortest edit script ("An O(ND) Difference
// Algorithm and Its Variations", Algorithmica 1986), in its linear-space
// form: find the middle snake of the optimal path by searching from both
// ends at once, then recurse on the two halves. Common prefixes and
// suffixes are stripped first. Characters are Unicode code points, so a CJK
// character or an emoji is one unit.
//
// Cost: O((N+M)D) time and O(N+M) memory for N, M code points and D edits.
// Two 10 KB reprints that differ in a headline and an ad line take a few
// milliseconds (docs/console.md). A work budget bounds unrelated texts: a
// sub-problem that exceeds it is reported as deleted and inserted whole, so
// the result is still a correct (if not minimal) edit script.
//
// A cleanup pass then turns short equalities squeezed between larger edits
// into edits (the rule of semantic cleanup in Fraser's diff-match-patch
// description), so "ABCxDEF" vs "abcxdef" shows one replaced run rather than
// confetti.
//
// Characters may be compared by keys instead of themselves: the engine's
// fold of each character (GET /v1/documents/{id}?folded, one code point per
// code point of the text), so a Traditional reprint of a Simplified story is
// equal where the engine sees it equal. An equal run then has a text on each
// side, which may differ character by character.

// Op kinds.
export const EQUAL = 0;
export const DELETE = -1;
export const INSERT = 1;

const DEFAULT_BUDGET = 20_000_000;  // diagonal steps, about 0.1-0.3 s

function codePoints(s) {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0);
  return out.subarray(0, n);
}

function fromCodePoints(arr, lo, hi) {
  let s = '';
  for (let i = lo; i < hi; i += 4096) {
    s += String.fromCodePoint(...arr.subarray(i, Math.min(hi, i + 4096)));
  }
  return s;
}

// Compares a[i] with b[j]: code points, or their keys.
class Differ {
  constructor(a, b, budget) {
    this.a = a;
    this.b = b;
    this.budget = budget;
    this.exact = true;  // false once a sub-problem went over the budget
    this.ops = [];      // [kind, aLo, aHi] for DELETE, [INSERT, bLo, bHi], [EQUAL, aLo, aHi, bLo]
    const size = 2 * (a.length + b.length) + 4;
    this.vf = new Int32Array(size);
    this.vb = new Int32Array(size);
  }

  push(kind, lo, hi, bLo) {
    if (hi > lo) this.ops.push([kind, lo, hi, bLo]);
  }

  // Diffs a[aLo, aHi) against b[bLo, bHi), appending ops in order.
  run(aLo, aHi, bLo, bHi) {
    const { a, b } = this;
    const start = aLo, bStart = bLo;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) { ++aLo; ++bLo; }
    this.push(EQUAL, start, aLo, bStart);
    let suffix = 0;
    while (aLo < aHi - suffix && bLo < bHi - suffix &&
           a[aHi - 1 - suffix] === b[bHi - 1 - suffix]) {
      ++suffix;
    }
    aHi -= suffix;
    bHi -= suffix;
    if (aLo === aHi || bLo === bHi) {
      this.push(DELETE, aLo, aHi);
      this.push(INSERT, bLo, bHi);
    } else {
      const snake = this.middleSnake(aLo, aHi, bLo, bHi);
      if (snake === null) {
        this.exact = false;
        this.push(DELETE, aLo, aHi);
        this.push(INSERT, bLo, bHi);
      } else {
        const [x, y, u, v] = snake;
        this.run(aLo, x, bLo, y);
        this.push(EQUAL, x, u, y);
        this.run(u, aHi, v, bHi);
      }
    }
    this.push(EQUAL, aHi, aHi + suffix, bHi);
  }

  // The middle snake [x, y, u, v] (absolute indices: a[x,u) equals b[y,v))
  // of an optimal path through the box, or null over the budget. The box
  // has no common first or last element, so D >= 2 and both halves are
  // strictly smaller problems.
  middleSnake(aLo, aHi, bLo, bHi) {
    const { a, b, vf, vb } = this;
    const n = aHi - aLo;
    const m = bHi - bLo;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const maxD = (n + m + 1) >> 1;
    const off = maxD + 1;
    vf[off + 1] = 0;
    vb[off + 1] = 0;
    for (let d = 0; d <= maxD; ++d) {
      this.budget -= 2 * d + 1;
      if (this.budget < 0) return null;
      // Forward: vf[k] is the furthest x on diagonal k = x - y.
      for (let k = -d; k <= d; k += 2) {
        let x = (k === -d || (k !== d && vf[off + k - 1] < vf[off + k + 1]))
            ? vf[off + k + 1] : vf[off + k - 1] + 1;
        let y = x - k;
        const x0 = x, y0 = y;
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) { ++x; ++y; }
        vf[off + k] = x;
        const kb = delta - k;  // the same diagonal, seen from the end
        if (odd && kb >= -(d - 1) && kb <= d - 1 && x + vb[off + kb] >= n) {
          return [aLo + x0, bLo + y0, aLo + x, bLo + y];
        }
      }
      // Backward: vb[k] is the furthest x' from the end on k = x' - y'.
      this.budget -= 2 * d + 1;
      for (let k = -d; k <= d; k += 2) {
        let x = (k === -d || (k !== d && vb[off + k - 1] < vb[off + k + 1]))
            ? vb[off + k + 1] : vb[off + k - 1] + 1;
        let y = x - k;
        const x0 = x, y0 = y;
        while (x < n && y < m && a[aHi - 1 - x] === b[bHi - 1 - y]) { ++x; ++y; }
        vb[off + k] = x;
        const kf = delta - k;
        if (!odd && kf >= -d && kf <= d && x + vf[off + kf] >= n) {
          return [aHi - x, bHi - y, aHi - x0, bHi - y0];
        }
      }
    }
    return null;  // unreachable: the paths meet by d = maxD
  }
}

// Turns an equality into edits when it is no longer than the edits on
// either side of it, then regroups each run of edits as one deletion
// followed by one insertion.
function cleanup(ops) {
  // ops: [kind, text, len in code points, the other side's text (EQUAL)].
  let changed = true;
  while (changed) {
    changed = false;
    const out = [];
    let i = 0;
    const editSpan = (from, step) => {
      let del = 0, ins = 0;
      for (let j = from; j >= 0 && j < ops.length && ops[j][0] !== EQUAL; j += step) {
        if (ops[j][0] === DELETE) del += ops[j][2]; else ins += ops[j][2];
      }
      return Math.max(del, ins);
    };
    for (; i < ops.length; ++i) {
      const op = ops[i];
      if (op[0] === EQUAL && i > 0 && i < ops.length - 1) {
        const before = editSpan(i - 1, -1);
        const after = editSpan(i + 1, 1);
        if (op[2] <= before && op[2] <= after) {
          out.push([DELETE, op[1], op[2]], [INSERT, op[3], op[2]]);
          changed = true;
          out.push(...ops.slice(i + 1));
          break;
        }
      }
      out.push(op);
    }
    ops = regroup(out);
  }
  return ops;
}

// Merges adjacent ops: equal runs joined, each run of edits as DELETE then INSERT.
function regroup(ops) {
  const out = [];
  let del = '', delLen = 0, ins = '', insLen = 0;
  const flush = () => {
    if (delLen) out.push([DELETE, del, delLen]);
    if (insLen) out.push([INSERT, ins, insLen]);
    del = ''; ins = ''; delLen = 0; insLen = 0;
  };
  for (const op of ops) {
    if (op[0] === DELETE) { del += op[1]; delLen += op[2]; continue; }
    if (op[0] === INSERT) { ins += op[1]; insLen += op[2]; continue; }
    flush();
    const last = out[out.length - 1];
    if (last && last[0] === EQUAL) { last[1] += op[1]; last[2] += op[2]; last[3] += op[3]; }
    else out.push([EQUAL, op[1], op[2], op[3]]);
  }
  flush();
  return out;
}

// The code points of `key` when it has one per code point of `text`, else
// those of the text itself.
function keysOf(text, key) {
  if (typeof key !== 'string') return text;
  const k = codePoints(key);
  return k.length === text.length ? k : text;
}

// diff(a, b) -> {ops: [{op: EQUAL|DELETE|INSERT, text, textB}], exact, distance}
// where the EQUAL and DELETE texts spell `a`, the EQUAL textB and INSERT
// texts spell `b` (an EQUAL's text and textB are equal unless keys say
// so), `distance` counts the deleted plus inserted code points, and `exact`
// is false when the budget cut the search short (then distance may exceed
// the minimum). Options: {cleanup: true, budget, keys: [keyA, keyB]}.
export function diff(a, b, options = {}) {
  const A = codePoints(a);
  const B = codePoints(b);
  const [keyA, keyB] = options.keys ?? [];
  const d = new Differ(keysOf(A, keyA), keysOf(B, keyB), options.budget ?? DEFAULT_BUDGET);
  d.run(0, A.length, 0, B.length);
  let ops = d.ops.map(([kind, lo, hi, bLo]) => [kind,
    fromCodePoints(kind === INSERT ? B : A, lo, hi), hi - lo,
    kind === EQUAL ? fromCodePoints(B, bLo, bLo + hi - lo) : '']);
  ops = regroup(ops);
  if (options.cleanup !== false) ops = cleanup(ops);
  let distance = 0;
  for (const op of ops) if (op[0] !== EQUAL) distance += op[2];
  return {
    ops: ops.map(([op, text, , textB]) => (op === EQUAL ? { op, text, textB } : { op, text })),
    exact: d.exact,
    distance,
    lengths: [A.length, B.length],
  };
}
