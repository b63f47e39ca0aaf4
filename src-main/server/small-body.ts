// Reads a small request body (a login request) with a hard limit, without destroying the
// request when it stops early, so the handler can still answer 413.
import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readSmallBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const len = req.headers['content-length'];
  if (len !== undefined && (!/^\d{1,16}$/.test(len) || Number(len) > maxBytes)) throw new BodyError(413, `the body must be at most ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  const body = { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) } as AsyncIterable<Buffer>;
  try {
    for await (const c of body) {
      size += c.length;
      if (size > maxBytes) throw new BodyError(413, `the body must be at most ${maxBytes} bytes`);
      chunks.push(c);
    }
  } catch (e) {
    if (e instanceof BodyError) throw e;
    throw new BodyError(400, 'the request body did not arrive');
  }
  return Buffer.concat(chunks).toString('utf8');
}
