import { describe, expect, it } from 'vitest';
import { ollamaBlobName, ollamaModelName, parseOllamaManifest } from './ollama-manifest.js';

const d = (c: string) => `sha256:${c.repeat(64)}`;
const manifest = (layers: unknown[]) =>
  JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: d('c'), size: 10 }, layers });

describe("Ollama's manifests", () => {
  it('the model layer names the blob; projector and adapter layers follow; other layers are ignored', () => {
    const layers = parseOllamaManifest(
      manifest([
        { mediaType: 'application/vnd.ollama.image.projector', digest: d('b'), size: 5 },
        { mediaType: 'application/vnd.ollama.image.template', digest: d('e'), size: 1 },
        { mediaType: 'application/vnd.ollama.image.model', digest: d('a'), size: 4661211424 },
      ]),
    );
    expect(layers).toEqual([
      { role: 'model', blob: `sha256-${'a'.repeat(64)}`, size: 4661211424 },
      { role: 'projector', blob: `sha256-${'b'.repeat(64)}`, size: 5 },
    ]);
  });

  it('unusable manifests throw the reason', () => {
    expect(() => parseOllamaManifest('{"layers": [')).toThrow(/not valid JSON/);
    expect(() => parseOllamaManifest('{}')).toThrow(/no "layers" list/);
    expect(() => parseOllamaManifest(manifest([{ mediaType: 'application/vnd.ollama.image.license', digest: d('f') }]))).toThrow(/names no model layer/);
    expect(() => parseOllamaManifest(manifest([{ mediaType: 'application/vnd.ollama.image.model', digest: 'sha256:../../etc/passwd' }]))).toThrow(/malformed digest/);
  });

  it('digests become blob file names only when well formed', () => {
    expect(ollamaBlobName(d('0'))).toBe(`sha256-${'0'.repeat(64)}`);
    expect(ollamaBlobName('sha256:ABC')).toBeNull();
    expect(ollamaBlobName(42)).toBeNull();
  });

  it('names as Ollama shows them', () => {
    expect(ollamaModelName(['registry.ollama.ai', 'library', 'llama3.2', '1b'])).toBe('llama3.2:1b');
    expect(ollamaModelName(['registry.ollama.ai', 'someone', 'model', 'latest'])).toBe('someone/model:latest');
    expect(ollamaModelName(['hf.co', 'bartowski', 'Llama-3.2-1B-Instruct-GGUF', 'Q4_K_M'])).toBe('hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M');
  });
});
