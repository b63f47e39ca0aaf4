// A few hundred malformed requests at the API server in this process (a fake backend, short
// time limits so slow clients are cut off quickly), on OpenAI's and Ollama's routes: every one gets a 4xx, nothing throws out of
// a listener (vitest fails the run on an uncaught error), and a valid request succeeds after.
// api-cli.test.ts sends the same kinds to a real `ramforge serve --api`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FakeBackend } from './fake-backend.test-util.js';
import { fuzzCases, runCases, summary } from './fuzz-cases.test-util.js';

let srv: RunningApiServer;
const backend = new FakeBackend();

beforeAll(async () => {
  srv = await startApiServer({ backend, port: 0, body: { idleMs: 500, totalMs: 3000 }, headersTimeoutMs: 1000 });
});

afterAll(async () => {
  await srv.close();
});

describe('API server under fuzzing (in process)', () => {
  it('answers every malformed request with a 4xx and keeps serving', async () => {
    const cases = fuzzCases(0xa91, 600, srv.port, 'fake', { slow: 6, big: 4, structured: 40 });
    const out = await runCases(srv.port, cases, 12, 10_000);
    process.stdout.write(`API fuzz (in process): ${out.length} cases\n  ${summary(out)}\n`);
    const problems = out.filter((o) => o.problem !== null);
    expect(problems.slice(0, 10).map((p) => `${p.kind} ${p.detail}: ${p.problem}`)).toEqual([]);
    expect(new Set(out.map((o) => o.kind)).size).toBeGreaterThanOrEqual(12);
    // The structured-output fields, embeddings and Ollama's routes are among them.
    for (const route of ['/v1/embeddings', '/api/chat', '/api/generate', '/api/embed', '/api/show']) expect(out.some((o) => o.detail.startsWith(`${route} `)), route).toBe(true);
    for (const field of ['response_format', 'grammar', 'options', 'format']) expect(out.some((o) => o.detail.includes(` ${field}=`)), field).toBe(true);
    const r = await fetch(`http://127.0.0.1:${srv.port}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fake', prompt: 'x', max_tokens: 2 }) });
    expect(r.status).toBe(200);
    expect(backend.gate.counts()).toMatchObject({ active: 0, queued: 0 });
  });
});
