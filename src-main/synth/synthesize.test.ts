// Writes real files with real vocab files from the pinned llama.cpp source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vocabDir } from '../node/paths.js';
import { parseGgufHeader, type GgufHeader } from '../shared/gguf/reader.js';
import { synthesize } from './synthesize.js';
import { SynthInputError, WEIGHT_TYPES } from './shape.js';
import { vocabPath } from './vocab.js';

const haveVocabs = existsSync(vocabDir());
if (!haveVocabs) {
  if (process.env.CI === 'true') throw new Error(`vocab files missing at ${vocabDir()}: the llama.cpp source must be fetched before the tests`);
  console.warn(`skipping synthesize tests: no llama.cpp source at ${vocabDir()} (run npm run build:native)`);
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-synth-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function sha256(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}

async function header(path: string) {
  const bytes = await readFile(path);
  return { bytes, h: parseGgufHeader(bytes, bytes.length) };
}

/** A KV pair's encoded value (type tag through the end of the value). */
function rawValue(h: GgufHeader, bytes: Buffer, key: string): Buffer {
  const i = h.kv.findIndex((e) => e.key === key);
  if (i < 0) throw new Error(`no ${key}`);
  const end = i + 1 < h.kv.length ? h.kv[i + 1]!.offset : h.tensorInfoOffset;
  return bytes.subarray(h.kv[i]!.valueOffset - 4, end);
}

describe.skipIf(!haveVocabs)('synthesize', () => {
  const VOCABS = { llama: 'llama-spm', qwen2: 'qwen2', gptneox: 'gpt-neox' } as const;
  for (const arch of ['llama', 'qwen2', 'gptneox'] as const) {
    it(`${arch}: a GGUF the reader accepts, with the real tokenizer copied unchanged`, async () => {
      const out = join(dir, `${arch}.gguf`);
      const r = await synthesize({ arch, preset: 'tiny', type: 'Q4_0', seed: 3, out, overrides: { nLayer: 1 } });
      const { bytes, h } = await header(out);
      expect(r.bytes).toBe(bytes.length);
      expect(h.fileSize).toBe(bytes.length);
      expect(h.tensors.length).toBe(r.tensors.length);
      expect(h.tensors.map((t) => [t.name, t.dims, t.typeName, t.start])).toEqual(r.tensors.map((t) => [t.name, t.dims, t.typeId === 0 ? 'F32' : 'Q4_0', t.start]));
      expect(h.kvByKey.get('general.architecture')?.value).toBe(arch);
      expect(r.vocab).toBe(VOCABS[arch]);

      const v = await header(vocabPath(vocabDir(), VOCABS[arch]));
      const tokenizerKeys = v.h.kv.filter((e) => e.key.startsWith('tokenizer.')).map((e) => e.key);
      expect(tokenizerKeys.length).toBeGreaterThan(3);
      for (const key of tokenizerKeys) expect(Buffer.compare(rawValue(h, bytes, key), rawValue(v.h, v.bytes, key)), key).toBe(0);
      const tokens = h.kvByKey.get('tokenizer.ggml.tokens')?.value as { items: unknown[] };
      expect(r.nVocab).toBe(tokens.items.length);
      expect(h.tensors.find((t) => t.name === 'token_embd.weight')?.dims).toEqual([r.shape.nEmbd, r.nVocab]);
      expect(typeof h.kvByKey.get('tokenizer.chat_template')?.value).toBe('string');
      // the norms are exactly 1.0 (F32)
      const norm = h.tensors.find((t) => t.name === 'blk.0.attn_norm.weight')!;
      expect(Array.from(new Float32Array(Uint8Array.from(bytes.subarray(norm.start, norm.end)).buffer))).toEqual(new Array(r.shape.nEmbd).fill(1));
    });
  }

  it('writes every weight type', async () => {
    for (const type of WEIGHT_TYPES.filter((t) => t !== 'MXFP4')) {
      const out = join(dir, `t-${type}.gguf`);
      const r = await synthesize({ arch: 'llama', preset: 'tiny', type, seed: 1, out, overrides: { nLayer: 1 } });
      const { h } = await header(out);
      const typesOf2d = new Set(h.tensors.filter((t) => t.dims.length === 2).map((t) => t.typeName));
      expect([...typesOf2d]).toEqual([type]);
      expect(h.tensors.filter((t) => t.dims.length === 1).every((t) => t.typeName === 'F32')).toBe(true);
      expect(h.kvByKey.get('general.file_type')?.value).toBe({ F32: 0, F16: 1, Q4_0: 2, Q8_0: 7, Q4_K: 14 }[type as string]);
      expect(r.bytes).toBe(h.fileSize);
      await rm(out);
    }
  });

  it('is deterministic by seed, and leaves no temp file behind', async () => {
    const a = join(dir, 'a.gguf');
    const b = join(dir, 'b.gguf');
    const c = join(dir, 'c.gguf');
    const opts = { arch: 'qwen2', preset: 'tiny', type: 'Q4_K', overrides: { nLayer: 1 } } as const;
    await synthesize({ ...opts, seed: 99, out: a });
    await synthesize({ ...opts, seed: 99, out: b });
    await synthesize({ ...opts, seed: 100, out: c });
    expect(await sha256(a)).toBe(await sha256(b));
    expect(await sha256(a)).not.toBe(await sha256(c));
    expect((await readdir(dir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('reports progress up to the file size', async () => {
    const seen: [number, number][] = [];
    const r = await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q8_0', seed: 1, out: join(dir, 'p.gguf') }, (w, t) => seen.push([w, t]));
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.at(-1)).toEqual([r.bytes, r.bytes]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
  });

  it('fails with SynthInputError on bad input, and cleans up on write errors', async () => {
    await expect(synthesize({ arch: 'bloom', preset: 'tiny', type: 'Q4_0', seed: 1, out: join(dir, 'x.gguf') })).rejects.toBeInstanceOf(SynthInputError);
    await expect(synthesize({ arch: 'llama', preset: 'tiny', type: 'IQ2_XS', seed: 1, out: join(dir, 'x.gguf') })).rejects.toBeInstanceOf(SynthInputError);
    await expect(synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, out: join(dir, 'x.gguf'), vocab: 'nope' })).rejects.toThrow(/no vocab 'nope'/);
    // A missing folder is created; a path through a regular file cannot be, and nothing is left.
    await writeFile(join(dir, 'a-file'), 'x');
    await expect(synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, out: join(dir, 'a-file', 'x.gguf') })).rejects.toThrow();
    expect((await readdir(dir)).filter((n) => n.startsWith('x.gguf'))).toEqual([]);
  });
});
