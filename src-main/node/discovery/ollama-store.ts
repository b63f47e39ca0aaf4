// Models in an Ollama store: each manifest under manifests/ names its GGUF blobs by digest
// (blobs/sha256-<hex>). A manifest that cannot be used or a missing blob is a candidate with
// the problem, listed as unreadable; nothing here is fatal.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Candidate } from '../../shared/discovery/types.js';
import { MAX_MANIFEST_BYTES, ollamaModelName, parseOllamaManifest } from '../../shared/discovery/ollama-manifest.js';
import { findGgufFiles } from './walk.js';

export async function ollamaCandidates(root: string): Promise<Candidate[]> {
  const manifests = join(root, 'manifests');
  // registry/namespace/model/tag: every file at that depth is a manifest.
  const found = await findGgufFiles(manifests, { maxDepth: 4, maxEntries: 20_000 }, () => true);
  const out: Candidate[] = [];
  for (const rel of found.files) {
    const parts = rel.split('/');
    const name = ollamaModelName(parts);
    const manifest = join(manifests, ...parts);
    const bad = (problem: string): void => void out.push({ source: 'ollama', root, name, files: [manifest], problem });
    let text: string;
    try {
      const s = await stat(manifest);
      if (s.size > MAX_MANIFEST_BYTES) {
        bad(`manifest is ${s.size} bytes, too big to be one`);
        continue;
      }
      text = await readFile(manifest, 'utf8');
    } catch (e) {
      bad(`manifest cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      continue;
    }
    let layers;
    try {
      layers = parseOllamaManifest(text);
    } catch (e) {
      bad((e as Error).message);
      continue;
    }
    for (const layer of layers) {
      const blob = join(root, 'blobs', layer.blob);
      const label = layer.role === 'model' ? name : `${name} (${layer.role})`;
      let problem: string | undefined;
      try {
        await stat(blob);
      } catch {
        problem = `blob ${layer.blob} named by the manifest is missing (an interrupted ollama pull?)`;
      }
      out.push({ source: 'ollama', root, name: label, files: [blob], ...(problem ? { problem } : {}) });
    }
  }
  return out;
}
