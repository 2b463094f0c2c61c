// SPDX-License-Identifier: Apache-2.0
// Operations: counts, ingest and query rates (from two samples of
// /metrics), expiry and disk (GET /v1/stats), and a paste box that asks
// POST /v1/query which stored documents a text would match.
import { get, post } from './api.js';
import { h, on, replace, formatBytes, formatDuration, outletOf } from './dom.js';

const SAMPLE_MS = 2000;

// Prometheus text -> Map of "name{labels}" -> value, plus sums by name.
export function parseMetrics(text) {
  const values = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m) values.set(m[1] + (m[2] || ''), Number(m[3]));
  }
  return values;
}

// Sum of a counter over the series whose labels contain every `want` pair.
function sum(values, name, want = {}) {
  let total = 0;
  for (const [key, v] of values) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(want).every(([k, val]) => key.includes(`${k}="${val}"`))) total += v;
  }
  return total;
}

const titleOf = (meta) => (meta && typeof meta.title === 'string' ? meta.title : '');

function card(label, id) {
  const value = h('div', { class: 'card-value', id }, '–');
  return [h('div', { class: 'card' }, h('div', { class: 'card-label' }, label), value), value];
}

export function renderStatus(view) {
  let disposed = false;
  let timer = null;
  let prev = null;  // {t, added, queries}
  const cards = {};
  const grid = h('div', { class: 'cards' });
  for (const [key, label] of [
    ['documents', 'Documents'], ['clusters', 'Stories (clusters)'],
    ['ingest', 'Ingest rate'], ['query', 'Query rate'],
    ['ttl', 'Expiry (ttl)'], ['expired', 'Expired documents'],
    ['disk', 'Disk used'], ['memory', 'Memory (resident)'],
    ['queue', 'Write queue'], ['profile', 'Profile · threshold'],
  ]) {
    const [el, value] = card(label, `stat-${key}`);
    cards[key] = value;
    grid.append(el);
  }
  const paste = h('textarea', {
    id: 'paste', rows: 7, placeholder: 'Paste an article to see its near-duplicates…',
  });
  const ask = h('button', { type: 'submit', class: 'primary', id: 'paste-submit' }, 'Find near-duplicates');
  const answer = h('div', { id: 'paste-result', class: 'paste-result' });
  const form = h('form', { class: 'paste', id: 'paste-form' }, paste, h('div', {}, ask));
  replace(view,
    h('section', { class: 'toolbar' }, h('h1', {}, 'Status')),
    grid,
    h('h2', {}, 'Is this a reprint?'), form, answer);

  on(form, 'submit', async (e) => {
    e.preventDefault();
    ask.disabled = true;
    try {
      const r = await post('/v1/query', { text: paste.value });
      let metas = new Map();
      if (r.cluster) {  // outlets and titles from the cluster (a read that refreshes nothing)
        const c = await get(`/v1/clusters/${encodeURIComponent(r.cluster)}?limit=1000`).catch(() => null);
        if (c) metas = new Map(c.members.map((m) => [m.id, m.meta]));
      }
      replace(answer,
        h('p', { id: 'paste-verdict' }, r.cluster
          ? [`A reprint: it would join a story of ${r.cluster_size} article` +
              `${r.cluster_size === 1 ? '' : 's'}, `,
            h('a', { id: 'paste-story', href: `#/doc/${encodeURIComponent(r.cluster)}` },
              titleOf(metas.get(r.cluster)) || r.cluster), '.']
          : 'New: no stored document is near this text.'),
        r.matches.length ? h('ul', { class: 'matches' }, r.matches.map((m) => {
          const meta = metas.get(m.id);
          const label = outletOf({ meta }) || m.id;
          const title = titleOf(meta);
          return h('li', {},
            h('a', { href: `#/doc/${encodeURIComponent(m.id)}` }, label),
            title ? h('span', {}, ` ${title}`) : null,
            h('span', { class: 'muted' },
              ` · ${(100 * (m.verified ?? m.similarity)).toFixed(1)}% similar`));
        })) : null);
    } catch (err) {
      replace(answer, h('p', { class: 'note error' }, err.message));
    } finally {
      ask.disabled = false;
    }
  });

  async function sample() {
    try {
      const [stats, text] = await Promise.all([get('/v1/stats'), get('/metrics')]);
      if (disposed) return;
      const m = parseMetrics(text);
      const now = performance.now();
      const cur = {
        t: now,
        added: sum(m, 'neardup_added_total'),
        queries: sum(m, 'neardup_http_requests_total', { route: 'query' }),
      };
      cards.documents.textContent = stats.documents.toLocaleString();
      cards.clusters.textContent = stats.clusters.toLocaleString();
      if (prev) {
        const dt = (cur.t - prev.t) / 1000;
        cards.ingest.textContent = `${((cur.added - prev.added) / dt).toFixed(1)} docs/s`;
        cards.query.textContent = `${((cur.queries - prev.queries) / dt).toFixed(1)} queries/s`;
      }
      prev = cur;
      cards.ttl.textContent = formatDuration(stats.ttl_ms);
      cards.expired.textContent =
        `${stats.expired_documents.toLocaleString()} in ${stats.expired_trees.toLocaleString()} stories`;
      cards.disk.textContent = formatBytes(stats.disk_bytes);
      cards.memory.textContent = formatBytes(stats.resident_bytes);
      cards.queue.textContent = String(stats.queue_depth);
      cards.profile.textContent = [
        stats.profile,
        typeof stats.threshold === 'number' ? `≥ ${stats.threshold}` : null,
        typeof stats.max_distance === 'number' ? `k ${stats.max_distance}` : null,
      ].filter(Boolean).join(' · ');
    } catch (e) {
      if (!disposed) cards.documents.textContent = `error: ${e.message}`;
    }
    if (!disposed) timer = setTimeout(sample, SAMPLE_MS);
  }
  sample();
  return { dispose() { disposed = true; clearTimeout(timer); } };
}
