import { beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../api.js';
import { fakeApi, type FakeApi } from './fake-api.test-util.js';
import { startStore, useStore } from './index.js';

let api: ReturnType<typeof fakeApi>;
let stop: () => void;

beforeEach(() => {
  stop?.();
  api = fakeApi();
  setApi(api);
  useStore.setState(useStore.getInitialState(), true);
  stop = startStore({ schedule: (flush) => flush() });
});

const report = (name: string) => ({
  schemaVersion: 1,
  budget: null,
  roots: [{ source: 'ollama', path: '/o', present: true }],
  models: [{ source: 'ollama', name, path: `/o/${name}`, kind: 'model', chat: true, plan: { verdict: 'fits' } }],
  folders: [],
});

describe('discovery in the store', () => {
  it('lists models for the current budget', async () => {
    (api as FakeApi).discoverModels.mockResolvedValueOnce(report('llama3:8b'));
    useStore.getState().setSettings({ ramBytes: 8 * 1024 ** 3 });
    await useStore.getState().refreshDiscovered();
    expect((api as FakeApi).discoverModels).toHaveBeenLastCalledWith(8 * 1024 ** 3);
    expect(useStore.getState().discovered?.groups[0]?.entries[0]).toMatchObject({ name: 'llama3:8b', verdict: 'fits' });
  });

  it('a models-changed event from the host refreshes the list', async () => {
    (api as FakeApi).discoverModels.mockResolvedValue(report('new:latest'));
    (api as FakeApi).emit({ type: 'models-changed' });
    await new Promise((r) => setTimeout(r, 400));
    expect(useStore.getState().discovered?.groups[0]?.entries[0]?.name).toBe('new:latest');
  });

  it('an error is kept for the sidebar, not thrown', async () => {
    (api as FakeApi).discoverModels.mockRejectedValueOnce(new Error('ramforge models took longer than 120 s'));
    await useStore.getState().refreshDiscovered();
    expect(useStore.getState().discoveryError).toMatch(/took longer/);
  });

  it('a pasted URL opens in the inspect view and is planned; anything else is refused', async () => {
    await useStore.getState().openModelUrl('  https://host/org/repo/resolve/main/m.gguf?download=true ');
    expect((api as FakeApi).inspect).toHaveBeenCalledWith('https://host/org/repo/resolve/main/m.gguf?download=true');
    expect((api as FakeApi).plan).toHaveBeenCalled();
    expect(useStore.getState().modelLabel).toBe('m.gguf');
    await useStore.getState().openModelUrl('/not/a/url.gguf');
    expect(useStore.getState().notice?.kind).toBe('error');
  });

  it('adding a folder saves it and lists again', async () => {
    await useStore.getState().setModelFolders(['/extra']);
    expect((api as FakeApi).setModelFolders).toHaveBeenCalledWith(['/extra']);
    expect((api as FakeApi).discoverModels).toHaveBeenCalled();
  });

  it('a download: running with progress events, then done with its path and a fresh list; a failure keeps the message', async () => {
    const url = 'https://host/m.gguf';
    let finish: (v: unknown) => void = () => {};
    (api as FakeApi).pullModel.mockReturnValueOnce(new Promise((r) => (finish = r)));
    useStore.getState().setSettings({ ramBytes: 4 * 1024 ** 3 });
    const p = useStore.getState().pullModel(url);
    expect((api as FakeApi).pullModel).toHaveBeenCalledWith(url, 4 * 1024 ** 3);
    expect(useStore.getState().pulls[url]?.state).toBe('running');
    (api as FakeApi).emit({ type: 'pull-progress', url, file: 'm.gguf', done: 50, total: 100, rate: 10 });
    expect(useStore.getState().pulls[url]).toMatchObject({ done: 50, total: 100, rate: 10, file: 'm.gguf' });
    const calls = (api as FakeApi).discoverModels.mock.calls.length;
    finish({ schemaVersion: 1, files: [{ path: '/data/models/m.gguf' }] });
    await p;
    expect(useStore.getState().pulls[url]).toMatchObject({ state: 'done', path: '/data/models/m.gguf', message: 'Saved /data/models/m.gguf' });
    expect((api as FakeApi).discoverModels.mock.calls.length).toBeGreaterThan(calls);
    (api as FakeApi).pullModel.mockRejectedValueOnce(new Error('sha256 mismatch for m.gguf'));
    await useStore.getState().pullModel(url);
    expect(useStore.getState().pulls[url]).toMatchObject({ state: 'failed', message: 'sha256 mismatch for m.gguf' });
  });
});
