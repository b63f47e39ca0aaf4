// The API server in the store: the setting from getApiServer/setApiServer, server-stats events
// into the latest figures and the chart's series.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ServerStats } from '../../src-main/shared/server-stats.js';
import { setApi } from '../api.js';
import { fakeApi, type FakeApi } from './fake-api.test-util.js';
import { startStore, useStore } from './index.js';

let api: FakeApi;
let stop: () => void;
const flush = () => new Promise((r) => setTimeout(r, 0));
const stats = (p: Partial<ServerStats> = {}): ServerStats => ({ url: 'http://127.0.0.1:8080/v1', activeRequests: 1, sequences: 2, queued: 0, refused: 0, aggregateTokS: 5, tokensPerPass: 1, completed: 0, ...p });

beforeEach(() => {
  stop?.();
  const a = fakeApi();
  api = a as unknown as FakeApi;
  setApi(a);
  useStore.setState(useStore.getInitialState(), true);
  stop = startStore({ schedule: (f) => f() });
});

describe('API server state', () => {
  it('reads the setting at start', async () => {
    await flush();
    expect(api.getApiServer).toHaveBeenCalledTimes(1);
    expect(useStore.getState().apiServer).toEqual({ enabled: false, url: null, port: 8080, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true });
  });

  it('server-stats events give the latest figures and a series over time', () => {
    api.emit({ type: 'server-stats', stats: stats() });
    api.emit({ type: 'server-stats', stats: stats({ activeRequests: 2, aggregateTokS: 9, tokensPerPass: 2 }) });
    const s = useStore.getState();
    expect(s.serverStats).toMatchObject({ activeRequests: 2, aggregateTokS: 9 });
    expect(s.serverSeries.map((p) => [p.aggregateTokS, p.tokensPerPass])).toEqual([
      [5, 1],
      [9, 2],
    ]);
    expect(s.serverSeries[0]!.tS).toBe(0);
    useStore.getState().onServerStats(stats(), s.serverT0! + 3000);
    expect(useStore.getState().serverSeries.at(-1)!.tS).toBe(3);
  });

  it('turning it on takes the host\'s answer; turning it off drops stale figures', async () => {
    await useStore.getState().applyApiServer({ enabled: true, port: 9001, apiKey: 'k' });
    expect(api.setApiServer).toHaveBeenCalledWith({ enabled: true, port: 9001, apiKey: 'k' });
    expect(useStore.getState().apiServer).toMatchObject({ enabled: true, url: 'http://127.0.0.1:9001/v1', hasKey: true });
    api.emit({ type: 'server-stats', stats: stats() });
    await useStore.getState().applyApiServer({ enabled: false, port: 9001 });
    expect(useStore.getState().apiServer?.enabled).toBe(false);
    expect(useStore.getState().serverStats).toBeNull();
    expect(useStore.getState().apiServerBusy).toBe(false);
  });

  it('a refused change keeps the state and says why', async () => {
    await flush();
    api.setApiServer.mockRejectedValueOnce(new Error('port must be an integer 1..65535 (got 0)'));
    await useStore.getState().applyApiServer({ enabled: true, port: 0 });
    expect(useStore.getState().apiServerError).toMatch(/port must be/);
    expect(useStore.getState().apiServer?.enabled).toBe(false);
  });
});
