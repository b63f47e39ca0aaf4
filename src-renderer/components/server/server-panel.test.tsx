// The dashboard's server panel fed server-stats events through the real store (the host's
// events as a fake API pushes them), rendered to HTML: URL, load, refused, throughput.
import { beforeEach, describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ServerStats } from '../../../src-main/shared/server-stats.js';
import { setApi } from '../../api.js';
import { startStore, useStore } from '../../store/index.js';
import { fakeApi, type FakeApi } from '../../store/fake-api.test-util.js';
import { ServerPanelView } from './ServerPanel.js';

let api: FakeApi;
let stop: () => void;
const stats = (p: Partial<ServerStats> = {}): ServerStats => ({ url: 'http://127.0.0.1:8080/v1', activeRequests: 3, sequences: 4, queued: 2, refused: 1, aggregateTokS: 23.456, tokensPerPass: 3, completed: 17, ...p });

/** The panel as the dashboard renders it from the store. */
const panel = () => {
  const s = useStore.getState();
  return renderToStaticMarkup(<ServerPanelView state={s.apiServer} stats={s.serverStats} points={s.serverSeries} />);
};
const kpi = (html: string, id: string) => new RegExp(`data-testid="${id}">([^<]*)<`).exec(html)?.[1];

beforeEach(() => {
  stop?.();
  const a = fakeApi();
  api = a as unknown as FakeApi;
  setApi(a);
  useStore.setState(useStore.getInitialState(), true);
  stop = startStore({ schedule: (f) => f() });
});

describe('ServerPanel', () => {
  it('shows off, with where to turn it on, before the server runs', () => {
    const html = panel();
    expect(html).toContain('data-state="off"');
    expect(kpi(html, 'server-url')).toBe('off');
    expect(html).toContain('OpenAI-compatible API');
    expect(kpi(html, 'server-active')).toBe('—');
  });

  it('shows the figures of the last server-stats event and the series length', () => {
    useStore.setState({ apiServer: { enabled: true, url: 'http://127.0.0.1:8080/v1', port: 8080, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' } });
    api.emit({ type: 'server-stats', stats: stats({ activeRequests: 1 }) });
    api.emit({ type: 'server-stats', stats: stats() });
    const html = panel();
    expect(html).toContain('data-state="on"');
    expect(kpi(html, 'server-url')).toBe('http://127.0.0.1:8080/v1');
    expect(kpi(html, 'server-active')).toBe('3 / 4');
    expect(kpi(html, 'server-queued')).toBe('2');
    expect(kpi(html, 'server-refused')).toBe('1');
    expect(kpi(html, 'server-tok-s')).toBe('23.5 tok/s');
    expect(kpi(html, 'server-tokens-per-pass')).toBe('3.00');
    expect(kpi(html, 'server-completed')).toBe('17');
    expect(html).toContain('data-testid="server-chart" data-points="2"');
  });

  it('an idle server shows its load with no rate; an enabled server that failed says why', () => {
    api.emit({ type: 'server-stats', stats: stats({ activeRequests: 0, queued: 0, aggregateTokS: null, tokensPerPass: null }) });
    let html = panel();
    expect(kpi(html, 'server-url')).toBe('http://127.0.0.1:8080/v1'); // the server's own word, though the setting says off
    expect(kpi(html, 'server-tok-s')).toBe('—');
    expect(kpi(html, 'server-tokens-per-pass')).toBe('—');
    useStore.setState({ apiServer: { enabled: true, url: null, port: 8080, hasKey: false, error: 'port 8080 is in use', cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' }, serverStats: null });
    html = panel();
    expect(html).toContain('data-state="off"');
    expect(html).toContain('Not listening: port 8080 is in use');
  });
});
