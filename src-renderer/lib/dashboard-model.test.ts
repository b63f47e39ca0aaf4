import { describe, expect, it } from 'vitest';
import type { EngineState } from '../../src-main/shared/api.js';
import type { ModelInfo } from '../../src-main/shared/worker-protocol.js';
import { sample } from './sample.test-util.js';
import { liveDashboard } from './dashboard-model.js';
import { normalizePlan } from './plan-model.js';
import { normalizeReport } from './report-model.js';

const plan = normalizePlan({ layers: [{ index: 0, bytes: 100, tier: 'streamed', streamedBytes: 40 }], quantities: { floorBytesPerToken: { value: 300, formula: 'f' } } });
const idle: EngineState = { status: 'ready', model: null, settings: null, lastExit: null, message: null };
const samples = [sample({ tMs: 0, limitHits: 5, readBytes: 0 }), sample({ tMs: 2000, token: 4, limitHits: 6, readBytes: 8000 })];

describe('liveDashboard', () => {
  it('derives limit hits and the read rate from the live samples', () => {
    const d = liveDashboard(plan, samples, [], null, idle);
    expect(d.figures.limitHits.value).toBe(1);
    expect(d.figures.readRate.value).toBe(4000);
  });
  it('shows the plan’s floor until the run’s report measures it', () => {
    expect(liveDashboard(plan, samples, [], null, idle).figures.floor).toEqual({ value: 300, note: expect.stringMatching(/^planned/) });
    const report = normalizeReport({ schema_version: 1, residency: { floor_bytes_per_token: 320, floor_bytes_per_token_note: 'measured' } });
    expect(liveDashboard(plan, samples, [], report, idle).figures.floor).toEqual({ value: 320, note: 'measured' });
  });
  it('takes what the samples cannot say from the report', () => {
    const report = normalizeReport({ schema_version: 1, residency: { pinned_resident_min: 0.98, pinned_resident_min_note: 'r' } });
    expect(liveDashboard(plan, [], [], report, idle).figures.pinnedResidentMin.value).toBe(0.98);
  });
  it('shows the schedule of the loaded model', () => {
    const model = { schedule: { windowBytes: 64, streamedTensors: 7 } } as unknown as ModelInfo;
    const d = liveDashboard(plan, samples, [], null, { ...idle, model });
    expect(d.schedule).toMatchObject({ windowBytes: 64, streamedTensors: 7, pinnedBytes: null });
    expect(liveDashboard(plan, samples, [], null, idle).schedule).toBeNull();
  });
});
