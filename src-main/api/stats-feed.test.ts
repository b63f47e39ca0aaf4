import { describe, expect, it } from 'vitest';
import type { ServerStats } from '../shared/server-stats.js';
import { GenerationGate } from './gate.js';
import { ServerStatsFeed } from './stats-feed.js';
import { Throughput } from './throughput.js';

describe('ServerStatsFeed', () => {
  it('silent until the API listens; then each change is sent, with the gate\'s counts and the window\'s rates; one last message when it stops', async () => {
    const sent: ServerStats[] = [];
    const tp = new Throughput(() => 0);
    let feed: ServerStatsFeed | null = null;
    const gate = new GenerationGate(2, 4, () => feed?.changed());
    feed = new ServerStatsFeed(() => gate, tp, (s) => sent.push(s));
    const leave = await gate.enter();
    expect(sent).toEqual([]);
    feed.start('http://127.0.0.1:8080/v1');
    expect(sent.at(-1)).toEqual({ url: 'http://127.0.0.1:8080/v1', activeRequests: 1, sequences: 2, queued: 0, refused: 0, aggregateTokS: null, tokensPerPass: null, completed: 0 });
    tp.pass();
    tp.token();
    tp.token();
    leave();
    expect(sent.at(-1)).toMatchObject({ activeRequests: 0, completed: 1, tokensPerPass: 2, aggregateTokS: 2 });
    feed.stop();
    expect(sent.at(-1)?.url).toBeNull();
    const n = sent.length;
    feed.changed();
    feed.stop();
    expect(sent.length).toBe(n);
  });
});
