// Test helper: a loopback HTTP file server (127.0.0.1, random port) that counts what it is asked
// for and what it sends. Per path it can serve ranges or ignore them, redirect, publish headers,
// or close the connection part-way through a body (once), as a flaky network does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFile {
  bytes: Uint8Array;
  /** Sent as ETag (quoted) and honoured in If-Range. */
  etag?: string;
  headers?: Record<string, string>;
  /** Answer every GET with 200 and the whole body, ignoring Range (a server without range support). */
  noRanges?: boolean;
  /**
   * Close the connection after this many body bytes of the next download (an answer to a request
   * for the whole file or an open-ended range `bytes=N-`; header reads ask for bounded ranges),
   * then serve normally.
   */
  cutAfterBytes?: number;
}

export interface SeenRequest {
  path: string;
  range: string | null;
  ifRange: string | null;
  status: number;
  /** Body bytes written for this request. */
  bytes: number;
}

export class RangeServer {
  readonly files = new Map<string, ServedFile>();
  readonly redirects = new Map<string, string>();
  readonly seen: SeenRequest[] = [];
  private server: Server | null = null;
  private port = 0;

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Body bytes sent for requests whose path starts with `prefix` (all when omitted). */
  bytesSent(prefix = ''): number {
    return this.seen.filter((r) => r.path.startsWith(prefix)).reduce((a, r) => a + r.bytes, 0);
  }

  requestsFor(prefix = ''): SeenRequest[] {
    return this.seen.filter((r) => r.path.startsWith(prefix));
  }

  reset(): void {
    this.seen.length = 0;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const rec: SeenRequest = { path, range: req.headers.range ?? null, ifRange: (req.headers['if-range'] as string | undefined) ?? null, status: 0, bytes: 0 };
    this.seen.push(rec);
    const to = this.redirects.get(path);
    if (to) {
      rec.status = 302;
      res.writeHead(302, { location: to, 'content-length': '0' });
      return void res.end();
    }
    const f = this.files.get(path);
    if (!f || req.method !== 'GET') {
      rec.status = f ? 405 : 404;
      res.writeHead(rec.status, { 'content-length': '0' });
      return void res.end();
    }
    const size = f.bytes.length;
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...f.headers };
    if (f.etag) headers.etag = `"${f.etag}"`;
    if (!f.noRanges) headers['accept-ranges'] = 'bytes';
    let start = 0;
    let end = size - 1;
    let status = 200;
    const m = f.noRanges ? null : /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRangeOk = !rec.ifRange || (f.etag !== undefined && rec.ifRange === `"${f.etag}"`);
    if (m && ifRangeOk) {
      start = Number(m[1]);
      end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      if (start >= size) {
        rec.status = 416;
        res.writeHead(416, { 'content-range': `bytes */${size}`, 'content-length': '0' });
        return void res.end();
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['content-length'] = String(end - start + 1);
    rec.status = status;
    res.writeHead(status, headers);
    let body = Buffer.from(f.bytes.buffer, f.bytes.byteOffset + start, end - start + 1);
    const cut = f.cutAfterBytes;
    const download = m === null || m[2] === '';
    if (cut !== undefined && download) {
      f.cutAfterBytes = undefined;
      body = body.subarray(0, Math.min(cut, body.length));
      rec.bytes = body.length;
      res.write(body, () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    // Written in chunks with back-pressure, so `bytes` counts what really left (a client that
    // hangs up early stops the count) rather than the whole file.
    res.on('error', () => {});
    const CHUNK = 64 * 1024;
    let at = 0;
    const pump = (): void => {
      while (at < body.length) {
        if (res.destroyed) return;
        const piece = body.subarray(at, at + CHUNK);
        at += piece.length;
        rec.bytes += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.once('close', () => res.removeAllListeners('drain'));
    pump();
  }
}
