// SPDX-License-Identifier: Apache-2.0
// Building DOM nodes without HTML strings: every piece of data becomes a
// text node (textContent), never markup, so a document holding "<script>"
// shows those characters.

// h('a', {href: '#/x', class: 'title'}, 'text', child, ...) -> Element.
// Attributes named on* are refused: handlers are attached with `on`.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) throw new Error('use on() for event handlers');
    if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function on(el, type, fn, options) {
  el.addEventListener(type, fn, options);
  return el;
}

// Replaces the children of `el`.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// Only http(s) links from data become hrefs (no javascript: or data: URLs).
export function safeUrl(u) {
  return typeof u === 'string' && /^https?:\/\//i.test(u) ? u : null;
}

const pad = (n) => String(n).padStart(2, '0');

// "2024-11-21 14:05" in local time; '' for missing times.
export function formatTime(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatBytes(n) {
  if (typeof n !== 'number') return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; ++i; }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

export function formatDuration(ms) {
  if (!ms) return 'never';
  const units = [['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000]];
  for (const [u, size] of units) if (ms % size === 0) return `${ms / size}${u}`;
  return `${ms} ms`;
}

// The outlet of a document: meta.source, else its id.
export function outletOf(doc) {
  const s = doc && doc.meta && doc.meta.source;
  return typeof s === 'string' && s ? s : '';
}
