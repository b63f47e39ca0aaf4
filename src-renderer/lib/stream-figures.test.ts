import { describe, expect, it } from 'vitest';
import { sample } from './sample.test-util.js';
import { figuresFromReport, figuresFromSamples, firstKnown, readOverFloor } from './stream-figures.js';
import { normalizeSample } from './sample-model.js';

const decode = [
  sample({ phase: 'prompt', tMs: 0, token: 0, limitHits: 90, readBytes: 0 }),
  sample({ tMs: 1000, token: 1, limitHits: 100, readBytes: 1000, pinnedResident: 400, pinnedBytes: 400 }),
  sample({ tMs: 3000, token: 5, limitHits: 130, readBytes: 9000, pinnedResident: 380, pinnedBytes: 400 }),
];

describe('figuresFromSamples', () => {
  it('counts limit hits between the first and the last decode sample only', () => {
    expect(figuresFromSamples(decode).limitHits.value).toBe(30);
  });
  it('takes the lowest locked-weight residency during decode', () => {
    expect(figuresFromSamples(decode).pinnedResidentMin.value).toBe(0.95);
  });
  it('gives the read rate over decode in bytes per second', () => {
    expect(figuresFromSamples(decode).readRate.value).toBe(4000);
  });
  it('says why a figure is unknown instead of giving 0', () => {
    const f = figuresFromSamples([sample({ tMs: 1 })]);
    expect(f.limitHits.value).toBeNull();
    expect(f.limitHits.note).toMatch(/not capped/);
    expect(f.pinnedResidentMin.value).toBeNull();
  });
});

describe('figuresFromReport', () => {
  it('takes the figures the report states, with their notes', () => {
    const f = figuresFromReport({ limit_hits_decode: 2, limit_hits_decode_note: 'n', floor_bytes_per_token: null, floor_bytes_per_token_note: 'no budget (--ram) given' }, []);
    expect(f.limitHits).toEqual({ value: 2, note: 'n' });
    expect(f.floor).toEqual({ value: null, note: 'no budget (--ram) given' });
  });
  it('falls back to min_bytes_per_token when an older report has no floor', () => {
    const f = figuresFromReport({ min_bytes_per_token: 450, min_bytes_per_token_formula: 'weights − mean resident' }, []);
    expect(f.floor.value).toBe(450);
    expect(f.floor.note).toMatch(/older report.*min_bytes_per_token.*weights − mean resident/);
  });
  it('prefers the floor over min_bytes_per_token when a report has both', () => {
    expect(figuresFromReport({ floor_bytes_per_token: 10, min_bytes_per_token: 450 }, []).floor.value).toBe(10);
  });
  it('derives what an older report lacks from its timeline', () => {
    const timeline = decode.map((s) => normalizeSample(JSON.parse(JSON.stringify(s))));
    const f = figuresFromReport({}, timeline);
    expect(f.limitHits.value).toBe(30);
    expect(f.readRate.value).toBe(4000);
    expect(f.floor.value).toBeNull();
    expect(f.nonWeight.value).toBeNull();
  });
});

describe('helpers', () => {
  it('firstKnown takes the first value, else the first reason', () => {
    expect(firstKnown({ value: null, note: 'a' }, { value: 3, note: 'b' })).toEqual({ value: 3, note: 'b' });
    expect(firstKnown({ value: null, note: null }, { value: null, note: 'why' })).toEqual({ value: null, note: 'why' });
  });
  it('readOverFloor needs a positive floor', () => {
    expect(readOverFloor(460, 400)).toBe(1.15);
    expect(readOverFloor(10, 0)).toBeNull();
    expect(readOverFloor(null, 400)).toBeNull();
  });
});
