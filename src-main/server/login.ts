// The browser-mode server's secrets: one-time login codes and the credentials they are
// exchanged for.
//
// Why not a long-lived token in the URL and a cookie (the first design): a URL ends up on
// command lines (`xdg-open URL` is readable in /proc/*/cmdline), in the address bar and in the
// browser's history; and cookies are not isolated by port, so a cookie for 127.0.0.1 goes to
// every 127.0.0.1:* server the browser visits, any of which may belong to another local user.
// Instead the printed URL carries a code that works once and for minutes only; the page trades
// it (POST /login) for a credential it keeps in sessionStorage, which is per origin (port
// included) and per tab, and sends the credential only to this server: in the WebSocket
// subprotocol list and in the Authorization header of uploads. Nothing a browser sends by
// itself to other ports or sites ever holds it.
//
// Secrets are stored as SHA-256 digests and compared with timingSafeEqual against every entry,
// so neither a match nor its position shows in the timing.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface AccessKeyOptions {
  /** How long a login code is valid (ms). */
  codeTtlMs?: number;
  /** Live credentials kept (one per browser tab that logged in); the oldest goes first. */
  maxCredentials?: number;
  now?: () => number;
}

/** Longest string taken as a code or credential; anything longer is refused before hashing. */
const MAX_SECRET_CHARS = 256;
const MAX_CODES = 64;

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Index of the first entry equal to `d`, after comparing with every entry (constant time in the match). */
function findDigest(list: readonly Buffer[], d: Buffer): number {
  let found = -1;
  for (let i = 0; i < list.length; i++) {
    const eq = timingSafeEqual(list[i] as Buffer, d);
    if (eq && found < 0) found = i;
  }
  return found;
}

export class AccessKeys {
  private codes: { digest: Buffer; expiresAt: number }[] = [];
  private credentials: Buffer[] = [];
  private readonly codeTtlMs: number;
  private readonly maxCredentials: number;
  private readonly now: () => number;

  constructor(o: AccessKeyOptions = {}) {
    this.codeTtlMs = o.codeTtlMs ?? 5 * 60_000;
    this.maxCredentials = o.maxCredentials ?? 32;
    this.now = o.now ?? Date.now;
  }

  /** A new one-time login code, valid for `ttlMs` (default: the configured code lifetime). */
  newCode(ttlMs = this.codeTtlMs): string {
    this.dropExpired();
    const code = randomBytes(18).toString('base64url');
    this.codes.push({ digest: digest(code), expiresAt: this.now() + ttlMs });
    if (this.codes.length > MAX_CODES) this.codes.shift();
    return code;
  }

  /** Spends a code: a fresh credential when it was live, else null. A code works once. */
  exchange(code: unknown): string | null {
    if (typeof code !== 'string' || code.length === 0 || code.length > MAX_SECRET_CHARS) return null;
    this.dropExpired();
    const i = findDigest(
      this.codes.map((c) => c.digest),
      digest(code),
    );
    if (i < 0) return null;
    this.codes.splice(i, 1);
    const credential = randomBytes(32).toString('base64url');
    this.credentials.push(digest(credential));
    if (this.credentials.length > this.maxCredentials) this.credentials.shift();
    return credential;
  }

  /** Does this credential (from a WebSocket subprotocol or an Authorization header) give access? */
  allows(credential: string | null | undefined): boolean {
    if (typeof credential !== 'string' || credential.length === 0 || credential.length > MAX_SECRET_CHARS) return false;
    return findDigest(this.credentials, digest(credential)) >= 0;
  }

  private dropExpired(): void {
    const t = this.now();
    this.codes = this.codes.filter((c) => c.expiresAt > t);
  }
}
