// The device probe through the CLI a user runs: `plan` with no --disk-bw measures the model file
// itself, in direct reads scattered over it, and caches the figure for that file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { PROBE_METHOD } from '../node/disk-bw.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-disk-probe-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('plan measures the device on the model file', () => {
  it('direct reads scattered over the file where the file system takes them, cached for that file and named in the plan', () => {
    const model = join(dir, 'm.gguf');
    const s = runCli(['synth', '--arch', 'llama', '--preset', 'small', '--seed', '3', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    const env = { RAMFORGE_CACHE: join(dir, 'cache') };
    const r = runCli(['plan', model, '--ram', '100M', '--json'], { env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { input: { diskBandwidthBytesPerS: number; diskBandwidthSource: string } };
    expect(plan.input.diskBandwidthSource).toMatch(/^measured with .*: .* in \d+ requests of 2\.0 MiB, 8 in flight, scattered across /);
    const cache = JSON.parse(readFileSync(join(dir, 'cache', 'disk-bw.json'), 'utf8')) as { devices: Record<string, { method: string; requests: number; bytesRead: number; bytesPerS: number; file: string }> };
    const entries = Object.values(cache.devices);
    expect(entries).toHaveLength(1);
    const e = entries[0]!;
    expect(e.method).toBe(PROBE_METHOD);
    expect(e.file).toBe(model);
    expect(e.requests).toBeGreaterThanOrEqual(8);
    expect(e.bytesRead).toBeGreaterThan(0);
    expect(e.bytesPerS).toBe(plan.input.diskBandwidthBytesPerS);
    // The second plan answers from the cache.
    const again = JSON.parse(runCli(['plan', model, '--ram', '100M', '--json'], { env }).stdout) as typeof plan;
    expect(again.input.diskBandwidthSource).toMatch(/cached$/);
  });
});
