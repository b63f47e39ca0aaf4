import { describe, expect, it } from 'vitest';
import { normalizeDiscovery } from './discovery-model.js';

const model = (source: string, name: string, extra: Record<string, unknown> = {}) => ({
  source,
  root: `/r/${source}`,
  name,
  path: `/r/${source}/${name}`,
  files: [`/r/${source}/${name}`],
  fileBytes: 100,
  kind: 'model',
  chat: true,
  reason: null,
  architecture: 'llama',
  modelName: name,
  parameterCount: 10,
  quantization: 'Q4_0',
  contextLength: 256,
  plan: { verdict: 'out-of-core', reason: 'streams', ctx: 256, ramUsedBytes: 1, minimumRamBytes: 1, fullResidencyRamBytes: 1, bytesReadPerToken: 5, predictedDecodeTokS: 2.5 },
  planError: null,
  ...extra,
});

describe('the discovered-models list', () => {
  it('groups entries by source in search order, with verdicts, labels and reasons', () => {
    const info = normalizeDiscovery({
      schemaVersion: 1,
      budget: { ramBytes: 8e9, ramSource: '--ram', diskBandwidthSource: 'x' },
      roots: [
        { source: 'huggingface', path: '/hf', present: true },
        { source: 'ollama', path: '/ol', present: true },
        { source: 'lmstudio', path: '/none', present: false },
      ],
      models: [
        model('huggingface', 'org/r/a.gguf'),
        model('ollama', 'llama3:8b'),
        model('ollama', 'bad:latest', { kind: 'unreadable', chat: false, reason: 'manifest is not valid JSON', plan: null }),
      ],
      folders: ['/extra'],
    });
    expect(info.groups.map((g) => [g.source, g.label, g.roots, g.entries.map((e) => e.name)])).toEqual([
      ['ollama', 'Ollama', ['/ol'], ['llama3:8b', 'bad:latest']],
      ['huggingface', 'Hugging Face cache', ['/hf'], ['org/r/a.gguf']],
    ]);
    const [ok, bad] = info.groups[0]!.entries;
    expect(ok).toMatchObject({ verdict: 'out-of-core', tokS: 2.5, chat: true });
    expect(bad).toMatchObject({ kind: 'unreadable', chat: false, reason: 'manifest is not valid JSON', verdict: null });
    expect(info.folders).toEqual(['/extra']);
    expect(info.budgetBytes).toBe(8e9);
    expect(info.chatCount).toBe(2);
  });

  it('survives garbage', () => {
    expect(normalizeDiscovery(null)).toEqual({ groups: [], folders: [], budgetBytes: null, chatCount: 0 });
  });
});
