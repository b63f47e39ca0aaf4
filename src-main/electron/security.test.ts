// The Electron security checklist, checked on the real option and handler code (no binary needed).
import { describe, it, expect, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { windowOptions, contentSecurityPolicy, APP_ORIGIN } from './window-options.js';
import { applyNavigationGuards, applyPermissionGuards, isTrustedSender, type GuardableContents, type PreventableEvent } from './guards.js';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((p) => p[0]).map((p) => [p[0] as string, p.slice(1)]));
}

describe('BrowserWindow options', () => {
  const o = windowOptions('/x/preload/index.cjs');
  const w = o.webPreferences ?? {};
  it('isolates the renderer: contextIsolation, sandbox, no Node anywhere', () => {
    expect(w.contextIsolation).toBe(true);
    expect(w.sandbox).toBe(true);
    expect(w.nodeIntegration).toBe(false);
    expect(w.nodeIntegrationInWorker).toBe(false);
    expect(w.nodeIntegrationInSubFrames).toBe(false);
    expect(w.preload).toBe('/x/preload/index.cjs');
  });
  it('keeps web security on, no webviews, no navigation by dropping a file', () => {
    expect(w.webSecurity).toBe(true);
    expect(w.allowRunningInsecureContent).toBe(false);
    expect(w.webviewTag).toBe(false);
    expect(w.experimentalFeatures).toBe(false);
    expect(w.navigateOnDragDrop).toBe(false);
  });
});

describe('Content-Security-Policy', () => {
  it('production: scripts only from the app, no inline script, no eval, no plugins, no framing', () => {
    const d = directives(contentSecurityPolicy());
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    expect(contentSecurityPolicy()).not.toMatch(/unsafe-eval|\*|http:|https:/);
    expect(d.get('connect-src')).toEqual(["'self'"]);
  });
  it('dev mode widens only to the dev server origin', () => {
    const d = directives(contentSecurityPolicy('http://localhost:5173'));
    expect(d.get('script-src')).toContain('http://localhost:5173');
    expect(d.get('connect-src')).toContain('ws://localhost:5173');
    expect(contentSecurityPolicy('http://localhost:5173')).not.toMatch(/unsafe-eval|\*/);
  });
});

function fakeContents() {
  const listeners = new Map<string, (e: PreventableEvent, ...a: unknown[]) => void>();
  let openHandler: ((d: { url: string }) => { action: 'deny' }) | null = null;
  const wc: GuardableContents = {
    setWindowOpenHandler: (h) => void (openHandler = h),
    on: (ev, l) => listeners.set(ev, l),
  };
  return { wc, listeners, open: (url: string) => openHandler?.({ url }) };
}

describe('navigation and window guards', () => {
  it('denies every new window', () => {
    const f = fakeContents();
    applyNavigationGuards(f.wc);
    expect(f.open('https://example.com')).toEqual({ action: 'deny' });
    expect(f.open(`${APP_ORIGIN}/index.html`)).toEqual({ action: 'deny' });
  });
  it.each(['will-navigate', 'will-redirect', 'will-attach-webview'])('blocks %s', (ev) => {
    const f = fakeContents();
    applyNavigationGuards(f.wc);
    const e = { preventDefault: vi.fn() };
    f.listeners.get(ev)?.(e, 'https://evil.example/');
    expect(e.preventDefault).toHaveBeenCalledOnce();
  });
  it('denies every permission request and check', () => {
    let req: ((wc: unknown, p: string, cb: (g: boolean) => void) => void) | null = null;
    let check: ((wc: unknown, p: string) => boolean) | null = null;
    applyPermissionGuards({ setPermissionRequestHandler: (h) => void (req = h), setPermissionCheckHandler: (h) => void (check = h) });
    const cb = vi.fn();
    (req as unknown as (wc: unknown, p: string, cb: (g: boolean) => void) => void)(null, 'media', cb);
    expect(cb).toHaveBeenCalledWith(false);
    expect((check as unknown as (wc: unknown, p: string) => boolean)(null, 'notifications')).toBe(false);
  });
});

describe('IPC sender validation', () => {
  const main = { url: `${APP_ORIGIN}/index.html`, parent: null };
  const allowed = [APP_ORIGIN];
  it('accepts only the main frame of the app window showing the app', () => {
    expect(isTrustedSender(main, main, allowed)).toBe(true);
    expect(isTrustedSender({ ...main }, main, allowed)).toBe(false); // another frame object
    expect(isTrustedSender(null, main, allowed)).toBe(false);
    const sub = { url: `${APP_ORIGIN}/index.html`, parent: main };
    expect(isTrustedSender(sub, sub, allowed)).toBe(false);
    const away = { url: 'https://evil.example/', parent: null };
    expect(isTrustedSender(away, away, allowed)).toBe(false);
    const file = { url: 'file:///etc/passwd', parent: null };
    expect(isTrustedSender(file, file, allowed)).toBe(false);
    const dev = { url: 'http://localhost:5173/', parent: null };
    expect(isTrustedSender(dev, dev, allowed)).toBe(false);
    expect(isTrustedSender(dev, dev, [...allowed, 'http://localhost:5173'])).toBe(true);
  });
});

describe('the main process uses these settings', () => {
  const src = (f: string): string => readFileSync(fileURLToPath(new URL(f, import.meta.url)), 'utf8');
  it('creates its only window from windowOptions() and guards it', () => {
    const index = src('./index.ts');
    expect(index.match(/new BrowserWindow\(/g)?.length).toBe(1);
    expect(index).toMatch(/new BrowserWindow\(windowOptions\(/);
    expect(index).toMatch(/applyNavigationGuards\(win\.webContents/);
    expect(index).toMatch(/applyPermissionGuards\(session\.defaultSession\)/);
    expect(index).toMatch(/app\.enableSandbox\(\)/);
  });
  it('checks the sender before dispatching any IPC call', () => {
    const ipc = src('./ipc.ts');
    const check = ipc.indexOf('isTrustedSender(event.senderFrame');
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(ipc.indexOf('dispatch(service'));
    expect(check).toBeLessThan(ipc.indexOf("method === 'exportReport'"));
  });
});
