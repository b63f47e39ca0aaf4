// A model's shadow: its GGUF file with the header (metadata, tokenizer, tensor table) copied byte
// for byte and the tensor data left a hole of the same size, which reads as zeros without a byte
// read from storage. A run of the shadow under a schedule computes everything the model's run
// computes (the same graph, kernels, slots and copies) and waits for no device: its decode time
// is that schedule's compute, measured (cli/shadow-compute.ts). The file is sparse: it takes the
// header's bytes on disk, whatever its size.
import { open, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheRoot } from './paths.js';
import type { OpenedModel } from './gguf-file.js';

/** Where shadows are written while they are measured (removed after). */
export function shadowDir(): string {
  return join(cacheRoot(), 'shadow');
}

/**
 * Writes the shadow of a one-file model at `dst` and returns its path. Throws when the model is
 * split over several files (their shadows would need the split's own names).
 */
export async function writeShadow(model: OpenedModel, dst: string): Promise<string> {
  if (model.shards.length !== 1) throw new Error('a model split over several files has no shadow');
  const shard = model.shards[0]!;
  const size = (await stat(shard.path)).size;
  const headerBytes = shard.header.dataOffset;
  const header = Buffer.alloc(headerBytes);
  const src = await open(shard.path, 'r');
  try {
    const { bytesRead } = await src.read(header, 0, headerBytes, 0);
    if (bytesRead !== headerBytes) throw new Error(`${shard.path}: its header ended early (${bytesRead} of ${headerBytes} bytes)`);
  } finally {
    await src.close();
  }
  await mkdir(dirname(dst), { recursive: true });
  const out = await open(dst, 'w', 0o600);
  try {
    await out.write(header, 0, headerBytes, 0);
    await out.truncate(size);
  } catch (e) {
    await out.close();
    await rm(dst, { force: true });
    throw e;
  }
  await out.close();
  return dst;
}
