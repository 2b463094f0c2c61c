// SPDX-License-Identifier: Apache-2.0
// The list page: one row per story (cluster) with its kept article's title,
// snippet, outlet and time, and "N similar" (the other members). Sorted by
// size or recency in either direction; paged with the API's cursor; a
// filter box narrows by keywords in titles (GET /v1/clusters?q=). The
// address holds the state: #/?sort=size&order=desc&q=words&limit=20.
import { get } from './api.js';
import { h, on, replace, formatTime, outletOf } from './dom.js';

const PAGE = 20;

function listHash(sort, order, q, limit) {
  const p = new URLSearchParams({ sort, order });
  if (q) p.set('q', q);
  if (limit !== PAGE) p.set('limit', String(limit));
  return `#/?${p}`;
}

function storyRow(c, sort) {
  const rep = c.representative || {};
  const similar = Math.max(0, c.size - 1);
  const outlet = outletOf(rep);
  const when = sort === 'recent' ? c.time : rep.arrival;
  return h('li', { class: 'story', dataset: { cluster: c.id, size: c.size } },
    h('div', { class: 'similar', title: `a story of ${c.size} article${c.size === 1 ? '' : 's'}` },
      h('span', { class: 'similar-count' }, String(similar)),
      h('span', { class: 'similar-label' }, 'similar')),
    h('div', { class: 'story-body' },
      h('a', { class: 'story-title', href: `#/doc/${encodeURIComponent(rep.id)}` },
        rep.title || rep.id),
      rep.snippet ? h('p', { class: 'snippet' }, rep.snippet) : null,
      h('div', { class: 'byline' },
        outlet ? h('span', { class: 'outlet' }, outlet) : null,
        when ? h('time', {}, sort === 'recent' ? `active ${formatTime(when)}` : formatTime(when))
          : null)));
}

export function renderList(view, params) {
  let sort = params.get('sort') === 'recent' ? 'recent' : 'size';
  let order = params.get('order') === 'asc' ? 'asc' : 'desc';
  let q = (params.get('q') || '').trim();
  const limit = Math.min(100, Math.max(1, Number(params.get('limit')) || PAGE));
  let cursors = [null];  // cursor of each page shown so far
  let page = 0;
  let next = null;
  let disposed = false;
  let loading = 0;

  const filter = h('input', {
    type: 'search', id: 'filter', placeholder: 'Filter titles…', value: q,
    'aria-label': 'Filter by keywords in titles',
  });
  const sortSel = h('select', { id: 'sort', 'aria-label': 'Sort by' },
    h('option', { value: 'size', selected: sort === 'size' }, 'Most similar'),
    h('option', { value: 'recent', selected: sort === 'recent' }, 'Most recent'));
  const orderBtn = h('button', { type: 'button', id: 'order', class: 'toggle', dataset: { order } },
    order === 'desc' ? '↓ Descending' : '↑ Ascending');
  const list = h('ol', { class: 'stories', id: 'stories' });
  const note = h('p', { class: 'note', id: 'list-note' });
  const prev = h('button', { type: 'button', id: 'prev-page', disabled: true }, '← Previous');
  const more = h('button', { type: 'button', id: 'next-page', disabled: true }, 'Next →');
  const pageLabel = h('span', { class: 'page-label', id: 'page-label' });

  replace(view,
    h('section', { class: 'toolbar' },
      h('h1', {}, 'Stories'), filter, sortSel, orderBtn),
    note, list,
    h('nav', { class: 'pager' }, prev, pageLabel, more));

  // Changes stay on this page (the filter keeps its focus); the address
  // follows, so a reload or a shared link shows the same list.
  const go = () => {
    sort = sortSel.value;
    q = filter.value.trim();
    orderBtn.dataset.order = order;
    orderBtn.textContent = order === 'desc' ? '↓ Descending' : '↑ Ascending';
    history.replaceState(null, '', listHash(sort, order, q, limit));
    cursors = [null];
    page = 0;
    load();
  };
  on(sortSel, 'change', go);
  on(orderBtn, 'click', () => { order = order === 'desc' ? 'asc' : 'desc'; go(); });
  let typing = null;
  on(filter, 'input', () => {
    clearTimeout(typing);
    typing = setTimeout(go, 250);
  });
  on(prev, 'click', () => { if (page > 0) { --page; load(); } });
  on(more, 'click', () => {
    if (next === null) return;
    cursors[page + 1] = next;
    ++page;
    load();
  });

  async function load() {
    const ticket = ++loading;
    const p = new URLSearchParams({ sort, order, limit: String(limit) });
    if (cursors[page]) p.set('cursor', cursors[page]);
    if (q) p.set('q', q);
    let data;
    try {
      data = await get(`/v1/clusters?${p}`);
    } catch (e) {
      if (!disposed) note.textContent = `Could not load the stories: ${e.message}`;
      return;
    }
    if (disposed || ticket !== loading) return;
    next = data.next_cursor;
    replace(list, data.clusters.map((c) => storyRow(c, sort)));
    list.dataset.loaded = String(ticket);
    note.textContent = data.clusters.length ? ''
      : q ? `No story titles match “${q}” here.` : 'No stories yet: add documents with POST /v1/documents.';
    if (q && data.scanned !== undefined && data.clusters.length < limit && next !== null) {
      note.textContent = `Searched ${data.scanned} stories; more may match on the next page.`;
    }
    prev.disabled = page === 0;
    more.disabled = next === null;
    pageLabel.textContent = `Page ${page + 1}`;
  }

  load();
  return {
    refresh(stats, changed) { if (changed) load(); },
    dispose() { disposed = true; clearTimeout(typing); },
  };
}
