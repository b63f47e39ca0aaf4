// Host events arrive one WebSocket/IPC message at a time — hundreds a second while a fast
// model streams. Handling each in its own task re-renders per token and freezes the page, so
// events are queued and handled together once per frame, consecutive tokens of one request
// folded into one text update (with every speculative pass they began, in order).
import type { ApiEvent } from '../../src-main/shared/api.js';
import type { PassCount } from '../lib/speculative-model.js';

type TokenApiEvent = Extract<ApiEvent, { type: 'token' }>;

export interface Coalesced {
  event: ApiEvent;
  /** How many token events the event stands for. */
  tokens: number;
  /** The verify passes those tokens began (TokenEvent.pass), in order. */
  passes: PassCount[];
}

const passesOf = (e: ApiEvent): PassCount[] => (e.type === 'token' && e.token.pass ? [e.token.pass] : []);

/** Folds runs of token events of the same request into one event carrying all their text. */
export function coalesce(events: ApiEvent[]): Coalesced[] {
  const out: Coalesced[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (e.type === 'token' && last && last.event.type === 'token' && last.event.requestId === e.requestId) {
      const prev = last.event as TokenApiEvent;
      last.event = { ...e, token: { ...e.token, text: prev.token.text + e.token.text } };
      last.tokens++;
      last.passes.push(...passesOf(e));
    } else {
      out.push({ event: e, tokens: 1, passes: passesOf(e) });
    }
  }
  return out;
}

export function createEventBatcher(handle: (e: ApiEvent, tokens: number, passes: PassCount[]) => void, schedule: (fn: () => void) => void = defaultSchedule) {
  let queue: ApiEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (const { event, tokens, passes } of coalesce(batch)) handle(event, tokens, passes);
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
