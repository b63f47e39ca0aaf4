// Layers on other machines through llama.cpp's RPC backend, on loopback as upstream tests it:
// `ramforge rpc-server` nodes of our build, each under an enforced cap that holds less than half
// the model, the rest in the local process under its own cap. Greedy tokens must equal a local
// run's; every cap must hold; a node lost mid-run ends the run at once, naming the node; a
// node that is not there, or speaks another protocol, is refused before anything loads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliBuiltOrSkip, cliPath, runCli, startCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';
import { probeRpcNode } from '../node/rpc-node.js';
import { RPC_STEP_MIN_MS } from '../shared/settings/run-settings.js';

const MiB = 1024 * 1024;
let dir = '';
let model = '';
const built = cliBuiltOrSkip('the RPC tests');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface Node {
  endpoint: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM: the server stops and prints its group's figures. */
  stop(): Promise<string>;
}

async function startNode(ramBytes: number): Promise<Node> {
  const port = await freePort();
  const endpoint = `127.0.0.1:${port}`;
  const child = spawn(process.execPath, [cliPath(), 'rpc-server', '--port', String(port), '--ram', String(ramBytes), '--enforce-ram', '--memory-report'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  for (let i = 0; ; i++) {
    try {
      await probeRpcNode(endpoint, 1000);
      break;
    } catch (e) {
      if (i > 100 || child.exitCode !== null) throw new Error(`rpc-server on ${endpoint} did not start: ${(e as Error).message}\n${err}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    endpoint,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      return err;
    },
  };
}

/** The figures a node's --memory-report printed when it stopped. */
function nodeFigures(report: string): { limit: number; peak: number; oomKills: number } {
  const num = (re: RegExp) => Number(re.exec(report)?.[1] ?? NaN);
  return { limit: num(/limit\s+(\d+) bytes/), peak: num(/peak\s+(\d+) bytes/), oomKills: num(/OOM kills\s+(\d+)/) };
}

beforeAll(() => {
  if (!built) return;
  dir = mkdtempSync(join(tmpdir(), 'ramforge-rpc-'));
  model = join(dir, 'small.gguf');
  // 132.7 MiB at Q4_0: two nodes of 60 MiB each hold less than half of it.
  const s = runCli(['synth', '--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '9', '--out', model]);
  expect(s.code, s.stderr).toBe(0);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!built)('--rpc refusals before anything loads', () => {
  it('rpc-server --host 0.0.0.0 without --allow-remote is refused: exit 2, the reason given', () => {
    const r = runCli(['rpc-server', '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 .*no authentication.*--allow-remote/);
  });

  it('rpc-server --ram without --enforce-ram is refused: the cap is what the node offers', () => {
    const r = runCli(['rpc-server', '--ram', '1G']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--enforce-ram/);
  });

  it('a node nobody listens on: exit 2, the node named, nothing loaded', async () => {
    const port = await freePort();
    const r = runCli(['run', model, '-p', 'Hi', '-n', '2', '--rpc', `127.0.0.1:${port}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`RPC node 127.0.0.1:${port}: connection refused`);
    expect(r.stderr).toContain('Nothing was loaded');
    expect(r.stdout).toBe('');
  });

  it('a node of another protocol version: exit 2, both versions named', async () => {
    // Answers the handshake as a server of protocol 6.1.0 would.
    const server: Server = createServer((sock) => {
      sock.once('data', () => {
        const rsp = Buffer.alloc(8 + 28);
        rsp.writeBigUInt64LE(28n, 0);
        rsp.writeUInt8(6, 8);
        rsp.writeUInt8(1, 9);
        sock.end(rsp);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const r = startCli(['run', model, '-p', 'Hi', '-n', '2', '--rpc', `127.0.0.1:${port}`]);
      const done = await r.done;
      expect(done.code).toBe(2);
      expect(done.stderr).toMatch(new RegExp(`RPC node 127\\.0\\.0\\.1:${port}: it speaks RPC protocol 6\\.1\\.0, this build 7\\.0\\.0`));
    } finally {
      server.close();
    }
  });

  it('a malformed --rpc list is a usage error', () => {
    const r = runCli(['run', model, '-p', 'Hi', '--rpc', '127.0.0.1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/'127\.0\.0\.1' is not host:port/);
  });
});

const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the capped RPC tests: ${capped.reason}`);
describe.skipIf(!built || (!capped.usable && process.env.CI !== 'true'))('a model split across capped RPC nodes and the local process', () => {
  const nodeRam = 60 * MiB;
  const localRam = String(100 * MiB);
  const gen = ['-p', 'Once upon a time', '-n', '24', '-c', '512', '--temperature', '0'];

  it('greedy tokens equal the local run; the local cap and every node cap hold; the report says what each node held and sent', async () => {
    const nodes = [await startNode(nodeRam), await startNode(nodeRam)];
    let figures: ReturnType<typeof nodeFigures>[] = [];
    const report = join(dir, 'rpc.json');
    const localTokens = join(dir, 'local-tokens.json');
    const rpcTokens = join(dir, 'rpc-tokens.json');
    try {
      const local = runCli(['run', model, ...gen, '--ram', localRam, '--enforce-ram', '--tokens-json', localTokens, '--quiet']);
      expect(local.code, local.stderr).toBe(0);
      const r = runCli(['run', model, ...gen, '--ram', localRam, '--enforce-ram', '--rpc', nodes.map((n) => n.endpoint).join(','), '--tokens-json', rpcTokens, '--report-json', report]);
      expect(r.code, r.stderr).toBe(0);
      const ids = (p: string) => (JSON.parse(readFileSync(p, 'utf8')) as { token_ids: number[] }).token_ids;
      expect(ids(rpcTokens)).toHaveLength(24);
      expect(ids(rpcTokens)).toEqual(ids(localTokens));

      const doc = JSON.parse(readFileSync(report, 'utf8'));
      expect(validateReport(doc), JSON.stringify(validateReport.errors)).toBe(true);
      // Each node holds some of the last layers; the first layers and the embeddings stay local.
      const held = doc.plan.remote.nodes.map((n: { layers: number[] }) => n.layers);
      expect(held.every((l: number[]) => l.length > 0)).toBe(true);
      expect(held.flat()).toEqual([...held.flat()].sort((a: number, b: number) => a - b));
      expect(held.flat().at(-1)).toBe(15);
      expect(doc.plan.layers[0].tier).not.toBe('remote');
      expect(doc.outcome.status).toBe('ok');
      expect(doc.cgroup.peak_bytes).toBeLessThanOrEqual(Number(localRam));
      expect(doc.cgroup.oom_kills).toBe(0);
      // What crossed the network per decoded token, to each node and back, and the time waited.
      const net = doc.residency.network;
      expect(net.nodes.map((n: { endpoint: string }) => n.endpoint)).toEqual(nodes.map((n) => n.endpoint));
      for (const n of net.nodes) {
        expect(n.decode_sent_bytes_per_token).toBeGreaterThan(1024 * 4);
        expect(n.decode_received_bytes_per_token).toBeGreaterThan(0);
        expect(n.decode_wait_ms_per_token).toBeGreaterThan(0);
      }
      // A node with the head sends the logits back (32000 × 4 B a token); a head kept here
      // (by name, on the CPU) leaves every node sending the hidden state only.
      const head = net.nodes.find((n: { holds_head: boolean }) => n.holds_head);
      if (head) expect(head.decode_received_bytes_per_token).toBeGreaterThanOrEqual(32000 * 4);
      else {
        expect(doc.plan.remote.cpuTensors).toContain('^output\\.(weight|bias)$');
        for (const n of net.nodes) expect(n.decode_received_bytes_per_token).toBeLessThan(32000 * 4);
      }
    } finally {
      figures = (await Promise.all(nodes.map((n) => n.stop()))).map(nodeFigures);
    }
    for (const f of figures) {
      expect(f.limit).toBe(nodeRam);
      expect(f.peak).toBeLessThanOrEqual(nodeRam);
      expect(f.oomKills).toBe(0);
    }
  });

  it('a node killed mid-run ends the run within 10 s with a message naming it', async () => {
    const nodes = [await startNode(nodeRam), await startNode(nodeRam)];
    const victim = nodes[1] as Node;
    try {
      let killedAt = 0;
      const run = startCli(['run', model, '-p', 'Once upon a time', '-n', '100000', '-c', '1024', '--ram', localRam, '--enforce-ram', '--rpc', nodes.map((n) => n.endpoint).join(',')], (o) => {
        // Once text streams, the node's server (the llama.cpp process under our supervisor) dies.
        if (killedAt === 0 && o.stdout.length > 20) {
          killedAt = Date.now();
          for (const pid of serverPids(victim.endpoint)) process.kill(pid, 'SIGKILL');
        }
      });
      const r = await run.done;
      expect(killedAt, r.stderr).toBeGreaterThan(0);
      expect(Date.now() - killedAt).toBeLessThan(10_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`RPC node ${victim.endpoint}`);
      expect(r.stderr).toMatch(/the layers it held were lost with it, so the run ended/);
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
    }
  });

  it('a node frozen mid-run (SIGSTOP: its kernel still answers TCP) ends the run within the step deadline, exit 1, naming it', async () => {
    const nodes = [await startNode(nodeRam), await startNode(nodeRam)];
    const [healthy, victim] = nodes as [Node, Node];
    const frozen: number[] = [];
    try {
      let frozenAt = 0;
      const run = startCli(['run', model, '-p', 'Once upon a time', '-n', '100000', '-c', '1024', '--ram', localRam, '--enforce-ram', '--rpc', nodes.map((n) => n.endpoint).join(',')], (o) => {
        // Once text streams (the decode's steps measured), the node's server stops where it is.
        if (frozenAt === 0 && o.stdout.length > 20) {
          frozenAt = Date.now();
          for (const pid of serverPids(victim.endpoint)) {
            process.kill(pid, 'SIGSTOP');
            frozen.push(pid);
          }
        }
      }, 90_000);
      const r = await run.done;
      expect(frozenAt, r.stderr).toBeGreaterThan(0);
      expect(frozen.length).toBeGreaterThan(0);
      // The deadline (at least RPC_STEP_MIN_MS; the decode's steps here take milliseconds), then
      // the kill and the nodes asked (1.5 s), with slack for a busy machine.
      expect(Date.now() - frozenAt, r.stderr).toBeLessThan(RPC_STEP_MIN_MS + 10_000);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/stopped: no progress for [\d.]+ s .* while the decode waited on its RPC nodes/);
      expect(r.stderr).toContain(`RPC node ${victim.endpoint}: no answer within`);
      // The node that still answers is not blamed (it is named once, when the run asked it first).
      const blamed = r.stderr.split('\n').filter((l) => l.includes('the layers it held were lost'));
      expect(blamed).toHaveLength(1);
      expect(blamed.join('\n')).not.toContain(healthy.endpoint);
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      await Promise.all(nodes.map((n) => n.stop()));
    }
  }, 150_000);
});

/** The llama.cpp rpc-server processes listening on this endpoint's port. */
function serverPids(endpoint: string): number[] {
  const port = endpoint.split(':')[1] as string;
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('ggml-rpc-server') && cmd.includes(port)) out.push(pid);
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * A network namespace joined to this one by a veth pair: a second host on this machine, whose
 * link can be cut as a cable is pulled (nothing is closed, packets just stop arriving).
 */
function makeHost(): { ns: string; ip: string; cut(): void; remove(): void } | string {
  const id = `${process.pid % 10000}${Math.floor(Math.random() * 90 + 10)}`;
  const ns = `rfnode${id}`;
  const [h, n] = [`rfh${id}`, `rfn${id}`];
  const octet = 10 + (Number(id) % 200);
  const steps = [
    ['netns', 'add', ns],
    ['link', 'add', h, 'type', 'veth', 'peer', 'name', n],
    ['link', 'set', n, 'netns', ns],
    ['addr', 'add', `10.231.${octet}.1/24`, 'dev', h],
    ['link', 'set', h, 'up'],
    ['-n', ns, 'addr', 'add', `10.231.${octet}.2/24`, 'dev', n],
    ['-n', ns, 'link', 'set', n, 'up'],
    ['-n', ns, 'link', 'set', 'lo', 'up'],
  ];
  const remove = () => {
    spawnSync('ip', ['netns', 'del', ns]);
    spawnSync('ip', ['link', 'del', h]);
  };
  for (const a of steps) {
    const r = spawnSync('ip', a, { encoding: 'utf8' });
    if (r.status !== 0) {
      remove();
      return `ip ${a.join(' ')}: ${r.error?.message ?? r.stderr.trim()}`;
    }
  }
  return { ns, ip: `10.231.${octet}.2`, cut: () => void spawnSync('ip', ['-n', ns, 'link', 'set', n, 'down']), remove };
}

const probeHost = built ? makeHost() : 'the CLI is not built';
if (typeof probeHost === 'object') probeHost.remove();
else if (process.env.CI !== 'true') console.warn(`skipping the network-partition RPC test: ${probeHost}`);
describe.skipIf(!built || (typeof probeHost === 'string' && process.env.CI !== 'true'))('a node on another host', () => {
  it('a node whose link is cut mid-run (nothing closed: a pulled cable) ends the run within 10 s, naming it', async () => {
    const host = makeHost();
    if (typeof host === 'string') throw new Error(`CI=true but no second host can be made: ${host}`);
    const port = 50300 + (process.pid % 500);
    const endpoint = `${host.ip}:${port}`;
    // `ip netns exec` mounts its own /sys, without the memory cgroups: this node runs uncapped.
    const server = spawn('ip', ['netns', 'exec', host.ns, process.execPath, cliPath(), 'rpc-server', '--host', host.ip, '--allow-remote', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let serverErr = '';
    server.stderr?.on('data', (b: Buffer) => (serverErr += b.toString('utf8')));
    try {
      for (let i = 0; ; i++) {
        try {
          await probeRpcNode(endpoint, 1000);
          break;
        } catch (e) {
          if (i > 100) throw new Error(`rpc-server on ${endpoint} did not start: ${(e as Error).message}\n${serverErr}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      let cutAt = 0;
      const run = startCli(['run', model, '-p', 'Once upon a time', '-n', '100000', '-c', '1024', '--rpc', endpoint], (o) => {
        if (cutAt === 0 && o.stdout.length > 20) {
          cutAt = Date.now();
          host.cut();
        }
      });
      const r = await run.done;
      expect(cutAt, r.stderr).toBeGreaterThan(0);
      expect(Date.now() - cutAt).toBeLessThan(10_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`RPC node ${endpoint}`);
      expect(r.stderr).toMatch(/the layers it held were lost with it, so the run ended/);
    } finally {
      server.kill('SIGTERM');
      spawnSync('pkill', ['-f', `rpc-server --host ${host.ip}`]);
      host.remove();
    }
  }, 120_000);
});
