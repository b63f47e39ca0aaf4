// Test helper: a fake home folder holding models the way the ecosystem stores them — Ollama's
// store (real manifest format, blobs named by their sha256), LM Studio's folders, the Hugging
// Face hub cache (snapshots symlinked into blobs), llama.cpp's cache, Downloads — with
// synthetic GGUFs, plus the broken cases (corrupt manifest, missing blob, malformed GGUF,
// broken link, incomplete split set) and files that are not chat models.
import { createHash } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GgufValueType as V } from '../../shared/gguf/ggml-types.js';
import { buildGguf } from '../../shared/gguf/build-gguf.test-util.js';
import { tinyModel, tinySpec } from '../../shared/gguf/tiny-models.test-util.js';
import { splitSpec } from '../../shared/gguf/split-set.test-util.js';
import type { DiscoverySource, ModelKind } from '../../shared/discovery/types.js';

export interface Expected {
  source: DiscoverySource;
  name: string;
  kind: ModelKind;
  /** A fragment of the reason (unreadable and non-chat entries). */
  reason?: RegExp;
}

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

async function put(path: string, bytes: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}

export function projectorGguf(): Uint8Array {
  return buildGguf({
    kv: [
      { key: 'general.architecture', type: V.STRING, value: 'clip' },
      { key: 'general.type', type: V.STRING, value: 'mmproj' },
    ],
    tensors: [{ name: 'v.patch_embd.weight', dims: [8, 8], type: 0 }],
  }).bytes;
}

export function loraGguf(): Uint8Array {
  return buildGguf({
    kv: [
      { key: 'general.architecture', type: V.STRING, value: 'llama' },
      { key: 'general.type', type: V.STRING, value: 'adapter' },
      { key: 'adapter.type', type: V.STRING, value: 'lora' },
      { key: 'adapter.lora.alpha', type: V.FLOAT32, value: 16 },
    ],
    tensors: [
      { name: 'blk.0.attn_q.weight.lora_a', dims: [32, 4], type: 0 },
      { name: 'blk.0.attn_q.weight.lora_b', dims: [4, 32], type: 0 },
    ],
  }).bytes;
}

export function vocabOnlyGguf(): Uint8Array {
  const spec = tinySpec();
  return buildGguf({ kv: spec.kv ?? [], tensors: [] }).bytes;
}

/** Writes an Ollama model: blobs by digest and a manifest as `ollama pull` leaves them. */
export async function writeOllamaModel(store: string, nameParts: string[], layers: { mediaType: string; bytes: Uint8Array | string; missing?: boolean }[]): Promise<void> {
  const config = JSON.stringify({ model_format: 'gguf', model_family: 'llama', file_type: 'Q8_0', architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } });
  const blobs = [{ mediaType: 'application/vnd.docker.container.image.v1+json', bytes: config }, ...layers];
  for (const b of blobs) if (!('missing' in b && b.missing)) await put(join(store, 'blobs', `sha256-${sha(b.bytes)}`), b.bytes);
  const desc = (b: { mediaType: string; bytes: Uint8Array | string }) => ({ mediaType: b.mediaType, digest: `sha256:${sha(b.bytes)}`, size: typeof b.bytes === 'string' ? Buffer.byteLength(b.bytes) : b.bytes.length });
  const manifest = { schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', config: desc(blobs[0]!), layers: layers.map(desc) };
  await put(join(store, 'manifests', ...nameParts), JSON.stringify(manifest));
}

/** Writes a Hugging Face cache repo: blobs by sha256, snapshots/<rev> symlinked into them, refs/main. */
export async function writeHfRepo(hub: string, repoId: string, files: { path: string; bytes: Uint8Array; brokenLink?: boolean }[]): Promise<void> {
  const dir = join(hub, `models--${repoId.replace('/', '--')}`);
  const rev = sha(repoId).slice(0, 40);
  await put(join(dir, 'refs', 'main'), rev);
  for (const f of files) {
    const blob = sha(f.bytes);
    if (!f.brokenLink) await put(join(dir, 'blobs', blob), f.bytes);
    const link = join(dir, 'snapshots', rev, f.path);
    await mkdir(dirname(link), { recursive: true });
    const depth = f.path.split('/').length + 1;
    await symlink(`${'../'.repeat(depth)}blobs/${blob}`, link);
  }
}

/** Builds the fake home; returns what discovery must list from it (the added folder included). */
export async function buildFakeHome(home: string, extraDir: string): Promise<Expected[]> {
  const ollama = join(home, '.ollama', 'models');
  const MODEL = 'application/vnd.ollama.image.model';
  const TEMPLATE = 'application/vnd.ollama.image.template';
  await writeOllamaModel(ollama, ['registry.ollama.ai', 'library', 'tinyllama', 'latest'], [
    { mediaType: MODEL, bytes: tinyModel({ arch: 'llama', name: 'ollama-tiny-llama' }) },
    { mediaType: TEMPLATE, bytes: '{{ .Prompt }}' },
    { mediaType: 'application/vnd.ollama.image.params', bytes: '{"stop":["</s>"]}' },
  ]);
  await writeOllamaModel(ollama, ['registry.ollama.ai', 'library', 'llava-tiny', '7b'], [
    { mediaType: MODEL, bytes: tinyModel({ arch: 'llama', name: 'llava-tiny-text' }) },
    { mediaType: 'application/vnd.ollama.image.projector', bytes: projectorGguf() },
  ]);
  await writeOllamaModel(ollama, ['hf.co', 'someorg', 'Tiny-Qwen-GGUF', 'Q8_0'], [{ mediaType: MODEL, bytes: tinyModel({ arch: 'qwen2', name: 'hf-qwen' }) }]);
  await writeOllamaModel(ollama, ['registry.ollama.ai', 'library', 'gone', 'latest'], [{ mediaType: MODEL, bytes: tinyModel({ name: 'never-written' }), missing: true }]);
  await put(join(ollama, 'manifests', 'registry.ollama.ai', 'library', 'broken', 'latest'), '{"schemaVersion":2,"layers":[{"mediaType":');

  const lms = join(home, '.lmstudio', 'models');
  await put(join(lms, 'lmstudio-community', 'Tiny-Qwen2-GGUF', 'tiny-qwen2-Q8_0.gguf'), tinyModel({ arch: 'qwen2', matType: 8, name: 'lms-qwen' }));
  const shards = splitSpec(tinySpec({ arch: 'llama', layers: 4 }), 2);
  await put(join(lms, 'bartowski', 'Split-GGUF', 'split-model-00001-of-00002.gguf'), shards[0]!);
  await put(join(lms, 'bartowski', 'Split-GGUF', 'split-model-00002-of-00002.gguf'), shards[1]!);
  await put(join(lms, 'bartowski', 'Half-GGUF', 'half-00001-of-00003.gguf'), splitSpec(tinySpec({ layers: 3 }), 3)[0]!);
  await put(join(lms, 'bartowski', 'Split-GGUF', 'mmproj-model-f16.gguf'), projectorGguf());
  await put(join(lms, 'tokenizers', 'vocab', 'ggml-vocab-llama.gguf'), vocabOnlyGguf());
  await put(join(lms, 'junk', 'bad', 'not-really.gguf'), 'this is not a GGUF file\n'.repeat(10));
  await put(join(lms, 'someone', 'Lfs-GGUF', 'model-Q4_0.gguf'), 'version https://git-lfs.github.com/spec/v1\noid sha256:' + 'ab'.repeat(32) + '\nsize 4661211424\n');
  await put(join(home, '.cache', 'lm-studio', 'models', 'olduser', 'OldRepo', 'old-model.gguf'), tinyModel({ arch: 'gptneox', name: 'old-lms' }));

  const hub = join(home, '.cache', 'huggingface', 'hub');
  await writeHfRepo(hub, 'TheOrg/Tiny-GGUF', [
    { path: 'tiny-Q8_0.gguf', bytes: tinyModel({ arch: 'llama', matType: 8, name: 'hf-tiny' }) },
    { path: 'lora/tiny-lora.gguf', bytes: loraGguf() },
    { path: 'tiny-F32.gguf', bytes: tinyModel({ arch: 'llama', name: 'never-finished' }), brokenLink: true },
  ]);
  await put(join(hub, 'models--TheOrg--Tiny-GGUF', 'blobs', 'abc.incomplete'), 'partial');

  await put(join(home, '.cache', 'llama.cpp', 'ggml-org_tiny-GGUF_tiny-neox.gguf'), tinyModel({ arch: 'gptneox', name: 'llamacpp-neox' }));
  await put(join(home, '.cache', 'llama.cpp', 'ggml-org_tiny-GGUF_tiny-neox.gguf.json'), '{"etag":"x"}');
  await put(join(home, 'Downloads', 'downloaded.gguf'), tinyModel({ name: 'from-downloads' }));
  await put(join(home, 'Downloads', 'deep', 'ignored.gguf'), tinyModel({ name: 'too-deep' }));
  await put(join(extraDir, 'nested', 'mine.gguf'), tinyModel({ arch: 'qwen2', name: 'added-folder' }));

  return [
    { source: 'ollama', name: 'broken:latest', kind: 'unreadable', reason: /manifest is not valid JSON/ },
    { source: 'ollama', name: 'gone:latest', kind: 'unreadable', reason: /blob sha256-[0-9a-f]{64} named by the manifest is missing/ },
    { source: 'ollama', name: 'llava-tiny:7b', kind: 'model' },
    { source: 'ollama', name: 'llava-tiny:7b (projector)', kind: 'projector', reason: /multimodal projector/ },
    { source: 'ollama', name: 'tinyllama:latest', kind: 'model' },
    { source: 'ollama', name: 'hf.co/someorg/Tiny-Qwen-GGUF:Q8_0', kind: 'model' },
    { source: 'lmstudio', name: 'bartowski/Half-GGUF/half (3 shards)', kind: 'unreadable', reason: /split set incomplete: shards 2, 3 of 3 missing/ },
    { source: 'lmstudio', name: 'bartowski/Split-GGUF/mmproj-model-f16.gguf', kind: 'projector', reason: /multimodal projector/ },
    { source: 'lmstudio', name: 'bartowski/Split-GGUF/split-model (2 shards)', kind: 'model' },
    { source: 'lmstudio', name: 'junk/bad/not-really.gguf', kind: 'unreadable', reason: /not a GGUF file: magic is 'this'/ },
    { source: 'lmstudio', name: 'lmstudio-community/Tiny-Qwen2-GGUF/tiny-qwen2-Q8_0.gguf', kind: 'model' },
    { source: 'lmstudio', name: 'someone/Lfs-GGUF/model-Q4_0.gguf', kind: 'unreadable', reason: /a Git LFS pointer, not the model/ },
    { source: 'lmstudio', name: 'tokenizers/vocab/ggml-vocab-llama.gguf', kind: 'vocab-only', reason: /vocabulary only/ },
    { source: 'lmstudio', name: 'olduser/OldRepo/old-model.gguf', kind: 'model' },
    { source: 'huggingface', name: 'TheOrg/Tiny-GGUF/lora/tiny-lora.gguf', kind: 'adapter', reason: /LoRA adapter for llama/ },
    { source: 'huggingface', name: 'TheOrg/Tiny-GGUF/tiny-F32.gguf', kind: 'unreadable', reason: /broken link/ },
    { source: 'huggingface', name: 'TheOrg/Tiny-GGUF/tiny-Q8_0.gguf', kind: 'model' },
    { source: 'llama.cpp', name: 'ggml-org_tiny-GGUF_tiny-neox.gguf', kind: 'model' },
    { source: 'downloads', name: 'downloaded.gguf', kind: 'model' },
    { source: 'folder', name: 'nested/mine.gguf', kind: 'model' },
  ];
}

/** The environment variables discovery reads, cleared so a test sees only its fake home. */
export const DISCOVERY_ENV_KEYS = ['OLLAMA_MODELS', 'HF_HOME', 'HF_HUB_CACHE', 'HUGGINGFACE_HUB_CACHE', 'LLAMA_CACHE', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'RAMFORGE_DATA'] as const;
