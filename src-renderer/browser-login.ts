// Browser mode's login. The address `ramforge serve` prints carries a one-time code; this page
// takes it out of the address bar at once (history.replaceState, so it stays in neither the bar
// nor the history), trades it with POST /login for a credential, and keeps that in
// sessionStorage: per origin (so per port) and per tab, never sent by the browser on its own.
// The credential then goes only to this server, in the WebSocket subprotocol list and the
// Authorization header of uploads. Why not a cookie: src-main/server/login.ts.
import { LOGIN_CODE_PARAM, LOGIN_PATH } from '../src-main/shared/browser-auth.js';

const STORAGE_KEY = 'ramforge.credential';

export interface LoginEnv {
  location: Pick<Location, 'search' | 'pathname' | 'hash'>;
  history: Pick<History, 'replaceState' | 'state'>;
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  fetchFn: typeof fetch;
}

export type LoginResult = { credential: string } | { credential: null; reason: string };

const NO_CODE = 'Open the address printed by `ramforge serve` (it carries a one-time login code). Press Enter in its terminal for a new one.';

/** Removes the code from the address bar and answers it (null when there is none). */
export function takeCode(env: Pick<LoginEnv, 'location' | 'history'>): string | null {
  const params = new URLSearchParams(env.location.search);
  const code = params.get(LOGIN_CODE_PARAM);
  if (code === null) return null;
  params.delete(LOGIN_CODE_PARAM);
  const q = params.toString();
  env.history.replaceState(env.history.state, '', env.location.pathname + (q ? `?${q}` : '') + env.location.hash);
  return code;
}

async function trade(code: string, fetchFn: typeof fetch): Promise<LoginResult> {
  try {
    const res = await fetchFn(LOGIN_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }), cache: 'no-store' });
    const body = (await res.json().catch(() => null)) as { credential?: unknown; error?: unknown } | null;
    if (res.ok && typeof body?.credential === 'string') return { credential: body.credential };
    return { credential: null, reason: typeof body?.error === 'string' ? body.error : `login failed (HTTP ${res.status})` };
  } catch (e) {
    return { credential: null, reason: `cannot reach the RAMforge server: ${(e as Error).message}` };
  }
}

/**
 * The credential for this tab: from the code in the address when there is one (a new login
 * wins over an old one), else the one this tab already holds (a reload).
 */
export async function login(env: LoginEnv): Promise<LoginResult> {
  const code = takeCode(env);
  const stored = env.storage.getItem(STORAGE_KEY);
  if (code === null) return stored ? { credential: stored } : { credential: null, reason: NO_CODE };
  const r = await trade(code, env.fetchFn);
  if (r.credential !== null) {
    env.storage.setItem(STORAGE_KEY, r.credential);
    return r;
  }
  return stored ? { credential: stored } : r;
}

/** Says on the page, above the app, why it cannot reach the server. */
export function showLoginNeeded(reason: string, doc: Document = document): void {
  if (doc.querySelector('[data-testid="login-needed"]')) return;
  const box = doc.createElement('div');
  box.setAttribute('role', 'alert');
  box.dataset.testid = 'login-needed';
  box.textContent = reason;
  Object.assign(box.style, {
    position: 'fixed',
    inset: '0 0 auto 0',
    zIndex: '1000',
    padding: '16px 24px',
    background: '#3b1d1d',
    color: '#ffd9d9',
    font: '14px/1.5 system-ui, sans-serif',
  });
  doc.body.append(box);
}

let current: Promise<string | null> | null = null;

/** This page's credential (logging in on first use); shows why when there is none. */
export function browserCredential(): Promise<string | null> {
  // Not a page (unit tests of the store under Node): nothing to log in with.
  if (typeof location === 'undefined' || typeof sessionStorage === 'undefined') return Promise.resolve(null);
  current ??= login({ location, history, storage: sessionStorage, fetchFn: fetch.bind(globalThis) }).then((r) => {
    if (r.credential === null) showLoginNeeded(r.reason);
    return r.credential;
  });
  return current;
}
