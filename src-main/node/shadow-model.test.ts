import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openGgufModel } from './gguf-file.js';
import { writeShadow } from './shadow-model.js';
import { buildGguf } from '../shared/gguf/build-gguf.test-util.js';
import { tinySpec } from '../shared/gguf/tiny-models.test-util.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-shadow-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeShadow', () => {
  it('copies the header byte for byte, keeps the size, and leaves the tensor data a hole that reads as zeros', async () => {
    const { bytes } = buildGguf(tinySpec({ embd: 512, ff: 2048, vocab: 1024, layers: 2 }));
    const src = join(dir, 'm.gguf');
    await writeFile(src, bytes);
    const model = await openGgufModel(src);
    const shadow = await writeShadow(model, join(dir, 'sub', 'shadow.gguf'));
    const header = model.shards[0]!.header.dataOffset;
    const copy = await readFile(shadow);
    expect(copy.length).toBe(bytes.length);
    expect(copy.subarray(0, header).equals(Buffer.from(bytes.subarray(0, header)))).toBe(true);
    expect(copy.subarray(header).every((b) => b === 0)).toBe(true);
    // Parsed as the model is: the same tensors at the same offsets.
    const again = await openGgufModel(shadow);
    expect(again.view.tensors.map((t) => [t.name, t.typeId, t.offset])).toEqual(model.view.tensors.map((t) => [t.name, t.typeId, t.offset]));
    // Sparse where the file system allows: far fewer blocks than bytes.
    const st = await stat(shadow);
    expect(st.blocks * 512).toBeLessThan(bytes.length);
  });

  it('refuses a header that ends early, leaving nothing behind', async () => {
    const { bytes } = buildGguf(tinySpec({ embd: 64, ff: 128, vocab: 256, layers: 1 }));
    const src = join(dir, 'cut.gguf');
    await writeFile(src, bytes);
    const model = await openGgufModel(src);
    const h = await open(src, 'r+');
    await h.truncate(16);
    await h.close();
    await expect(writeShadow(model, join(dir, 'cut-shadow.gguf'))).rejects.toThrow(/header ended early/);
    expect(existsSync(join(dir, 'cut-shadow.gguf'))).toBe(false);
  });
});
