// `run --residency-report` and the report's `residency.layers` draw from one residency model: a
// dense model under an enforced cap smaller than its file, streamed. The report keeps every layer's
// and every tensor outside the layers' copies by tier (the output head locked, the embeddings
// read by rows), the text prints those same rows, and the locked figures add up to what the
// stream schedule says it locked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliBuiltOrSkip, runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';
import { formatBytes } from '../shared/size.js';
import type { RunReport } from '../shared/report/report-types.js';

const built = cliBuiltOrSkip('the residency report test');
const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the residency report test: ${capped.reason}`);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-residency-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!built || (!capped.usable && process.env.CI !== 'true'))('run --residency-report under a cap', () => {
  it('the report and the text give every layer and the embeddings, head and norm their copies by tier', () => {
    const model = join(dir, 'small.gguf');
    const s = runCli(['synth', '--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '9', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    const out = join(dir, 'report.json');
    // 132.7 MiB of file under 110 MiB: the plan's minimum is 91.7 MiB, so some layers stream.
    const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '8', '--temperature', '0', '--policy', 'stream', '--ram', '110M', '--enforce-ram', '--quiet', '--residency-report', '--report-json', out], { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    const res = report.residency;
    const outside = new Map((res.outside ?? []).map((o) => [o.key, o]));
    expect([...outside.keys()]).toEqual(['token_embd', 'output', 'output_norm']);
    // The head is locked whole; the embeddings are read a row per token, never locked.
    const head = outside.get('output')!;
    expect(head.placement.locked_bytes).toBe(head.bytes);
    expect(head.held.locked).toBe(head.bytes);
    expect(outside.get('token_embd')!.placement.locked_bytes).toBe(0);
    // Its rows are read through page faults nothing counts per tensor: unknown, not 0; the locked head reads nothing.
    expect(outside.get('token_embd')!.read_bytes_per_token).toBeNull();
    expect(head.read_bytes_per_token).toBe(0);
    // What the rows hold locked is what the schedule locked: its page ranges round each of the
    // model's ~150 tensors out to whole pages (at most two partial pages each, under 2 MiB in all).
    const rows = [...res.layers, ...(res.outside ?? [])];
    const locked = rows.reduce((a, l) => a + (l.placement?.locked_bytes ?? 0), 0);
    const pinned = res.schedule?.pinnedBytes ?? 0;
    expect(locked).toBeLessThanOrEqual(pinned);
    expect(locked).toBeGreaterThan(pinned - 2 * 2 ** 20);
    // The streamed layers' reads per token add up to what the schedule streams per pass.
    const streamed = res.layers.reduce((a, l) => a + (l.placement?.streamed_bytes ?? 0), 0);
    expect(streamed).toBe(res.schedule?.streamedBytes);
    const readPerToken = res.layers.reduce((a, l) => a + (l.read_bytes_per_token ?? 0), 0);
    expect(readPerToken).toBeGreaterThan(0.9 * streamed);
    expect(readPerToken).toBeLessThan(1.1 * streamed);
    // The text prints the same rows with the same figures.
    const line = (name: string) => r.stderr.split('\n').find((x) => x.trimStart().startsWith(name)) ?? '';
    expect(line('output head')).toContain(formatBytes(head.held.locked));
    expect(line('token embeddings')).not.toBe('');
    for (const l of res.layers) expect(line(`layer ${l.index} `), `layer ${l.index}`).toContain(formatBytes(l.held!.locked));
  }, 600_000);
});
