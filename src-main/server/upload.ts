// PUT /upload?name=…: a dropped file streamed to disk (browser mode has no file paths), with a
// bounded size, a sanitised name, a temp file renamed into place, nothing left on failure.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export class UploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A safe file name: last path component, [A-Za-z0-9._-] only, no leading dot, ≤ 120 chars. */
export function sanitizeUploadName(raw: string): string {
  const last = raw.split(/[\\/]/).pop() ?? '';
  let s = last.normalize('NFKC').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.]+/, '');
  if (s.length > 120) {
    const dot = s.lastIndexOf('.');
    const ext = dot > 0 && s.length - dot <= 10 ? s.slice(dot) : '';
    s = s.slice(0, 120 - ext.length) + ext;
  }
  return s === '' || /^[._-]*$/.test(s) ? 'upload.gguf' : s;
}

export interface UploadLimits {
  maxBytes: number;
  /** Keep at least this much free on the data disk after the upload. */
  reserveBytes: number;
}

export async function receiveUpload(req: IncomingMessage, dir: string, rawName: string, limits: UploadLimits): Promise<string> {
  const lenHeader = req.headers['content-length'];
  if (lenHeader === undefined || !/^\d+$/.test(lenHeader)) throw new UploadError(411, 'an upload needs a Content-Length');
  const declared = Number(lenHeader);
  if (declared > limits.maxBytes) throw new UploadError(413, `file is ${declared} bytes; the upload limit is ${limits.maxBytes} bytes`);
  await mkdir(dir, { recursive: true });
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  if (declared + limits.reserveBytes > free) throw new UploadError(507, `not enough free disk space for ${declared} bytes in ${dir}`);

  const name = sanitizeUploadName(rawName);
  const final = join(dir, name);
  const part = join(dir, `.${name}.${randomBytes(4).toString('hex')}.part`);
  const out = createWriteStream(part, { mode: 0o600 });
  let received = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: Error): void => {
        req.unpipe(out);
        out.destroy();
        reject(e);
      };
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > declared) fail(new UploadError(400, 'body longer than its Content-Length'));
      });
      req.on('aborted', () => fail(new UploadError(400, 'upload aborted')));
      req.on('error', fail);
      out.on('error', fail);
      out.on('finish', () => (received === declared ? resolve() : reject(new UploadError(400, `upload ended after ${received} of ${declared} bytes`))));
      req.pipe(out);
    });
    await rename(part, final);
    return final;
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
}
