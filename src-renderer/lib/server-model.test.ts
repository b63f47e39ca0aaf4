import { describe, expect, it } from 'vitest';
import type { ServerStats } from '../../src-main/shared/server-stats.js';
import { apiDefaultsText } from '../../src-main/shared/api-defaults.js';
import { apiServerRequest, appendServerPoint, MAX_SERVER_POINTS, serverUrl } from './server-model.js';

const stats = (p: Partial<ServerStats> = {}): ServerStats => ({ url: 'http://127.0.0.1:8080/v1', activeRequests: 2, sequences: 4, queued: 1, refused: 0, aggregateTokS: 12, tokensPerPass: 2, completed: 5, ...p });
const on = { enabled: true, url: 'http://127.0.0.1:9000/v1', port: 9000, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' as const };

describe('server model', () => {
  it('keeps a bounded series of throughput points', () => {
    let s = appendServerPoint([], stats(), 0);
    expect(s).toEqual([{ tS: 0, aggregateTokS: 12, tokensPerPass: 2 }]);
    for (let i = 1; i <= MAX_SERVER_POINTS + 5; i++) s = appendServerPoint(s, stats({ aggregateTokS: null }), i);
    expect(s).toHaveLength(MAX_SERVER_POINTS);
    expect(s.at(-1)).toEqual({ tS: MAX_SERVER_POINTS + 5, aggregateTokS: null, tokensPerPass: 2 });
  });

  it('the URL: the server\'s own stats first, else the setting', () => {
    expect(serverUrl(on, null)).toBe('http://127.0.0.1:9000/v1');
    expect(serverUrl(on, stats())).toBe('http://127.0.0.1:8080/v1');
    expect(serverUrl({ ...on, enabled: false, url: null }, stats())).toBe('http://127.0.0.1:8080/v1');
    expect(serverUrl(on, stats({ url: null }))).toBeNull();
    expect(serverUrl({ ...on, enabled: false }, null)).toBeNull();
    expect(serverUrl(null, null)).toBeNull();
    expect(serverUrl({ ...on, url: null, error: 'port 9000 is in use' }, null)).toBeNull();
  });

  it('turns the form into a setApiServer request, as the host checks it', () => {
    expect(apiServerRequest({ enabled: true, portText: ' 8081 ', keyText: '', clearKey: false })).toEqual({ ok: { enabled: true, port: 8081 } });
    expect(apiServerRequest({ enabled: true, portText: '8081', keyText: 'sk-1', clearKey: false })).toEqual({ ok: { enabled: true, port: 8081, apiKey: 'sk-1' } });
    expect(apiServerRequest({ enabled: false, portText: '8081', keyText: 'ignored', clearKey: true })).toEqual({ ok: { enabled: false, port: 8081, apiKey: null } });
    for (const portText of ['', '0', '65536', '80.5', 'abc', '-1']) expect(apiServerRequest({ enabled: true, portText, keyText: '', clearKey: false }), portText).toHaveProperty('error');
    expect(apiServerRequest({ enabled: true, portText: '1', keyText: 'has space', clearKey: false })).toEqual({ error: expect.stringMatching(/without spaces/) });
  });

  it("reads the sampling defaults field as serve's flags name them (llama.cpp's temp and n-predict too), and says what is wrong", () => {
    const req = (defaultsText: string) => apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, defaultsText });
    expect(req(' temperature=0.2, seed = 42,top-k=20, n-predict=256 ')).toEqual({ ok: { enabled: true, port: 8081, defaults: { temperature: 0.2, seed: 42, topK: 20, maxTokens: 256 } } });
    expect(req('temp=0')).toEqual({ ok: { enabled: true, port: 8081, defaults: { temperature: 0 } } });
    expect(req('')).toEqual({ ok: { enabled: true, port: 8081, defaults: {} } });
    expect(req('top-p=2')).toEqual({ error: expect.stringMatching(/^top-p must be a number from 0 to 1/) });
    expect(req('seed=1.5')).toEqual({ error: expect.stringMatching(/^seed must be an integer/) });
    expect(req('temperature=hot')).toEqual({ error: expect.stringMatching(/^temperature must be a number/) });
    expect(req('warmth=1')).toEqual({ error: expect.stringMatching(/'warmth=1' is not name=value with a name of: temperature, top-k/) });
    const named = apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, aliasText: 'code, tiny-b,code', tagsText: 'chat' });
    expect(named).toEqual({ ok: { enabled: true, port: 8081, names: { aliases: ['code', 'tiny-b'], tags: ['chat'] } } });
    expect(apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, aliasText: 'my model' })).toEqual({ error: expect.stringMatching(/^alias 'my model' must be 1 to 256 printable characters without spaces or commas/) });
    expect(apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, slots: false })).toEqual({ ok: { enabled: true, port: 8081, slots: false } });
    // The "a vector per token" box: serve --pooling none, or back to mean.
    expect(apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, perToken: true })).toEqual({ ok: { enabled: true, port: 8081, pooling: 'none' } });
    expect(apiServerRequest({ enabled: true, portText: '8081', keyText: '', clearKey: false, perToken: false })).toEqual({ ok: { enabled: true, port: 8081, pooling: 'mean' } });
    // What the host says it runs with is shown the same way.
    expect(apiDefaultsText({ maxTokens: 256, temperature: 0.2 })).toBe('temperature=0.2, max-tokens=256');
  });
});
