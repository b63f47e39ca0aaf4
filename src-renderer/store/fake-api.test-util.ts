// Test helper (imported only by *.test.ts): a RamforgeApi whose methods are vitest mocks and
// whose events are pushed by the test.
import { vi } from 'vitest';
import type { ApiEvent, ApiMethod, LocalApiMethod, RamforgeApi } from '../../src-main/shared/api.js';

export type FakeApi = { [K in keyof RamforgeApi]-?: ReturnType<typeof vi.fn> } & { emit(e: ApiEvent): void };

type Mocks = { [K in ApiMethod | LocalApiMethod]: ReturnType<typeof vi.fn> };

export function fakeApi(): FakeApi & RamforgeApi {
  const listeners = new Set<(e: ApiEvent) => void>();
  // Typed by the API's one list: a method added to RamforgeApi without a fake fails to compile.
  const mocks: Mocks = {
    listModels: vi.fn(async () => []),
    inspect: vi.fn(async () => ({ name: 'm', architecture: 'llama', layers: [{ index: 0, bytes: 10 }] })),
    inspectUpload: vi.fn(async () => ({})),
    plan: vi.fn(async () => ({ layers: [{ index: 0, bytes: 10, tier: 'pinned' }] })),
    discoverModels: vi.fn(async () => ({ schemaVersion: 1, budget: null, roots: [], models: [], folders: [] })),
    listDevices: vi.fn(async () => ({ schemaVersion: 1, vulkanBuilt: false, error: null, devices: [] })),
    setModelFolders: vi.fn(async (paths: string[]) => paths),
    pullModel: vi.fn(async () => ({ schemaVersion: 1, files: [] })),
    cancelPull: vi.fn(async () => {}),
    load: vi.fn(async () => ({})),
    unload: vi.fn(async () => {}),
    generate: vi.fn(async () => {}),
    complete: vi.fn(async () => {}),
    stop: vi.fn(async () => {}),
    killWorker: vi.fn(async () => {}),
    restart: vi.fn(async () => ({ status: 'idle', model: null, settings: null, lastExit: null, message: null })),
    comparePolicies: vi.fn(async () => []),
    getState: vi.fn(async () => ({ status: 'idle', model: null, settings: null, lastExit: null, message: null })),
    listConversations: vi.fn(async () => []),
    saveConversation: vi.fn(async () => {}),
    lastReport: vi.fn(async () => null),
    takeRecoveryNotice: vi.fn(async () => null),
    getApiServer: vi.fn(async () => ({ enabled: false, url: null, port: 8080, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true })),
    setApiServer: vi.fn(async (o: { enabled: boolean; port: number; apiKey?: string | null; defaults?: Record<string, number> }) => ({
      enabled: o.enabled, url: o.enabled ? `http://127.0.0.1:${o.port}/v1` : null, port: o.port, hasKey: typeof o.apiKey === 'string', error: null, cors: [], defaults: o.defaults ?? {}, names: { aliases: [], tags: [] }, slots: true,
    })),
    exportReport: vi.fn(async () => 'saved.json'),
    pathForFile: vi.fn(() => null),
    onEvent: vi.fn((l: (e: ApiEvent) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    }),
  };
  const api = { ...mocks, emit: (e: ApiEvent) => listeners.forEach((l) => l(e)) };
  return api as unknown as FakeApi & RamforgeApi;
}
