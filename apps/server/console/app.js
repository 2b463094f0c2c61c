// SPDX-License-Identifier: Apache-2.0
// The neardup news desk: a single page over the JSON API. Hash routes:
//   #/?sort=size|recent&order=desc|asc&q=words   the list page (list.js)
//   #/doc/<id>?vs=<other id>                      the detail page (detail.js)
//   #/status                                      operations (status.js)
// Live refresh: /v1/stats is polled every few seconds while the tab is
// visible; when documents were added, removed or expired, the view reloads.
import { get, setTokenPrompt, token, forgetToken } from './api.js';
import { on } from './dom.js';
import { renderList } from './list.js';
import { renderDetail } from './detail.js';
import { renderStatus } from './status.js';

const POLL_MS = 3000;
const view = document.getElementById('view');
let current = null;  // {refresh(stats), dispose()} of the shown page
let lastStamp = null;
let lastStats = null;

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  return { path, params };
}

function route() {
  if (current && current.dispose) current.dispose();
  const { path, params } = parseHash();
  document.getElementById('nav-stories').classList.toggle('active', !path.startsWith('/status'));
  document.getElementById('nav-status').classList.toggle('active', path.startsWith('/status'));
  window.scrollTo(0, 0);
  if (path.startsWith('/doc/')) {
    current = renderDetail(view, decodeURIComponent(path.slice(5)), params);
  } else if (path === '/status') {
    current = renderStatus(view, () => lastStats);
  } else {
    current = renderList(view, params);
  }
}

// The token prompt: resolves with what the person typed.
function promptToken(wasWrong) {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  document.getElementById('token-message').textContent = wasWrong
    ? 'That token was not accepted. Enter the token from the server\'s --token-file.'
    : 'This server requires a token. It is kept in this tab only (sessionStorage).';
  input.value = '';
  return new Promise((resolve) => {
    const form = document.getElementById('token-form');
    const submit = (e) => {
      e.preventDefault();
      form.removeEventListener('submit', submit);
      dialog.close();
      document.getElementById('forget-token').hidden = false;
      resolve(input.value.trim());
    };
    form.addEventListener('submit', submit);
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}

function setLive(state, text) {
  const live = document.getElementById('live');
  live.dataset.state = state;
  document.getElementById('live-text').textContent = text;
}

async function poll() {
  if (document.visibilityState === 'visible') {
    try {
      const s = await get('/v1/stats');
      lastStats = s;
      const stamp = `${s.added}|${s.removed}|${s.expired_documents}`;
      const changed = lastStamp !== null && stamp !== lastStamp;
      lastStamp = stamp;
      setLive('ok', `live · ${s.documents.toLocaleString()} docs`);
      if (current && current.refresh) current.refresh(s, changed);
    } catch (e) {
      setLive('error', e.status ? `error ${e.status}` : 'offline');
    }
  }
  setTimeout(poll, POLL_MS);
}

setTokenPrompt(promptToken);
// Escape would close the prompt and leave every call waiting: keep it open.
on(document.getElementById('token-dialog'), 'cancel', (e) => e.preventDefault());
document.getElementById('forget-token').hidden = !token();
on(document.getElementById('forget-token'), 'click', () => {
  forgetToken();
  location.reload();
});
on(window, 'hashchange', route);
route();
poll();
