import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { command as inspect } from './inspect.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand } from './run-command.test-util.js';
import { INSPECT_JSON_SCHEMA } from '../../shared/gguf/inspect-schema.js';
import { buildGguf } from '../../shared/gguf/build-gguf.test-util.js';
import { tinySpec } from '../../shared/gguf/tiny-models.test-util.js';
import type { InspectReport } from '../../shared/gguf/inspect-report.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-inspect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const validate = new Ajv({ allErrors: true, strict: false }).compile(INSPECT_JSON_SCHEMA);

describe('ramforge inspect', () => {
  for (const [arch, matType] of [['llama', 2], ['qwen2', 8], ['gptneox', 0]] as const) {
    it(`${arch}: --json is schema-valid and its byte totals equal the file's tensor bytes`, async () => {
      const spec = tinySpec({ arch, layers: 3, matType });
      const { bytes, offsets } = buildGguf(spec);
      const p = join(dir, `${arch}.gguf`);
      await writeFile(p, bytes);
      const { code, stdout } = await runCommand(inspect, [p, '--json']);
      expect(code).toBe(0);
      const r = JSON.parse(stdout) as InspectReport;
      expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
      expect(r.architecture).toBe(arch);
      expect(r.hyperparameters.blockCount).toBe(3);
      expect(r.layers.length).toBe(3);
      expect(r.fileBytes).toBe((await stat(p)).size);
      expect(r.shards[0]?.dataOffset).toBe(offsets.dataOffset);
      // Every tensor's range lies in the file, the ranges tile the data section, and the totals add up.
      const all = [...r.persistent.tensors, ...r.layers.flatMap((l) => l.tensors)].sort((a, b) => a.start - b.start);
      const sum = all.reduce((a, t) => a + (t.end - t.start), 0);
      expect(r.tensorBytes).toBe(sum);
      expect(r.persistent.bytes + r.layers.reduce((a, l) => a + l.bytes, 0)).toBe(sum);
      expect(all[all.length - 1]?.end).toBe(bytes.length);
      expect(r.quantization.reduce((a, q) => a + q.bytes, 0)).toBe(sum);
      expect(r.metadata.find((m) => m.key === 'tokenizer.ggml.tokens')?.length).toBe(16);
      expect((r.metadata.find((m) => m.key === 'tokenizer.ggml.tokens')?.value as string[]).length).toBe(16);
    });
  }

  it('human view names the model, layers and summarises long arrays', async () => {
    const p = join(dir, 'human.gguf');
    await writeFile(p, buildGguf(tinySpec({ vocab: 500 })).bytes);
    const { code, stdout } = await runCommand(inspect, [p]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/tiny-llama {2}\(llama\)/);
    expect(stdout).toMatch(/Layers \(2\)/);
    expect(stdout).toMatch(/blk\.1 .* same tensors as blk\.0/);
    expect(stdout).toMatch(/tokenizer\.ggml\.tokens +string\[500\] +\["tok0", .*… \(500 string\)\]/);
    expect(stdout).not.toContain('tok499');
  });

  it('a malformed file is a usage error (exit 2) naming the problem and the offset', async () => {
    const p = join(dir, 'bad.gguf');
    const spec = tinySpec();
    spec.tensors![1] = { ...spec.tensors![1]!, nDims: 7 };
    await writeFile(p, buildGguf(spec).bytes);
    const err = await runCommand(inspect, [p]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toMatch(/bad\.gguf: tensor 'blk\.0\.attn_norm\.weight' has 7 dimensions; must be 1 to 4 \(at byte offset \d+\)/);
  });
});
