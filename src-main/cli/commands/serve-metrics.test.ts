// GET /metrics on a real `ramforge serve --api` (the built CLI, a real worker, a synthetic
// model): off unless --metrics (a 501 saying so, as llama-server answers), and with it Prometheus text under
// llama-server's names whose counters add up the tokens the requests were answered with, whose
// decode counters count the llama_decode calls made (alone: the prompt's and one per token; the
// batch server: its steps and the sequences each served; an embedding: one per text), and whose
// gauges see a request while it runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
import { join } from 'node:path';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let withMetrics: Served;
let without: Served;
let batched: Served;

const at = (s: Served, path: string) => `http://127.0.0.1:${s.port}${path}`;

/** The metrics as name → value, each checked to come with its HELP and TYPE lines. */
async function metrics(s: Served = withMetrics): Promise<Record<string, number>> {
  const r = await fetch(at(s, '/metrics'));
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  // llama-server's Process-Start-Time-Unix: when the server's process (and so its counters) started.
  const started = Number(r.headers.get('process-start-time-unix'));
  expect(started).toBeGreaterThan(Date.now() / 1000 - 600);
  expect(started).toBeLessThanOrEqual(Date.now() / 1000);
  const text = await r.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(llamacpp:\w+) (\S+)$/gm)) {
    const name = m[1] as string;
    expect(text).toMatch(new RegExp(`^# HELP ${name} .+\\n# TYPE ${name} (counter|gauge)\\n${name} `, 'm'));
    out[name] = Number(m[2]);
  }
  return out;
}

const complete = async (prompt: string, maxTokens: number) => {
  const r = await fetch(at(withMetrics, '/v1/completions'), { method: 'POST', body: JSON.stringify({ prompt, max_tokens: maxTokens, temperature: 0 }) });
  return ((await r.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-metrics-'));
  const model = synthModel(dir, 'tiny.gguf', ['--seed', '4']);
  [withMetrics, without, batched] = await Promise.all([serveApi(dir, ['--parallel', '1', '--metrics', model]), serveApi(dir, ['--parallel', '1', model]), serveApi(dir, ['--parallel', '2', '--metrics', model])]);
}, 180_000);

afterAll(async () => {
  await Promise.all([stopServed(withMetrics), stopServed(without), stopServed(batched)]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('GET /metrics', () => {
  it("is off without --metrics: llama-server's 501 (not_supported_error) that says how to turn it on", async () => {
    const r = await fetch(at(without, '/metrics'));
    expect(r.status).toBe(501);
    expect(((await r.clone().json()) as { error: { type: string } }).error.type).toBe('not_supported_error');
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/--metrics/);
  });

  it('sends Process-Start-Time-Unix spelt as llama-server spells it (its suite reads headers into a case-sensitive map)', async () => {
    const raw = await new Promise<string[]>((resolve, reject) => {
      get(at(withMetrics, '/metrics'), (res) => {
        res.resume();
        resolve(res.rawHeaders);
      }).once('error', reject);
    });
    expect(raw).toContain('Process-Start-Time-Unix');
  });

  it("counts the prompt and generated tokens of the requests under llama-server's names, and sees a running request", async () => {
    const before = await metrics();
    expect(before).toMatchObject({ 'llamacpp:prompt_tokens_total': 0, 'llamacpp:tokens_predicted_total': 0, 'llamacpp:requests_processing': 0, 'llamacpp:requests_deferred': 0 });
    const a = await complete('Once upon a time', 3);
    const b = await complete('The capital of France is', 5);
    const after = await metrics();
    expect(after['llamacpp:tokens_predicted_total']).toBe(a.completion_tokens + b.completion_tokens);
    expect(after['llamacpp:prompt_tokens_total']).toBeGreaterThan(0);
    expect(after['llamacpp:prompt_tokens_total']).toBeLessThanOrEqual(a.prompt_tokens + b.prompt_tokens);
    // The rest came from the cache: llama-server counts them apart.
    expect((after['llamacpp:prompt_tokens_total'] ?? 0) + (after['llamacpp:prompt_tokens_cached_total'] ?? NaN)).toBe(a.prompt_tokens + b.prompt_tokens);
    expect(after['llamacpp:tokens_predicted_seconds_total']).toBeGreaterThan(0);
    expect(after['llamacpp:predicted_tokens_seconds']).toBeGreaterThan(0);

    // A stream that has begun is a request processing until it ends.
    const gone = new AbortController();
    const stream = await fetch(at(withMetrics, '/v1/completions'), { method: 'POST', body: JSON.stringify({ prompt: 'Once', max_tokens: 1000, stream: true }), signal: gone.signal });
    const reader = stream.body?.getReader();
    await reader?.read();
    expect((await metrics())['llamacpp:requests_processing']).toBe(1);
    gone.abort();
    // The cancelled generation decodes until the worker sees the cancel: the counters of the
    // tests after this one start once it has ended.
    for (let i = 0; i < 300 && (await metrics())['llamacpp:requests_processing'] !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await metrics())['llamacpp:requests_processing']).toBe(0);
  });

  const llama = async (s: Served, body: object) => {
    const r = await fetch(at(s, '/completion'), { method: 'POST', body: JSON.stringify({ temperature: 0, ...body }) });
    expect(r.status).toBe(200);
    return (await r.json()) as { tokens_predicted: number; tokens_evaluated: number; stop_type: string };
  };
  const value = (m: Record<string, number>, name: string) => m[`llamacpp:${name}`] ?? NaN;

  it("counts one sequence's llama_decode calls: the prompt's (one micro-batch here) and one per token after the first; one busy slot each; the longest sequence", async () => {
    // Counted from a server at rest: no decode of an earlier request still in flight.
    let before = await metrics();
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const again = await metrics();
      if (value(again, 'n_decode_total') === value(before, 'n_decode_total')) break;
      before = again;
    }
    // ignore_eos: the answer runs to n_predict, so the count is known.
    const r = await llama(withMetrics, { prompt: 'A prompt shorter than one micro-batch', n_predict: 7, ignore_eos: true });
    expect([r.tokens_predicted, r.stop_type]).toEqual([7, 'limit']);
    const after = await metrics();
    // The first token comes from the prompt's logits; the last needs no decode after it.
    expect(value(after, 'n_decode_total') - value(before, 'n_decode_total')).toBe(1 + 6);
    expect(value(after, 'n_busy_slots_per_decode')).toBe(1);
    expect(value(after, 'n_tokens_max')).toBeGreaterThanOrEqual(r.tokens_evaluated + 7);
    expect(value(after, 'spec_decode_num_drafts_total')).toBe(0);
  });

  it("counts embeddings' prompt tokens and their decodes (one per text), with no token predicted", async () => {
    const before = await metrics();
    const r = await fetch(at(withMetrics, '/v1/embeddings'), { method: 'POST', body: JSON.stringify({ input: ['hello world', 'goodbye world'] }) });
    const used = ((await r.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    const after = await metrics();
    expect(value(after, 'prompt_tokens_total') - value(before, 'prompt_tokens_total')).toBe(used);
    expect(value(after, 'n_decode_total') - value(before, 'n_decode_total')).toBe(2);
    expect(value(after, 'tokens_predicted_total')).toBe(value(before, 'tokens_predicted_total'));
  });

  it("counts the batch server's steps, each with the sequences it served: two requests at once share steps", async () => {
    const before = await metrics(batched);
    expect(value(before, 'n_decode_total')).toBe(0);
    const body = { prompt: 'Once upon a time', n_predict: 12, ignore_eos: true };
    await Promise.all([llama(batched, body), llama(batched, body)]);
    const after = await metrics(batched);
    const decodes = value(after, 'n_decode_total');
    // Each request needs a prompt step and 11 token steps; shared steps count once.
    expect(decodes).toBeGreaterThanOrEqual(12);
    expect(decodes).toBeLessThanOrEqual(24);
    // The sequences the steps served add up to every request's steps: 2 × 12, whatever was shared.
    expect(value(after, 'n_busy_slots_per_decode') * decodes).toBeCloseTo(24, 3);
  });
});
