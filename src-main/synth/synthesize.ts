// Writes a synthetic GGUF: header from the planner and the GGUF writer, then every tensor's
// payload generated chunk by chunk into two alternating buffers, so generating one chunk
// overlaps writing the previous one. Output goes to `<out>.tmp-<pid>` and is renamed at the end.
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { buildGgufLayout } from '../shared/gguf/writer.js';
import type { TensorPlacement } from '../shared/gguf/writer-types.js';
import { vocabDir } from '../node/paths.js';
import { makeFiller } from './generate.js';
import { checkArch, checkPreset, planSynth } from './plan.js';
import { Xoshiro128, hashString } from './prng.js';
import type { ArchName, ModelShape, PresetName, ShapeOverrides, WeightType } from './shape.js';
import { readVocab } from './vocab.js';
import { defaultVocab } from './presets.js';

export interface SynthOptions {
  readonly arch: ArchName | string;
  readonly preset: PresetName | string;
  readonly type: WeightType | string;
  readonly seed: number;
  readonly out: string;
  readonly overrides?: ShapeOverrides;
  /** Vocab file name (models/ggml-vocab-NAME.gguf); default per arch and preset. */
  readonly vocab?: string;
  /** Folder of the vocab files; default the pinned llama.cpp source's models/. */
  readonly vocabDir?: string;
  readonly name?: string;
  /** false: write no chat template (a base model); default true. */
  readonly chatTemplate?: boolean;
  /** true: write the tool-calling ChatML template (see TOOLS_CHATML_TEMPLATE). */
  readonly toolTemplate?: boolean;
  /** This Jinja text as the chat template, in place of any other. */
  readonly chatTemplateText?: string;
}

export interface SynthTensor extends TensorPlacement {
  readonly role: string;
}

export interface SynthResult {
  readonly path: string;
  readonly bytes: number;
  readonly params: number;
  readonly layers: number;
  readonly arch: ArchName;
  readonly shape: ModelShape;
  readonly nVocab: number;
  readonly vocab: string;
  readonly dataOffset: number;
  readonly tensors: readonly SynthTensor[];
  readonly seconds: number;
}

const CHUNK_BYTES = 8 * 1024 * 1024;

export async function synthesize(opts: SynthOptions, onProgress?: (written: number, total: number) => void): Promise<SynthResult> {
  const t0 = performance.now();
  const arch = checkArch(opts.arch);
  const preset = checkPreset(opts.preset);
  const vocabName = opts.vocab ?? defaultVocab(arch, preset);
  const vocab = await readVocab(opts.vocabDir ?? vocabDir(), vocabName);
  const plan = planSynth({ arch, preset, type: opts.type, seed: opts.seed, overrides: opts.overrides, name: opts.name, chatTemplate: opts.chatTemplate, toolTemplate: opts.toolTemplate, chatTemplateText: opts.chatTemplateText }, vocab);
  const layout = buildGgufLayout(plan.kv, plan.tensors);

  const out = resolve(opts.out);
  const tmp = `${out}.tmp-${process.pid}`;
  await mkdir(dirname(out), { recursive: true });
  const fh = await open(tmp, 'w');
  let ok = false;
  try {
    await fh.write(layout.header, 0, layout.header.length, 0);
    const total = layout.fileSize;
    let written = layout.header.length;
    onProgress?.(written, total);
    const bufs = [new Uint8Array(CHUNK_BYTES), new Uint8Array(CHUNK_BYTES)];
    const inflight: (Promise<unknown> | undefined)[] = [undefined, undefined];
    let slot = 0;
    for (let i = 0; i < plan.tensors.length; i++) {
      const t = plan.tensors[i] as (typeof plan.tensors)[number];
      const place = layout.tensors[i] as TensorPlacement;
      const filler = makeFiller(t.typeId, t.init, new Xoshiro128(opts.seed, hashString(t.name)));
      const chunk = Math.floor(CHUNK_BYTES / filler.typeSize) * filler.typeSize;
      for (let done = 0; done < place.nbytes; ) {
        const n = Math.min(chunk, place.nbytes - done);
        await inflight[slot];
        const buf = bufs[slot] as Uint8Array;
        filler.fill(buf.subarray(0, n));
        const at = place.start + done;
        inflight[slot] = fh.write(buf, 0, n, at).then(() => {
          written += n;
          onProgress?.(written, total);
        });
        slot ^= 1;
        done += n;
      }
    }
    await Promise.all(inflight);
    // Alignment padding between tensors and after the last one: zeros, as gguf.cpp writes.
    await fh.truncate(layout.fileSize);
    // Durable before the rename makes it visible; it also leaves the page cache clean, so a
    // residency policy (or a cold start) can drop the model's pages right away.
    await fh.sync();
    onProgress?.(total, total);
    ok = true;
  } finally {
    await fh.close();
    if (!ok) await unlink(tmp).catch(() => undefined);
  }
  await rename(tmp, out);
  const roles = new Map(plan.tensors.map((t) => [t.name, t.role]));
  return {
    path: out,
    bytes: layout.fileSize,
    params: plan.params,
    layers: plan.shape.nLayer,
    arch,
    shape: plan.shape,
    nVocab: plan.nVocab,
    vocab: vocab.name,
    dataOffset: layout.dataOffset,
    tensors: layout.tensors.map((p) => ({ ...p, role: roles.get(p.name) as string })),
    seconds: (performance.now() - t0) / 1000,
  };
}

