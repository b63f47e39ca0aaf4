import { describe, expect, it } from 'vitest';
import { RemoteStepWatch } from './step-watch.js';
import { RPC_PROMPT_STEP_MS, RPC_STEP_MARGIN, RPC_STEP_MIN_MS } from '../settings/run-settings.js';
import type { ResidencySample } from '../residency-types.js';

function sample(token: number, waitMs: number, readBytes = 0): ResidencySample {
  return {
    tMs: 0,
    token,
    phase: 'decode',
    layerResident: [],
    persistentResident: null,
    rssBytes: null,
    cgroupBytes: null,
    cgroupLimitBytes: null,
    limitHits: null,
    pinnedResident: null,
    pinnedBytes: null,
    readBytes,
    majorFaults: null,
    decodeTokS: null,
    events: [],
    network: { nodes: [{ endpoint: 'a:1', bytesSent: token * 100, bytesReceived: token * 10, waitMs }] },
  };
}

/** A generation that decoded `tokens` tokens, one every `stepMs`, from t = 0. */
function decoded(tokens: number, stepMs: number): RemoteStepWatch {
  const w = new RemoteStepWatch(0);
  w.begin(1, 0);
  for (let i = 1; i <= tokens; i++) w.token(1, i * stepMs);
  return w;
}

describe('RemoteStepWatch: a run on RPC nodes that stopped moving', () => {
  it('the decode deadline is the margin over the longest step measured, at least the minimum', () => {
    const slow = decoded(5, 2000);
    expect(slow.overdue(5 * 2000 + RPC_STEP_MARGIN * 2000 - 1)).toBeNull();
    expect(slow.overdue(5 * 2000 + RPC_STEP_MARGIN * 2000 + 1)).toMatchObject({ deadlineMs: RPC_STEP_MARGIN * 2000, stepMs: 2000 });
    const fast = decoded(5, 20);
    expect(fast.overdue(100 + RPC_STEP_MIN_MS - 1)).toBeNull();
    expect(fast.overdue(100 + RPC_STEP_MIN_MS + 1)?.deadlineMs).toBe(RPC_STEP_MIN_MS);
  });

  it('counters that move between tokens are progress, and a long step measured lengthens the deadline', () => {
    const w = decoded(5, 20);
    // A node's wait grew 4 s after the last token (a long remote step that returned).
    const t = 100 + 4000;
    w.sample(sample(5, 30), t);
    const deadline = RPC_STEP_MARGIN * 4000;
    expect(w.overdue(t + deadline - 1)).toBeNull();
    // The same counters again are not progress.
    w.sample(sample(5, 30), t + 1000);
    expect(w.overdue(t + deadline + 1)).toMatchObject({ deadlineMs: deadline, stepMs: 4000 });
    // Reads from storage are (a streamed layer).
    w.sample(sample(5, 30, 4096), t + deadline + 2);
    expect(w.overdue(t + deadline + 3)).toBeNull();
  });

  it('before two tokens the prompt deadline applies; nothing is watched while nothing runs', () => {
    const w = new RemoteStepWatch(0);
    expect(w.overdue(10 * RPC_PROMPT_STEP_MS)).toBeNull();
    w.begin(1, 0);
    w.token(1, 50);
    expect(w.overdue(50 + RPC_PROMPT_STEP_MS - 1)).toBeNull();
    expect(w.overdue(50 + RPC_PROMPT_STEP_MS + 1)?.deadlineMs).toBe(RPC_PROMPT_STEP_MS);
    w.end(1);
    expect(w.overdue(10 * RPC_PROMPT_STEP_MS)).toBeNull();
  });

  it('a request that joins the batch puts the watch back on the prompt deadline until its own tokens come', () => {
    const w = decoded(5, 20);
    w.begin(2, 100);
    expect(w.overdue(100 + RPC_STEP_MIN_MS + 1)).toBeNull();
    w.token(2, 200);
    w.token(2, 220);
    expect(w.overdue(220 + RPC_STEP_MIN_MS + 1)).not.toBeNull();
  });
});
