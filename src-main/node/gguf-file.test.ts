import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openGgufModel, readGgufHeaderFile, FIRST_READ_BYTES } from './gguf-file.js';
import { vocabDir } from './paths.js';
import { GgufError } from '../shared/gguf/reader-errors.js';
import { buildGguf } from '../shared/gguf/build-gguf.test-util.js';
import { tinyModel, tinySpec } from '../shared/gguf/tiny-models.test-util.js';
import { splitSpec } from '../shared/gguf/split-set.test-util.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-gguf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function expectGgufError(p: Promise<unknown>, code: string, re: RegExp): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GgufError);
  expect((err as GgufError).code).toBe(code);
  expect((err as GgufError).message).toMatch(re);
}

describe('openGgufModel', () => {
  it('reads only the header region of a file with a large payload', async () => {
    const spec = tinySpec({ embd: 512, ff: 2048, vocab: 1024, layers: 2 });
    const { bytes } = buildGguf(spec);
    expect(bytes.length).toBeGreaterThan(8 * FIRST_READ_BYTES);
    const p = join(dir, 'big.gguf');
    await writeFile(p, bytes);
    const m = await openGgufModel(p);
    expect(m.bytesRead).toBeLessThanOrEqual(FIRST_READ_BYTES);
    expect(m.view.tensorBytes + m.view.shards[0]!.dataOffset).toBeLessThanOrEqual(bytes.length);
    expect(m.view.layers.length).toBe(2);
  });

  it('grows its read when the header is bigger than the first read', async () => {
    const spec = tinySpec({ vocab: 200_000 });
    const { bytes } = buildGguf(spec);
    const p = join(dir, 'bigvocab.gguf');
    await writeFile(p, bytes);
    const r = await readGgufHeaderFile(p);
    expect(r.bytesRead).toBeGreaterThan(FIRST_READ_BYTES);
    expect(r.header.tensors.length).toBe(spec.tensors!.length);
  });

  it('refuses a header region over the cap', async () => {
    const p = join(dir, 'bigvocab.gguf');
    await expectGgufError(readGgufHeaderFile(p, { maxHeaderBytes: 1024 * 1024 }), 'HEADER_TOO_LARGE', /refusing to read it/);
  });

  it('opens a split set from any shard, and a directory holding it', async () => {
    const sub = join(dir, 'split');
    await mkdir(sub);
    const spec = tinySpec({ layers: 3 });
    const parts = splitSpec(spec, 3);
    for (const [i, b] of parts.entries()) await writeFile(join(sub, `m-0000${i + 1}-of-00003.gguf`), b);
    const a = await openGgufModel(join(sub, 'm-00002-of-00003.gguf'));
    expect(a.shards.map((s) => s.path.slice(-22))).toEqual(['m-00001-of-00003.gguf', 'm-00002-of-00003.gguf', 'm-00003-of-00003.gguf'].map((n) => n.padStart(22, '/')));
    const b = await openGgufModel(sub);
    expect(b.view.tensorBytes).toBe(a.view.tensorBytes);
    expect(b.view.layers.length).toBe(3);
  });

  it('refuses a split set with a missing shard', async () => {
    const sub = join(dir, 'split-missing');
    await mkdir(sub);
    const parts = splitSpec(tinySpec({ layers: 3 }), 3);
    await writeFile(join(sub, 'm-00001-of-00003.gguf'), parts[0]!);
    await writeFile(join(sub, 'm-00003-of-00003.gguf'), parts[2]!);
    await expectGgufError(openGgufModel(join(sub, 'm-00001-of-00003.gguf')), 'SPLIT', /shard 2 of 3 is missing/);
  });

  it('a directory with one model is accepted; with two it is refused, naming both', async () => {
    const one = join(dir, 'one');
    await mkdir(one);
    await writeFile(join(one, 'a.gguf'), tinyModel());
    expect((await openGgufModel(one)).view.architecture).toBe('llama');
    await writeFile(join(one, 'b.gguf'), tinyModel({ arch: 'qwen2' }));
    await expectGgufError(openGgufModel(one), 'AMBIGUOUS_DIRECTORY', /2 different models \(a\.gguf, b\.gguf\)/);
  });

  it('missing paths, empty directories and non-GGUF files are GgufErrors', async () => {
    await expectGgufError(openGgufModel(join(dir, 'nope.gguf')), 'NO_MODEL', /no such file/);
    const empty = join(dir, 'empty');
    await mkdir(empty);
    await expectGgufError(openGgufModel(empty), 'NO_MODEL', /holds no .gguf file/);
    const txt = join(dir, 'x.gguf');
    await writeFile(txt, 'hello, this is not a model');
    await expectGgufError(openGgufModel(txt), 'BAD_MAGIC', /x\.gguf: not a GGUF file/);
  });
});

describe("llama.cpp's real vocab GGUF files", () => {
  it('every models/ggml-vocab-*.gguf parses (real-world input)', async () => {
    const d = vocabDir();
    if (!existsSync(d)) {
      if (process.env.CI === 'true') throw new Error(`llama.cpp source missing at ${d}`);
      console.warn(`skipping: llama.cpp source not fetched (${d})`);
      return;
    }
    const files = (await readdir(d)).filter((f) => /^ggml-vocab-.*\.gguf$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const m = await openGgufModel(join(d, f));
      expect(m.view.vocabOnly, f).toBe(true);
      expect(m.view.vocabSize, f).toBeGreaterThan(1000);
      expect(m.view.tokenizerModel, f).toBeTruthy();
      expect(m.view.architecture, f).toBeTruthy();
    }
  });
});
