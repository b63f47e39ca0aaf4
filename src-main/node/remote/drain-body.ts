// A response body written to a file as it arrives, every byte received kept even when the
// connection fails. An async iterator over the body rejects as soon as the socket fails and
// drops the chunks it had buffered but not yet handed out: a busy machine (each chunk waits for
// its write) then kept fewer bytes than it had received, and a resume started earlier than it
// could. Here every chunk the body emitted is written, in order, with back-pressure.
import type { IncomingMessage } from 'node:http';
import type { FileHandle } from 'node:fs/promises';

export interface Drained {
  /** The file position after the last byte written. */
  pos: number;
  /** Why the body did not end normally (the connection, or a write), else null. */
  failure: Error | null;
}

/** Chunks queued for writing before the body is paused (and below which it flows again). */
const HIGH_WATER = 16;
const LOW_WATER = 4;

export function drainBody(res: IncomingMessage, fh: FileHandle, start: number, onChunk: (b: Buffer, pos: number) => void): Promise<Drained> {
  return new Promise((resolve) => {
    let pos = start;
    let failure: Error | null = null;
    let writeFailed = false;
    let finished = false;
    let queued = 0;
    let chain: Promise<void> = Promise.resolve();
    const settle = (): void => {
      if (finished && queued === 0) resolve({ pos, failure });
    };
    const fail = (e: Error): void => {
      failure ??= e;
      finished = true;
      settle();
    };
    res.on('data', (b: Buffer) => {
      queued++;
      if (queued >= HIGH_WATER) res.pause();
      chain = chain
        .then(async () => {
          if (writeFailed) return;
          await fh.write(b, 0, b.length, pos);
          pos += b.length;
          onChunk(b, pos);
        })
        .catch((e: Error) => {
          writeFailed = true;
          failure ??= e;
          res.destroy();
        })
        .finally(() => {
          queued--;
          if (queued <= LOW_WATER && !finished) res.resume();
          settle();
        });
    });
    res.on('end', () => {
      finished = true;
      settle();
    });
    res.on('error', fail);
    res.on('close', () => {
      if (!res.complete) fail(new Error('the connection closed before the body ended'));
    });
  });
}
