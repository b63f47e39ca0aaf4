// Greedy generation is deterministic: repeated runs give the same tokens, and so do mmap and
// no-mmap loads. Repacking changes llama.cpp's CPU kernels (another reduction order), so with
// and without repack each is deterministic on its own; on the tiny models the two also agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-determinism-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function tokens(model: string, flags: string[]): number[] {
  const out = join(dir, `t-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '32', '--temperature', '0', '--quiet', '--tokens-json', out, ...flags]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(readFileSync(out, 'utf8')) as { token_ids: number[] }).token_ids;
}

function synth(name: string, args: string[]): string {
  const path = join(dir, name);
  const r = runCli(['synth', ...args, '--out', path, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  return path;
}

describe('greedy determinism', () => {
  it('repeats exactly in every load mode, and mmap equals no-mmap (small preset, Q4_0)', () => {
    const model = synth('small.gguf', ['--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '4']);
    for (const repack of ['--repack', '--no-repack']) {
      const a = tokens(model, [repack]);
      expect(a).toHaveLength(32);
      expect(tokens(model, [repack])).toEqual(a);
      expect(tokens(model, [repack, '--no-mmap'])).toEqual(a);
    }
  });

  it.each(['Q4_0', 'Q8_0', 'Q4_K', 'F16'])('tiny %s: the same tokens with and without mmap and repack', (type) => {
    const model = synth(`tiny-${type}.gguf`, ['--arch', 'llama', '--preset', 'tiny', '--type', type, '--seed', '3']);
    const ref = tokens(model, []);
    for (const flags of [['--no-repack'], ['--no-mmap'], ['--no-mmap', '--no-repack']]) expect(tokens(model, flags)).toEqual(ref);
  });
});
