// Notices a client that goes away before its request body has ended, from the moment it is
// called. Handlers that await (mkdir, statfs, a queue) before reading the body call it first:
// an abort during those awaits has already fired its events by the time they would listen.
import type { IncomingMessage } from 'node:http';

export interface RequestWatch {
  /** Why the request can no longer complete, or null while it still can. */
  gone(): string | null;
  stop(): void;
}

export function watchRequest(req: IncomingMessage): RequestWatch {
  let reason: string | null = req.destroyed && !req.complete ? 'the client closed the connection before the request body ended' : null;
  const onClose = (): void => {
    if (!req.complete) reason ??= 'the client closed the connection before the request body ended';
  };
  const onError = (e: Error): void => {
    reason ??= `the request failed: ${e.message}`;
  };
  req.on('close', onClose);
  req.on('error', onError);
  return {
    gone: () => reason,
    stop: () => {
      req.off('close', onClose);
      req.off('error', onError);
    },
  };
}
