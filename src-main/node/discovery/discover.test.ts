import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFakeHome, writeOllamaModel, type Expected } from './fake-home.test-util.js';
import { tinyModel } from '../../shared/gguf/tiny-models.test-util.js';
import { discoverModels, findCandidates } from './discover.js';
import { discoveryRoots } from './locations.js';
import type { DiscoveredModel } from '../../shared/discovery/types.js';

let tmp = '';
let home = '';
let extra = '';
let expected: Expected[] = [];

const key = (m: { source: string; name: string }) => `${m.source} ${m.name}`;
const places = () => ({ home, env: {}, dirs: [extra], includeSystem: false });

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'ramforge-discover-'));
  home = join(tmp, 'home');
  extra = join(tmp, 'extra');
  expected = await buildFakeHome(home, extra);
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function treeSnapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(`${p} ${e.isSymbolicLink() ? 'link' : (await stat(p)).size}`);
    }
  };
  await walk(dir);
  return out.sort();
}

describe('model discovery in a fake home', () => {
  let models: DiscoveredModel[] = [];
  let before: string[] = [];
  beforeAll(async () => {
    before = await treeSnapshot(tmp);
    ({ models } = await discoverModels(places(), () => ({ verdict: 'fits', reason: 'test', ctx: 256, ramUsedBytes: 1, minimumRamBytes: 1, fullResidencyRamBytes: 1, bytesReadPerToken: 0, predictedDecodeTokS: null })));
  });

  it('lists exactly the models in the Ollama, LM Studio, Hugging Face, llama.cpp, Downloads and added-folder layouts, with names and sources', () => {
    expect(models.map(key).sort()).toEqual(expected.map(key).sort());
  });

  it('labels every entry with its kind; only chat models are offered for chat and planned', () => {
    for (const e of expected) {
      const m = models.find((x) => key(x) === key(e))!;
      expect(m.kind, key(e)).toBe(e.kind);
      expect(m.chat, key(e)).toBe(e.kind === 'model');
      expect(m.plan !== null, key(e)).toBe(e.kind === 'model');
      if (e.reason) expect(m.reason, key(e)).toMatch(e.reason);
      if (e.kind === 'model') expect(m.reason).toBeNull();
    }
  });

  it('Ollama entries point at the blob the manifest names; split sets are one entry with their shards in order', () => {
    const ollama = models.find((m) => m.name === 'tinyllama:latest')!;
    expect(ollama.path).toMatch(/\.ollama\/models\/blobs\/sha256-[0-9a-f]{64}$/);
    expect(ollama.modelName).toBe('ollama-tiny-llama');
    expect(ollama.architecture).toBe('llama');
    const split = models.find((m) => m.name.endsWith('split-model (2 shards)'))!;
    expect(split.files.map((f) => f.split('/').pop())).toEqual(['split-model-00001-of-00002.gguf', 'split-model-00002-of-00002.gguf']);
    expect(split.path).toBe(split.files[0]);
    expect(split.fileBytes).toBeGreaterThan(0);
    const hf = models.find((m) => m.name === 'TheOrg/Tiny-GGUF/tiny-Q8_0.gguf')!;
    expect(hf.path).toContain('/snapshots/');
    expect(hf.quantization).toBe('Q8_0');
  });

  it('unreadable files say why, with the reader message and offset for a malformed GGUF', () => {
    const bad = models.find((m) => m.name === 'junk/bad/not-really.gguf')!;
    expect(bad.reason).toBe("not a GGUF file: magic is 'this', expected 'GGUF' (at byte offset 0)");
    expect(bad.fileBytes).toBeGreaterThan(0);
  });

  it('reads only: nothing in the home is created, changed, moved or removed', async () => {
    expect(await treeSnapshot(tmp)).toEqual(before);
  });
});

describe('discovery places', () => {
  it('OLLAMA_MODELS, HF_HOME, LLAMA_CACHE and XDG_CACHE_HOME move the stores; a missing folder is reported, not fatal', async () => {
    const alt = join(tmp, 'alt');
    await writeOllamaModel(join(alt, 'ollama'), ['registry.ollama.ai', 'me', 'custom', 'q4'], [{ mediaType: 'application/vnd.ollama.image.model', bytes: tinyModel({ name: 'custom' }) }]);
    const env = { OLLAMA_MODELS: join(alt, 'ollama'), HF_HOME: join(alt, 'hf'), LLAMA_CACHE: join(alt, 'llama'), XDG_CACHE_HOME: join(alt, 'cache') };
    const roots = discoveryRoots({ home, env, includeSystem: false });
    expect(roots.find((r) => r.source === 'ollama')?.path).toBe(env.OLLAMA_MODELS);
    expect(roots.find((r) => r.source === 'huggingface')?.path).toBe(join(env.HF_HOME, 'hub'));
    expect(roots.find((r) => r.source === 'llama.cpp')?.path).toBe(env.LLAMA_CACHE);
    const { roots: seen, models } = await discoverModels({ home, env, includeSystem: false }, null);
    expect(models.filter((m) => m.source === 'ollama').map((m) => m.name)).toEqual(['me/custom:q4']);
    expect(seen.find((r) => r.source === 'huggingface')?.present).toBe(false);
    // No planner: chat models carry no plan.
    expect(models.every((m) => m.plan === null)).toBe(true);
  });

  it('the same file reached twice (an added folder inside a store, a symlink) is listed once, under the first source', async () => {
    const link = join(tmp, 'linked');
    await symlink(join(home, '.lmstudio', 'models', 'lmstudio-community'), link);
    const { candidates } = await findCandidates({ home, env: {}, dirs: [join(home, '.lmstudio', 'models'), link], includeSystem: false });
    const qwen = candidates.filter((c) => c.name.endsWith('tiny-qwen2-Q8_0.gguf'));
    expect(qwen.map((c) => c.source)).toEqual(['lmstudio']);
  });
});
