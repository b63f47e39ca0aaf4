// Who may talk to the browser-mode server: it listens on 127.0.0.1 only, checks the Host header
// (DNS rebinding), the Origin of WebSocket, login and upload requests (other web sites), and a
// credential the page got for a one-time login code (other local users and processes; see
// login.ts for why a credential and not a cookie). This file reads requests; login.ts holds
// the secrets and compares them.
import type { IncomingMessage } from 'node:http';

import { WS_AUTH_PREFIX } from '../shared/browser-auth.js';

export { WS_AUTH_PREFIX, WS_PROTOCOL } from '../shared/browser-auth.js';

export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function hostAllowed(req: IncomingMessage, port: number): boolean {
  return allowedHosts(port).includes(String(req.headers.host ?? '').toLowerCase());
}

/** An Origin header, when present, must be this server's own. Browsers always send it on WebSocket and PUT. */
export function originAllowed(req: IncomingMessage, port: number, required: boolean): boolean {
  const o = req.headers.origin;
  if (o === undefined) return !required;
  return allowedHosts(port).some((h) => o === `http://${h}`);
}

/** `Authorization: Bearer <credential>` (uploads), or null. */
export function bearerCredential(req: IncomingMessage): string | null {
  const m = /^Bearer ([A-Za-z0-9_-]{1,256})$/.exec(String(req.headers.authorization ?? ''));
  return m ? (m[1] as string) : null;
}

/**
 * The credential in the WebSocket subprotocol list (`ramforge.auth.<credential>`), or null.
 * Browsers let a page set this header and send it only to the socket's own server.
 */
export function subprotocolCredential(req: IncomingMessage): string | null {
  const list = req.headers['sec-websocket-protocol'];
  if (typeof list !== 'string' || list.length > 1024) return null;
  for (const p of list.split(',')) {
    const t = p.trim();
    if (t.startsWith(WS_AUTH_PREFIX)) return t.slice(WS_AUTH_PREFIX.length);
  }
  return null;
}

/** The path of a request target, or null when it is not an origin-form path ('/…'; never '//…'). */
export function targetPath(raw: string | undefined): string | null {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//')) return null;
  const q = raw.indexOf('?');
  return q < 0 ? raw : raw.slice(0, q);
}

export function contentSecurityPolicy(port: number): string {
  const ws = allowedHosts(port).map((h) => `ws://${h}`).join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Inline style attributes only (charts set them); no inline scripts anywhere.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${ws}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
