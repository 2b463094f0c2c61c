// SPDX-License-Identifier: Apache-2.0
// The console's calls to the JSON API (docs/api.md). With --token-file the
// server answers 401; the console then asks for the token once, keeps it in
// sessionStorage (this tab only, never a cookie) and sends it as a bearer
// header with every call.

const TOKEN_KEY = 'neardup.token';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let askToken = null;  // async () => token string, set by the app
let pendingAsk = null;

export function setTokenPrompt(fn) { askToken = fn; }
export function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
export function forgetToken() { sessionStorage.removeItem(TOKEN_KEY); }

async function send(method, path, body) {
  const headers = {};
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store', credentials: 'omit',
  });
}

// One call; on 401 asks for a token (one prompt for concurrent calls) and
// retries. Resolves to the parsed body (JSON, or text for /metrics).
export async function call(method, path, body) {
  for (let attempt = 0; ; ++attempt) {
    const res = await send(method, path, body);
    if (res.status === 401 && askToken && attempt < 5) {
      if (!pendingAsk) {
        pendingAsk = askToken(token() !== '').finally(() => { pendingAsk = null; });
      }
      sessionStorage.setItem(TOKEN_KEY, await pendingAsk);
      continue;
    }
    const type = res.headers.get('Content-Type') || '';
    const data = type.includes('json') ? await res.json() : await res.text();
    if (!res.ok) {
      const e = data && data.error ? data.error : { code: String(res.status), message: res.statusText };
      throw new ApiError(res.status, e.code, e.message);
    }
    return data;
  }
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body);
export const docPath = (id) => `/v1/documents/${encodeURIComponent(id)}`;
