// SPDX-License-Identifier: Apache-2.0
// The detail page: an article (GET /v1/documents/{id}), the other outlets
// that ran it (GET /v1/documents/{id}/similar) each linking to its own
// detail page, and a side-by-side character diff against any of them
// (#/doc/<id>?vs=<other>), computed here by diff.js.
import { get, docPath } from './api.js';
import { diff, EQUAL, DELETE, INSERT } from './diff.js';
import { h, replace, formatTime, outletOf, safeUrl } from './dom.js';

const MEMBERS = 200;

const docHash = (id, vs) =>
  `#/doc/${encodeURIComponent(id)}${vs ? `?vs=${encodeURIComponent(vs)}` : ''}`;

function byline(doc) {
  const url = safeUrl(doc.meta && doc.meta.url);
  const outlet = outletOf(doc);
  return h('div', { class: 'byline' },
    outlet ? h('span', { class: 'outlet' }, outlet) : null,
    doc.arrival ? h('time', {}, formatTime(doc.arrival)) : null,
    h('span', { class: 'muted' }, `id ${doc.id}`),
    url ? h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, 'original') : null);
}

function memberRow(m, id, vs) {
  const outlet = outletOf(m) || m.id;
  // The verifier's similarity when the pipeline has one, else the signal's.
  const verified = typeof m.verified === 'number';
  const pct = `${(100 * (verified ? m.verified : m.similarity)).toFixed(1)}%`;
  const how = verified ? 'verified similarity of the texts'
    : typeof m.distance === 'number' ? `SimHash: ${m.distance} of 64 bits differ` : 'estimated similarity';
  return h('tr', { class: 'member', dataset: { id: m.id }, 'aria-current': m.id === vs ? 'true' : null },
    h('td', { class: 'outlet-cell' },
      h('a', { class: 'member-link', href: docHash(m.id) }, outlet)),
    h('td', { class: 'member-title' }, m.title || m.id),
    h('td', { class: 'nowrap' }, formatTime(m.arrival)),
    h('td', { class: 'num', title: how }, pct),
    h('td', {}, h('a', { class: 'compare button', href: docHash(id, m.id) }, 'Compare')));
}

// An equal run of both sides: characters that differ but fold to the same
// (Traditional and Simplified, full and half width) are marked, not edits.
function appendEqual(left, right, a, b) {
  if (a === b) {
    left.append(a);
    right.append(b);
    return;
  }
  const ca = [...a], cb = [...b];
  for (let i = 0; i < ca.length;) {
    const folded = ca[i] !== cb[i];
    let j = i;
    while (j < ca.length && (ca[j] !== cb[j]) === folded) ++j;
    const sa = ca.slice(i, j).join(''), sb = cb.slice(i, j).join('');
    if (folded) {
      const title = 'the same character to the engine (folded: Traditional/Simplified, width, case)';
      left.append(h('span', { class: 'folded', title }, sa));
      right.append(h('span', { class: 'folded', title }, sb));
    } else {
      left.append(sa);
      right.append(sb);
    }
    i = j;
  }
}

// Where the shorter text of a diff lies in the longer, when it does (the
// engine's containment rule: an excerpt, a story with a paragraph added):
// 80% of the shorter's characters are shared and it is under 80% of the
// longer's length. Returns { side: 'left' | 'right' (the longer), first,
// last (indices of its first and last shared op), start, end (code points
// of the longer), share (of the shorter) } or null.
function containedSpan(ops) {
  const len = [0, 0];  // code points of each side so far
  let equal = 0, first = -1, last = -1, start = [0, 0], end = [0, 0];
  ops.forEach(({ op, text }, i) => {
    const n = [...text].length;  // an equal run has as many on both sides
    if (op === EQUAL) {
      if (first < 0) first = i, start = [len[0], len[1]];
      last = i;
      equal += n;
      len[0] += n;
      len[1] += n;
      end = [len[0], len[1]];
    } else {
      len[op === DELETE ? 0 : 1] += n;
    }
  });
  const longer = len[0] >= len[1] ? 0 : 1, shorter = 1 - longer;
  if (first < 0 || equal < 0.8 * len[shorter] || len[shorter] >= 0.8 * len[longer]) return null;
  return { side: longer === 0 ? 'left' : 'right', first, last, start: start[longer],
           end: end[longer], total: len[longer], share: equal / len[shorter] };
}

// Both sides of a diff: the left shows deletions, the right insertions.
// Characters are compared as the engine folds them (doc.folded).
function diffView(a, b) {
  const started = performance.now();
  const result = diff(a.text, b.text, { keys: [a.folded, b.folded] });
  const ms = performance.now() - started;
  const left = h('div', { class: 'diff-text', id: 'diff-left' });
  const right = h('div', { class: 'diff-text', id: 'diff-right' });
  const span = containedSpan(result.ops);
  // Marks (no text of their own) where the contained text begins and ends.
  const mark = (id, title) => {
    const m = h('span', { class: 'excerpt-mark', id, title });
    (span.side === 'left' ? left : right).append(m);
  };
  let deleted = 0, inserted = 0;
  result.ops.forEach(({ op, text, textB }, i) => {
    if (span && i === span.first) mark('excerpt-start', 'the shorter text begins here');
    if (op === EQUAL) {
      appendEqual(left, right, text, textB);
    } else if (op === DELETE) {
      deleted += [...text].length;
      left.append(h('del', {}, text));
    } else if (op === INSERT) {
      inserted += [...text].length;
      right.append(h('ins', {}, text));
    }
    if (span && i === span.last) mark('excerpt-end', 'the shorter text ends here');
  });
  const [n, m] = result.lengths;
  const where = span ? (() => {
    const [small, large] = span.side === 'left' ? [b, a] : [a, b];
    const name = (d) => `“${outletOf(d) || d.id}”`;
    return h('p', { class: 'excerpt-note', id: 'diff-excerpt' },
      `${name(small)} lies in ${name(large)}: ${(100 * span.share).toFixed(1)}% of its ` +
      `characters are found there, in characters ${span.start + 1}–${span.end} of ` +
      `${span.total} (${(100 * (span.end - span.start) / span.total).toFixed(0)}% of the longer ` +
      'text), between the marks.');
  })() : null;
  const same = Math.max(n, m) ? 1 - result.distance / (n + m) : 1;
  return h('section', { class: 'diff', id: 'diff' },
    h('div', { class: 'diff-head' },
      h('h2', {}, 'What changed'),
      h('p', { class: 'muted', id: 'diff-summary' },
        `${deleted} characters only here, ${inserted} only there; ` +
        `${(100 * same).toFixed(1)}% of characters shared` +
        (result.exact ? '' : ' (texts too different for a minimal diff)') +
        ` · ${ms.toFixed(0)} ms`),
      h('a', { href: docHash(a.id), class: 'close-diff' }, 'Close')),
    where,
    h('div', { class: 'diff-cols' },
      h('div', { class: 'diff-col' },
        h('h3', {}, outletOf(a) || a.id, h('span', { class: 'muted' }, ` · ${a.id}`)), left),
      h('div', { class: 'diff-col' },
        h('h3', {}, h('a', { href: docHash(b.id) }, outletOf(b) || b.id),
          h('span', { class: 'muted' }, ` · ${b.id}`)), right)));
}

export function renderDetail(view, id, params) {
  const vs = params.get('vs');
  let disposed = false;
  replace(view, h('p', { class: 'note' }, 'Loading…'));

  async function load(quiet) {
    let doc, sim, other = null;
    try {
      // Comparing: each character as the engine folds it, too.
      const fold = vs ? '?folded=true' : '';
      [doc, sim, other] = await Promise.all([
        get(docPath(id) + fold),
        get(`${docPath(id)}/similar?limit=${MEMBERS}`),
        vs ? get(docPath(vs) + fold).catch((e) => ({ error: e })) : null,
      ]);
    } catch (e) {
      if (!disposed && !quiet) {
        replace(view, h('a', { href: '#/', class: 'back' }, '← All stories'),
          h('p', { class: 'note error', id: 'detail-error' },
            e.status === 404 ? `No document “${id}” (removed or expired).` : e.message));
      }
      return;
    }
    if (disposed) return;
    const members = sim.similar;
    const comparable = vs && other && !other.error &&
      typeof doc.text === 'string' && typeof other.text === 'string';
    const children = [
      h('a', { href: '#/', class: 'back' }, '← All stories'),
      h('article', { class: 'doc', id: 'doc', dataset: { id: doc.id } },
        h('h1', { id: 'doc-title' }, doc.title || doc.id),
        byline(doc),
        doc.cluster !== doc.id
          ? h('p', { class: 'muted' }, 'In the story first seen as ',
              h('a', { href: docHash(doc.cluster) }, doc.cluster), '.')
          : null,
        comparable ? null  // the diff below shows the text
          : typeof doc.text === 'string'
          ? h('div', { class: 'doc-text', id: 'doc-text' }, doc.text)
          : h('p', { class: 'note' },
              'The text is not stored: start the server with --store-text to keep it.')),
    ];
    if (vs) {
      if (other && other.error) {
        children.push(h('p', { class: 'note error' }, `Cannot compare with “${vs}”: ${other.error.message}`));
      } else if (!comparable) {
        children.push(h('p', { class: 'note' }, 'Comparing needs the texts (--store-text).'));
      } else {
        children.push(diffView(doc, other));
      }
    }
    children.push(h('section', { class: 'members' },
      h('h2', {}, members.length
        ? `Also ran this story (${members.length}${members.length === MEMBERS ? '+' : ''})`
        : 'No other outlet ran this story yet'),
      members.length ? h('table', { class: 'member-table', id: 'members' },
        h('thead', {}, h('tr', {},
          h('th', {}, 'Outlet'), h('th', {}, 'Headline'), h('th', {}, 'Time'),
          h('th', { class: 'num' }, 'Similarity'), h('th', {}, ''))),
        h('tbody', {}, members.map((m) => memberRow(m, id, vs)))) : null));
    const y = window.scrollY;
    replace(view, children);
    if (quiet) window.scrollTo(0, y);
    if (vs && !quiet) document.getElementById('diff')?.scrollIntoView({ block: 'start' });
  }

  load(false);
  return {
    refresh(stats, changed) { if (changed) load(true); },
    dispose() { disposed = true; },
  };
}
