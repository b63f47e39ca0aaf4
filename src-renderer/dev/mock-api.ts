// DEV ONLY: a fake RamforgeApi for screenshots of the renderer without a backend. Installed
// by dev/dev-main.tsx through setApi(); production code never imports this file.
import type { ApiEvent, Conversation, EngineState, RamforgeApi, RunSettings } from '../../src-main/shared/api.js';
import { mockInspect, mockPlan, mockReport, mockSamples, mockSchedule } from './mock-data.js';
import { mockDiscovery } from './mock-discovery.js';

export function createMockApi(): RamforgeApi {
  const listeners = new Set<(e: ApiEvent) => void>();
  const emit = (e: ApiEvent) => listeners.forEach((l) => l(e));
  const model = { path: '/models/synthetic-13b.gguf', name: 'synthetic-13b.gguf', arch: 'llama', description: '', nParams: 13e9, sizeBytes: 13.8e9, nLayers: 32, nCtxTrain: 4096, nVocab: 32000, nCtx: 2048, chatTemplate: null, metadata: {}, loadMs: 1200, schedule: mockSchedule() };
  let state: EngineState = { status: 'ready', model, settings: null, lastExit: null, message: null };
  const convs: Conversation[] = [
    { id: 'c1', title: 'Explain page reclaim', modelPath: model.path, system: 'You are terse.', mode: 'chat', modeAuto: false, messages: [{ role: 'user', content: 'Why does LRU fail on a cyclic scan?' }, { role: 'assistant', content: 'Because it evicts exactly the pages needed next.', stats: { ttftMs: 2870, decodeTokS: 0.44, tokens: 12 } }], updatedAt: new Date().toISOString() },
  ];
  return {
    listModels: async () => [{ path: model.path, name: model.name, sizeBytes: model.sizeBytes }, { path: '/models/tiny-qwen2.gguf', name: 'tiny-qwen2.gguf', sizeBytes: 41e6 }],
    inspect: async (p) => {
      if (p.includes('bad')) throw new Error(`${p}: bad magic 0x46554747, expected "GGUF" (at byte offset 0)`);
      return mockInspect();
    },
    inspectUpload: async () => mockInspect(),
    plan: async (_p: string, s: RunSettings) => mockPlan(s.ramBytes),
    discoverModels: async (ramBytes) => mockDiscovery(ramBytes, []),
    listDevices: async () => ({ schemaVersion: 1, vulkanBuilt: true, error: null, devices: [{ backend: 'Vulkan', index: 0, gpu: '0', name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'cpu', software: true, memoryTotal: 2 ** 31, memoryFree: 2 ** 31, defaultVramBytes: 2 ** 31 - 2 ** 28, default: false }] }),
    setModelFolders: async (paths) => paths,
    pullModel: async (url) => ({ schemaVersion: 1, url, files: [] }),
    cancelPull: async () => {},
    load: async () => model,
    unload: async () => {},
    generate: async () => {},
    complete: async () => {},
    stop: async () => {},
    killWorker: async () => {
      state = { ...state, status: 'crashed', lastExit: { reason: 'oom', code: null, signal: 'SIGKILL', message: 'killed by the memory cap' }, message: 'The worker was killed by the kernel OOM killer (cgroup cap 11.0 GiB).' };
      emit({ type: 'state', state });
    },
    restart: async () => (state = { ...state, status: 'ready', message: null }),
    comparePolicies: async (_r, _p, _s, policies) => policies.map((p, i) => mockReport(p, [1, 2, 3, 4], i ? 0.45 : 0.09)),
    getState: async () => state,
    listConversations: async () => convs,
    saveConversation: async () => {},
    lastReport: async () => mockReport('stream', [1, 2, 3, 4], 0.45),
    takeRecoveryNotice: async () => null,
    exportReport: async () => 'mock.json',
    getApiServer: async () => ({ enabled: true, url: 'http://127.0.0.1:8080/v1', port: 8080, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' }),
    setApiServer: async (o) => ({ enabled: o.enabled, url: o.enabled ? `http://127.0.0.1:${o.port}/v1` : null, port: o.port, hasKey: typeof o.apiKey === 'string', error: null, cors: o.cors ?? [], defaults: o.defaults ?? {}, names: o.names ?? { aliases: [], tags: [] }, slots: o.slots ?? true, pooling: o.pooling ?? 'mean' }),
    onEvent: (l) => {
      listeners.add(l);
      setTimeout(() => mockSamples(220).forEach((s) => l({ type: 'sample', sample: s })), 0);
      return () => listeners.delete(l);
    },
  };
}
