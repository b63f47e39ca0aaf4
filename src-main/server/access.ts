// Who may talk to the browser-mode server: it listens on 127.0.0.1 only, checks the Host header
// (DNS rebinding), the Origin of WebSocket and upload requests (other web sites), and a
// per-server secret token that the printed URL carries and a SameSite=Strict cookie keeps
// (other local users and processes).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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

export function cookieName(port: number): string {
  return `ramforge_token_${port}`;
}

function safeEq(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function readCookie(req: IncomingMessage, name: string): string | null {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function tokenAllowed(req: IncomingMessage, port: number, token: string): boolean {
  const c = readCookie(req, cookieName(port));
  return c !== null && safeEq(c, token);
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
