// The built CLI (out/cli, `npm run build:cli`) as a user runs it against a loopback server:
// exit codes and outputs of `plan URL`, `pull` and `models`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { cliPath } from '../built-cli.test-util.js';
import { RangeServer } from '../../node/remote/range-server.test-util.js';
import { buildFakeHome, DISCOVERY_ENV_KEYS } from '../../node/discovery/fake-home.test-util.js';
import { tinyModel } from '../../shared/gguf/tiny-models.test-util.js';
import { parseGgufHeader } from '../../shared/gguf/reader.js';
import { MODELS_JSON_SCHEMA } from '../../shared/discovery/schema.js';
import type { DiscoveryReport } from '../../shared/discovery/types.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI without blocking this process (the test's server must keep answering). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath(), ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

const server = new RangeServer();
let dir = '';
let local = '';
let model: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-remote-cli-'));
  model = Buffer.from(tinyModel({ embd: 256, vocab: 4000, name: 'remote-cli' }));
  const { dataOffset } = parseGgufHeader(model, model.length);
  randomBytes(model.length - dataOffset).copy(model, dataOffset);
  local = join(dir, 'local.gguf');
  await writeFile(local, model);
  await server.start();
  server.files.set('/m.gguf', { bytes: model, etag: 'v1' });
  server.files.set('/plain/m.gguf', { bytes: model, noRanges: true });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the built CLI with URLs', () => {
  it('plan URL prints the plan of the local copy (exit 0); no range support exits 1; nothing there exits 2', async () => {
    const a = await cli(['plan', local, '--ram', '8G', '--disk-bw', '1G']);
    const b = await cli(['plan', server.url('/m.gguf'), '--ram', '8G', '--disk-bw', '1G']);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const c = await cli(['plan', server.url('/plain/m.gguf'), '--ram', '8G']);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/^ramforge plan: .*does not support range requests/);
    const d = await cli(['plan', server.url('/none.gguf'), '--ram', '8G']);
    expect(d.code).toBe(2);
  });

  it('pull: interrupted (exit 1), resumed (exit 0, byte-identical); a wrong checksum exits 1 and leaves nothing', async () => {
    const out = join(dir, 'out');
    server.files.set('/m.gguf', { bytes: model, etag: 'v1', cutAfterBytes: Math.floor(model.length / 2) });
    const first = await cli(['pull', server.url('/m.gguf'), '--out', out, '--ram', '8G', '--disk-bw', '1G', '--retries', '0']);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/download interrupted/);
    const second = await cli(['pull', server.url('/m.gguf'), '--out', out, '--ram', '8G', '--disk-bw', '1G']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/ETA/);
    expect((await readFile(join(out, 'm.gguf'))).equals(model)).toBe(true);
    const bad = join(dir, 'bad');
    const wrong = createHash('sha256').update('x').digest('hex');
    const third = await cli(['pull', server.url('/m.gguf'), '--out', bad, '--sha256', wrong, '--ram', '8G', '--disk-bw', '1G']);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/sha256 mismatch .* the download was removed/);
    expect(await readdir(bad)).toEqual([]);
  });

  it('models --json in a fake home', async () => {
    const home = join(dir, 'home');
    await buildFakeHome(home, join(dir, 'extra'));
    const env: NodeJS.ProcessEnv = { HOME: home };
    for (const k of DISCOVERY_ENV_KEYS) env[k] = '';
    const r = await cli(['models', '--json', '--ram', '4G', '--disk-bw', '1G'], env);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as DiscoveryReport;
    expect(new Ajv({ strict: false }).validate(MODELS_JSON_SCHEMA, report)).toBe(true);
    expect(report.models.filter((m) => m.root.startsWith(home) && m.chat).length).toBeGreaterThanOrEqual(8);
  });
});
