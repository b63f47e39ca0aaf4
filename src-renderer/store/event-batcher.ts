// Host events arrive one WebSocket/IPC message at a time — hundreds a second while a fast
// model streams. Handling each in its own task re-renders per token and freezes the page, so
// events are queued and handled together once per frame, consecutive tokens of one request
// folded into one text update.
import type { ApiEvent } from '../../src-main/shared/api.js';

type TokenApiEvent = Extract<ApiEvent, { type: 'token' }>;

/** Folds runs of token events of the same request into one event carrying all their text. */
export function coalesce(events: ApiEvent[]): { event: ApiEvent; tokens: number }[] {
  const out: { event: ApiEvent; tokens: number }[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === 'token' && last && last.event.type === 'token' && last.event.requestId === e.requestId) {
      const prev = last.event as TokenApiEvent;
      last.event = { ...e, token: { ...e.token, text: prev.token.text + e.token.text } };
      last.tokens++;
    } else {
      out.push({ event: e, tokens: 1 });
    }
  }
  return out;
}

export function createEventBatcher(handle: (e: ApiEvent, tokens: number) => void, schedule: (fn: () => void) => void = defaultSchedule) {
  let queue: ApiEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (const { event, tokens } of coalesce(batch)) handle(event, tokens);
  };
  return (e: ApiEvent) => {
    queue.push(e);
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  };
}

function defaultSchedule(fn: () => void): void {
  // rAF does not run in a hidden tab; the timeout keeps events flowing there.
  let done = false;
  const run = () => {
    if (!done) {
      done = true;
      fn();
    }
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(run);
  setTimeout(run, 50);
}
