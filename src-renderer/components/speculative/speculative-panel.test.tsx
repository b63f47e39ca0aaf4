// The dashboard's speculative decoding panel fed through the real store by the host's events
// (a fake API pushes them: the loaded model with its draft, token events carrying each verify
// pass, residency samples, the generation's end), rendered to HTML.
import { beforeEach, describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { DraftInfo, GenerationResult, ModelInfo } from '../../../src-main/shared/worker-protocol.js';
import { setApi } from '../../api.js';
import { startStore, useStore } from '../../store/index.js';
import { fakeApi, type FakeApi } from '../../store/fake-api.test-util.js';
import { sample } from '../../lib/sample.test-util.js';
import { bytesPerGeneratedToken } from '../../lib/speculative-model.js';
import { SpeculativePanelView } from './SpeculativePanel.js';

let api: FakeApi;
let stop: () => void;
const draft: DraftInfo = { path: '/m/d.gguf', name: 'tiny-draft', nLayers: 1, sharedBytes: 3 * 1024 * 1024, ownBytes: 0, max: 8, min: 0 };
const model = { path: '/m/t.gguf', name: 'tiny', nLayers: 2, schedule: null, draft } as unknown as ModelInfo;

/** The panel as the dashboard renders it from the store. */
const panel = () => {
  const s = useStore.getState();
  return renderToStaticMarkup(<SpeculativePanelView draft={s.engine.model!.draft!} run={s.spec} readPerToken={bytesPerGeneratedToken(s.samples)} />);
};
const kpi = (html: string, id: string) => new RegExp(`data-testid="${id}">([^<]*)<`).exec(html)?.[1];
const token = (index: number, pass?: { drafted: number; accepted: number }) => api.emit({ type: 'token', requestId: 'r1', token: { index, tokenId: index, text: 't', tMs: index, ...(pass ? { pass } : {}) } });
const done = (tokens: number, d: GenerationResult['draft']) =>
  api.emit({
    type: 'generation-done',
    requestId: 'r1',
    reportId: null,
    result: { promptTokens: [1], tokens: Array.from({ length: tokens }, (_, i) => i), text: '', stopReason: 'max_tokens', reusedTokens: 0, timings: { promptMs: 1, ttftMs: 1, decodeMs: 1, promptTokS: 1, decodeTokS: 1, perTokenMs: [] }, ...(d ? { draft: d } : {}) },
  });

beforeEach(async () => {
  stop?.();
  const a = fakeApi();
  api = a as unknown as FakeApi;
  // The host's state at start: the model is loaded with its draft.
  api.getState.mockResolvedValue({ status: 'ready', model, settings: null, lastExit: null, message: null });
  setApi(a);
  useStore.setState(useStore.getInitialState(), true);
  stop = startStore({ schedule: (f) => f() });
  await new Promise((r) => setTimeout(r, 0));
});

describe('SpeculativePanel', () => {
  it('names the draft and shows an explicit empty state before a generation', () => {
    const html = panel();
    expect(html).toContain('data-state="empty"');
    expect(kpi(html, 'spec-draft')).toBe('draft tiny-draft · 1 layer · k 0–8 · 3.0 MiB shared with the model');
    expect(kpi(html, 'spec-passes')).toBe('0');
    expect(kpi(html, 'spec-acceptance')).toBe('—');
    expect(html).toContain('data-testid="speculative-chart" data-points="0"');
    expect(html).toContain('No verify passes yet');
  });

  it("during a generation: each verify pass from the token events, totals and tokens per pass; times are not known yet", () => {
    token(0); // the prompt pass's token
    token(1, { drafted: 4, accepted: 3 });
    token(2);
    token(3);
    token(4);
    token(5, { drafted: 4, accepted: 0 });
    const html = panel();
    expect(html).toContain('data-state="live"');
    expect(kpi(html, 'spec-passes')).toBe('2');
    expect(kpi(html, 'spec-drafted')).toBe('8');
    expect(kpi(html, 'spec-accepted')).toBe('3');
    expect(kpi(html, 'spec-acceptance')).toBe('38%');
    // 6 tokens: 5 after the first, over 2 passes.
    expect(kpi(html, 'spec-tokens-per-pass')).toBe('2.50');
    expect(kpi(html, 'spec-draft-ms')).toBe('—');
    expect(html).toContain('data-testid="speculative-chart" data-points="2"');
  });

  it("at the end: the generation's own counts and the draft and verify times", () => {
    token(0);
    token(1, { drafted: 4, accepted: 3 });
    done(9, { drafted: 12, accepted: 6, passes: 4, draftMs: 40, verifyMs: 120 });
    const html = panel();
    expect(html).toContain('data-state="done"');
    expect(kpi(html, 'spec-passes')).toBe('4');
    expect(kpi(html, 'spec-drafted')).toBe('12');
    expect(kpi(html, 'spec-accepted')).toBe('6');
    expect(kpi(html, 'spec-acceptance')).toBe('50%');
    expect(kpi(html, 'spec-tokens-per-pass')).toBe('2.00');
    expect(kpi(html, 'spec-draft-ms')).toBe('40.0 ms');
    expect(kpi(html, 'spec-verify-ms')).toBe('120 ms');
    expect(kpi(html, 'spec-draft-share')).toBe('25%');
  });

  it('the bytes read per generated token come from the residency samples of the decode', () => {
    expect(kpi(panel(), 'spec-read-per-token')).toBe('—');
    api.emit({ type: 'sample', sample: sample({ token: 1, readBytes: 1000 }) });
    api.emit({ type: 'sample', sample: sample({ token: 11, readBytes: 16360 }) });
    expect(kpi(panel(), 'spec-read-per-token')).toBe('1.5 KiB/tok');
  });

  it('a new load starts over; a model without a draft keeps nothing', async () => {
    token(1, { drafted: 2, accepted: 2 });
    expect(useStore.getState().spec.passes).toBe(1);
    await useStore.getState().loadModel('/m/t.gguf');
    expect(useStore.getState().spec.passes).toBe(0);
    api.emit({ type: 'state', state: { status: 'ready', model: { ...model, draft: null }, settings: null, lastExit: null, message: null } });
    token(0);
    expect(useStore.getState().spec.requestId).toBeNull();
  });
});
