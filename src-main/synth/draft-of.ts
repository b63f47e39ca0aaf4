// `ramforge synth --draft-of TARGET --layers N`: writes a draft made of the target's own first
// N layers (shared/draft/draft-subset.ts), copying their bytes. Such a draft shares every
// weight with its target, so the worker points it at the target's copy and it costs no memory.
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { buildGgufLayout } from '../shared/gguf/writer.js';
import { planDraftSubset, DraftSubsetError } from '../shared/draft/draft-subset.js';
import { readGgufHeaderFile, resolveModelFiles } from '../node/gguf-file.js';

export interface DraftOfResult {
  path: string;
  bytes: number;
  layers: number;
  targetLayers: number;
  tensors: number;
}

const CHUNK = 8 * 1024 * 1024;

export async function writeDraftOf(targetPath: string, layers: number, outPath: string, onProgress?: (done: number, total: number) => void): Promise<DraftOfResult> {
  const files = await resolveModelFiles(targetPath);
  if (files.length !== 1) throw new DraftSubsetError(`--draft-of takes a single-file model (${targetPath} is split in ${files.length} shards)`);
  const src = files[0] as string;
  const { header } = await readGgufHeaderFile(src);
  const plan = planDraftSubset(header, layers);
  const layout = buildGgufLayout(
    plan.kv,
    plan.tensors.map((t) => ({ name: t.name, dims: t.dims, typeId: t.typeId })),
  );
  const out = resolve(outPath);
  if (out === resolve(src)) throw new DraftSubsetError('--out must not be the target itself');
  const tmp = `${out}.tmp-${process.pid}`;
  await mkdir(dirname(out), { recursive: true });
  const input = await open(src, 'r');
  const output = await open(tmp, 'w');
  let ok = false;
  try {
    await output.write(layout.header, 0, layout.header.length, 0);
    const total = layout.fileSize;
    let done = layout.header.length;
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let i = 0; i < plan.tensors.length; i++) {
      const from = plan.tensors[i]!;
      const to = layout.tensors[i]!;
      for (let off = 0; off < from.nbytes; off += CHUNK) {
        const n = Math.min(CHUNK, from.nbytes - off);
        const { bytesRead } = await input.read(buf, 0, n, from.start + off);
        if (bytesRead !== n) throw new Error(`${src}: short read at ${from.start + off} (the file changed?)`);
        await output.write(buf, 0, n, to.start + off);
        done += n;
        onProgress?.(done, total);
      }
    }
    await output.truncate(layout.fileSize);
    await output.sync();
    ok = true;
  } finally {
    await input.close();
    await output.close();
    if (!ok) await unlink(tmp).catch(() => undefined);
  }
  await rename(tmp, out);
  return { path: out, bytes: layout.fileSize, layers: plan.layers, targetLayers: plan.targetLayers, tensors: plan.tensors.length };
}
