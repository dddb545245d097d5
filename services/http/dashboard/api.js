// api.js — calls to keynode serve's JSON API (services/http/API.md) and the token the writes need.
// The token lives in localStorage under "keynode.token" and is sent as "Authorization: Bearer" on
// every request when set (reads need it too unless serve listens on loopback only). Errors come
// back as ApiError carrying the API's {"error","detail"}.

const KEY = 'keynode.token';

export function getToken() {
  try { return localStorage.getItem(KEY) || ''; } catch { return ''; }
}

export function setToken(t) {
  try {
    if (t) localStorage.setItem(KEY, t); else localStorage.removeItem(KEY);
  } catch { /* storage disabled: the token lasts for this page only */ }
}

export class ApiError extends Error {
  constructor(status, message, detail) {
    super(message);
    this.status = status;
    this.detail = detail;
  }
}

/** api('GET', '/api/tasks') → parsed JSON; throws ApiError on a non-2xx answer or network error. */
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  const t = getToken();
  if (t) headers.Authorization = `Bearer ${t}`;
  let payload;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, signal: opts.signal, cache: 'no-store' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, 'server unreachable', String(e.message || e));
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) {
    const msg = (data && typeof data.error === 'string') ? data.error : `http ${res.status}`;
    const detail = (data && typeof data.detail === 'string') ? data.detail : null;
    throw new ApiError(res.status, msg, detail);
  }
  if (data === null) throw new ApiError(res.status, 'malformed answer', `${method} ${path}: not JSON`);
  return data;
}

/** Path segment for a task or run reference (ids like "TASKSET:TASK" or "17"). */
export const seg = (s) => encodeURIComponent(String(s));

/** ws:// or wss:// URL on this host for a path. */
export function wsUrl(path) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}${path}`;
}
