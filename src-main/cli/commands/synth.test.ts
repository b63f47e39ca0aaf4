import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { vocabDir } from '../../node/paths.js';
import { parseGgufHeader } from '../../shared/gguf/reader.js';
import { command } from './synth.js';

const haveVocabs = existsSync(vocabDir());
if (!haveVocabs) {
  if (process.env.CI === 'true') throw new Error(`vocab files missing at ${vocabDir()}`);
  console.warn(`skipping synth command tests: no llama.cpp source at ${vocabDir()}`);
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-synth-cli-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (argv: string[]) => command.run(parseArgs(argv, command));

describe('ramforge synth', () => {
  it('lists every flag', () => {
    const names = command.flags.map((f) => f.name);
    for (const f of ['arch', 'preset', 'type', 'seed', 'out', 'layers', 'embd', 'ff', 'heads', 'kv-heads', 'ctx-train', 'experts', 'experts-used', 'expert-ff', 'shared-ff', 'router-skew']) expect(names).toContain(f);
  });

  it('bad usage is a UsageError (exit 2)', async () => {
    await expect(run(['--arch', 'foo', '--out', join(dir, 'x.gguf')])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--type', 'Q5_1', '--out', join(dir, 'x.gguf')])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--preset', 'tiny'])).rejects.toThrow(/--out/);
    await expect(run(['--layers', '0', '--out', join(dir, 'x.gguf')])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--heads', '3', '--out', join(dir, 'x.gguf')])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--arch', 'qwen2', '--experts', '4', '--out', join(dir, 'x.gguf')])).rejects.toThrow(/no mixture-of-experts layout/);
    await expect(run(['--arch', 'llama', '--preset', '30b-a3b', '--out', join(dir, 'x.gguf')])).rejects.toThrow(/no preset '30b-a3b'/);
    await expect(run(['--arch', 'qwen3moe', '--router-skew', '-1', '--out', join(dir, 'x.gguf')])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--draft-of', join(dir, 't.gguf'), '--layers', '1', '--experts', '4', '--out', join(dir, 'x.gguf')])).rejects.toThrow(/--experts does not apply to --draft-of/);
    expect(new UsageError('x').exitCode).toBe(2);
  });

  it.skipIf(!haveVocabs)('writes the file and prints one summary line', async () => {
    const out = join(dir, 'm.gguf');
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
      lines.push(String(s));
      return true;
    });
    try {
      expect(await run(['--arch', 'gptneox', '--preset', 'tiny', '--type', 'Q8_0', '--layers', '1', '--seed', '5', '--quiet', '--out', out])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const size = (await stat(out)).size;
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain(out);
    expect(lines[0]).toContain(`${size} bytes`);
    expect(lines[0]).toMatch(/params, 1 layers/);
  });

  it.skipIf(!haveVocabs)('--experts writes the Mixtral layout and the summary names the experts', async () => {
    const out = join(dir, 'moe.gguf');
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
      lines.push(String(s));
      return true;
    });
    try {
      expect(await run(['--arch', 'llama', '--experts', '4', '--experts-used', '2', '--router-skew', '0.5', '--layers', '1', '--quiet', '--out', out])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(lines[0]).toMatch(/experts 2\/4 router skew 0.5/);
    const bytes = await readFile(out);
    const h = parseGgufHeader(bytes, bytes.length);
    expect(h.kvByKey.get('llama.expert_count')?.value).toBe(4);
    expect(h.kvByKey.get('llama.expert_used_count')?.value).toBe(2);
    expect(h.kvByKey.get('ramforge.synth.router_skew')?.value).toBe(0.5);
    expect(h.tensors.find((t) => t.name === 'blk.0.ffn_up_exps.weight')?.dims).toEqual([256, 512, 4]);
  });

  it.skipIf(!haveVocabs)('--no-chat-template writes a base model: no tokenizer.chat_template', async () => {
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      for (const [flag, has] of [['--no-chat-template', false], ['--chat-template', true]] as const) {
        const out = join(dir, `base${flag}.gguf`);
        expect(await run(['--preset', 'tiny', '--layers', '1', '--quiet', flag, '--out', out])).toBe(0);
        const bytes = await readFile(out);
        expect(parseGgufHeader(bytes, bytes.length).kvByKey.has('tokenizer.chat_template'), flag).toBe(has);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
