import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { command } from './serve.js';
import { serveApiFlags, startSettings } from './serve-api-flags.js';
import { writeSparseModel } from './run-command.test-util.js';
import { writeDraftOf } from '../../synth/draft-of.js';

const flags = (argv: string[]) => parseArgs(argv, command).flags;
const envKey = process.env.RAMFORGE_API_KEY;

afterEach(() => {
  if (envKey === undefined) delete process.env.RAMFORGE_API_KEY;
  else process.env.RAMFORGE_API_KEY = envKey;
});

describe('serve --api flags', () => {
  it('without --api: no API, and its own flags are refused', () => {
    expect(serveApiFlags(flags([]), 0)).toBeNull();
    expect(() => serveApiFlags(flags(['--no-ui']), 0)).toThrow(UsageError);
    expect(() => serveApiFlags(flags(['--api-key', 'k']), 0)).toThrow(/needs --api/);
  });

  it("defaults: loopback, llama-server's port, the UI as well, a queue of 16, no key", () => {
    delete process.env.RAMFORGE_API_KEY;
    expect(serveApiFlags(flags(['--api']), 0)).toEqual({ host: '127.0.0.1', port: 8080, loopback: true, apiKey: null, queue: 16, ui: true, cors: [], metrics: false, defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' });
    expect(serveApiFlags(flags(['--api', '--pooling', 'none']), 0)?.pooling).toBe('none');
  });

  it('--cors: * or origins (scheme, host, port), checked at parse time; it needs --api', () => {
    expect(serveApiFlags(flags(['--api', '--cors', 'https://app.example, http://localhost:3000']), 0)?.cors).toEqual(['https://app.example', 'http://localhost:3000']);
    expect(serveApiFlags(flags(['--api', '--cors', '*']), 0)?.cors).toEqual(['*']);
    for (const bad of ['app.example', 'https://app.example/path', 'ftp://x', ',']) expect(() => serveApiFlags(flags(['--api', '--cors', bad]), 0), bad).toThrow(UsageError);
    expect(() => serveApiFlags(flags(['--cors', '*']), 0)).toThrow(/--cors needs --api/);
  });

  it("--metrics (GET /metrics) is off by default, as llama-server's, and needs --api", () => {
    expect(serveApiFlags(flags(['--api', '--metrics']), 0)?.metrics).toBe(true);
    expect(() => serveApiFlags(flags(['--metrics']), 0)).toThrow(/--metrics needs --api/);
  });

  it('the key from --api-key, else RAMFORGE_API_KEY (empty means none); other hosts are not loopback', () => {
    process.env.RAMFORGE_API_KEY = 'from-env';
    expect(serveApiFlags(flags(['--api']), 0)?.apiKey).toBe('from-env');
    expect(serveApiFlags(flags(['--api', '--api-key', 'flag']), 0)?.apiKey).toBe('flag');
    process.env.RAMFORGE_API_KEY = '';
    expect(serveApiFlags(flags(['--api']), 0)?.apiKey).toBeNull();
    expect(serveApiFlags(flags(['--api', '--api-host', '0.0.0.0', '--no-ui']), 0)).toMatchObject({ loopback: false, ui: false });
  });

  it('refuses the UI port as the API port, keys with spaces, odd hosts, ports and queues out of range', () => {
    expect(() => serveApiFlags(flags(['--api', '--port', '9000', '--api-port', '9000']), 9000)).toThrow(/also the UI's --port/);
    expect(() => serveApiFlags(flags(['--api', '--api-key', 'a b']), 0)).toThrow(/printable/);
    expect(() => serveApiFlags(flags(['--api', '--api-host', 'a/b']), 0)).toThrow(/--api-host/);
    expect(() => flags(['--api', '--api-port', '70000'])).toThrow(UsageError);
    expect(() => flags(['--api', '--api-queue', '-1'])).toThrow(UsageError);
    expect(() => flags(['--api', '--parallel', '0'])).toThrow(UsageError);
  });
});

describe('serve --draft', () => {
  let dir = '';
  const shape = { arch: 'llama' as const, layers: 4, embd: 256, heads: 4, kvHeads: 2, ff: 512, vocab: 512, matType: 2 };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-draft-'));
    await writeSparseModel(join(dir, 'm.gguf'), shape);
    await writeDraftOf(join(dir, 'm.gguf'), 1, join(dir, 'd.gguf'));
    await writeSparseModel(join(dir, 'other.gguf'), { ...shape, vocab: 500 });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const start = (argv: string[]) => startSettings(join(dir, 'm.gguf'), flags(argv), argv.includes('--api'), () => {});

  it("reaches the loaded model's settings; under --api the automatic choice is one sequence", async () => {
    const lines: string[] = [];
    const s = await startSettings(join(dir, 'm.gguf'), flags(['--api', '--draft', join(dir, 'd.gguf'), '--draft-max', '5', '--draft-min', '2']), true, (l) => lines.push(l));
    expect(s).toMatchObject({ draft: join(dir, 'd.gguf'), draftMax: 5, draftMin: 2, parallel: 1 });
    expect(lines).toEqual(['parallel 1 (a draft model serves one sequence)']);
    expect((await start(['--draft', join(dir, 'd.gguf')])).draft).toBe(join(dir, 'd.gguf'));
    expect((await start([])).draft).toBeNull();
  });

  it('refuses a draft of another vocabulary, --parallel above 1 and a draft without a model before serve starts (exit 2)', async () => {
    await expect(start(['--api', '--draft', join(dir, 'other.gguf')])).rejects.toThrow(/cannot propose tokens for this model/);
    await expect(start(['--api', '--parallel', '2', '--draft', join(dir, 'd.gguf')])).rejects.toThrow(UsageError);
    // Only the model serve loads at start takes a draft.
    await expect(command.run(parseArgs(['--draft', join(dir, 'd.gguf')], command))).rejects.toThrow(/--draft is for the model serve loads at start/);
  });
});
